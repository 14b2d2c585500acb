# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``--variant`` and ``--paytable`` of the commands that work out a table's rules offline.

A variant is a built-in one or one the variant file given with ``--paytable`` composes
(``table_controller/variant_file.py``); a name that is neither stops the command in one line
naming the variants there are (:class:`UsageError`, exit status 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from table_controller.cli import UsageError
from table_controller.rules import VARIANTS, Variant

#: The help of ``--variant`` wherever it is given.
VARIANT_HELP = (
    f"{', '.join(VARIANTS)} (default commission), or a variant the --paytable file composes"
)
#: The help of ``--paytable`` wherever it is given.
PAYTABLE_HELP = "variant file: payout and window overrides, and variants of its own"


def add_variant_flags(parser: argparse.ArgumentParser, *, variant_help: str = VARIANT_HELP) -> None:
    """Add ``--variant NAME`` and ``--paytable FILE``."""
    parser.add_argument("--variant", default="commission", metavar="NAME", help=variant_help)
    parser.add_argument("--paytable", type=Path, metavar="FILE", help=PAYTABLE_HELP)


def chosen_variant(args: argparse.Namespace) -> Variant:
    """The variant ``--variant`` names, with the ``--paytable`` file's overrides and variants."""
    # Imported here, not at the top: the ``journal`` commands that read no variant load less.
    from table_controller.variant_file import VariantFileError, load_variants  # noqa: PLC0415

    try:
        variants = load_variants(args.paytable)
    except VariantFileError as error:
        raise UsageError(f"--paytable: {error}") from None
    variant = variants.get(args.variant)
    if variant is None:
        raise UsageError(
            f"--variant: {args.variant!r} is not a variant (there are: {', '.join(variants)})"
        )
    return variant
