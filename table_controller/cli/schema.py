# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller schema``: write the AsyncAPI document and JSON Schemas of the MQTT API.

Edge module: writes the files :func:`~table_controller.contract.schema.asyncapi.generated_files`
returns, under ``--out`` (default ``docs/api``), or with ``--check`` only compares them with
what is there. No clock, no network: the same models always give the same bytes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from table_controller.cli import Subcommand, UsageError
from table_controller.contract import DEFAULT_TOPIC_PREFIX
from table_controller.contract.schema import generated_files

DEFAULT_OUT: Final = Path("docs/api")
#: ``--check`` found a file missing or different.
OUT_OF_DATE: Final = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``schema`` flags."""
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"directory to write to (default: {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--topic-prefix",
        default=DEFAULT_TOPIC_PREFIX,
        metavar="P",
        help=f"topics are <P>/<table_id>/... (default: {DEFAULT_TOPIC_PREFIX})",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a file under DIR is missing or differs",
    )


def run(args: argparse.Namespace) -> int:
    """Write (or check) every generated file; 0 when done or up to date."""
    prefix: str = args.topic_prefix
    if (
        not prefix
        or prefix.startswith("/")
        or prefix.endswith("/")
        or "+" in prefix
        or ("#" in prefix)
    ):
        raise UsageError(f"--topic-prefix: {prefix!r} is not a topic prefix such as a/b")
    out: Path = args.out
    files = generated_files(prefix=prefix)
    if args.check:
        stale = [name for name, text in files.items() if _read(out / name) != text]
        for name in stale:
            print(f"{out / name}: out of date", file=sys.stderr)
        if stale:
            print("run 'table-controller schema' to regenerate", file=sys.stderr)
            return OUT_OF_DATE
        print(f"{len(files)} files in {out} are up to date")
        return 0
    try:
        for name, text in files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"--out: cannot write {error.filename}: {error.strerror}") from None
    print(f"wrote {len(files)} files to {out}")
    return 0


SUBCOMMAND = Subcommand(
    help="write the JSON Schemas and the AsyncAPI document of the MQTT API",
    description=(
        "Write asyncapi.json (AsyncAPI 3.0) and one JSON Schema per payload "
        "(schemas/<name>.json), generated from the controller's own payload models."
    ),
    add_arguments=add_arguments,
    handler=run,
)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
