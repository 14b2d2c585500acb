# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ``table-controller`` console script: one sub-command per module of this package.

Each sub-command module has ``register(subparsers)``, which adds its parser and sets
``handler`` to a function taking the parsed arguments and returning the exit status. A wrong
flag or value stops with a one-line message naming it and exit status 2 (spec/cli.md).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import TypeAlias

from table_controller import __version__

Handler: TypeAlias = Callable[[argparse.Namespace], int]
#: Sub-command modules, in the order ``--help`` lists them.
SUBCOMMAND_MODULES = (
    "run",
    "demo",
    "odds",
    "reader",
    "journal",
    "replay",
    "schema",
    "shoe_sim",
    "watch",
)
USAGE_ERROR = 2


def whole_number(low: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number of at least ``low``, refused in one line otherwise."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        return value

    return read


class UsageError(Exception):
    """A flag's value that argparse accepted but the sub-command refuses; exits with status 2."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of ``only`` that one (its module alone is imported).

    Importing one sub-command's module instead of all of them keeps ``table-controller run``
    from loading the web, MQTT-contract and demo code it may not use, so it starts sooner.
    """
    parser = argparse.ArgumentParser(
        prog="table-controller",
        description="Baccarat table controller: shoe link, rules, procedures, results and odds.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", required=True)
    for name in SUBCOMMAND_MODULES if only is None else (only,):
        module = importlib.import_module(f"table_controller.cli.{name}")
        module.register(subparsers)
    return parser


def _module_named(argv: Sequence[str]) -> str | None:
    """The module of the sub-command ``argv`` starts with, if it names one."""
    if not argv:
        return None
    name = argv[0].replace("-", "_")
    return name if name in SUBCOMMAND_MODULES else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command and return its exit status."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_module_named(arguments))
    args = parser.parse_args(arguments)
    handler: Handler = args.handler
    try:
        return handler(args)
    except UsageError as error:
        parser.exit(USAGE_ERROR, f"table-controller {args.subcommand}: error: {error}\n")
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
