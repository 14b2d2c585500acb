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
    "run", "demo", "odds", "reader", "journal", "replay", "schema", "shoe_sim", "watch"
)
USAGE_ERROR = 2


class UsageError(Exception):
    """A flag's value that argparse accepted but the sub-command refuses; exits with status 2."""


def build_parser() -> argparse.ArgumentParser:
    """The parser of every registered sub-command."""
    parser = argparse.ArgumentParser(
        prog="table-controller",
        description="Baccarat table controller: shoe link, rules, procedures, results and odds.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="subcommand", metavar="SUBCOMMAND", required=True)
    for name in SUBCOMMAND_MODULES:
        module = importlib.import_module(f"table_controller.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except UsageError as error:
        parser.exit(USAGE_ERROR, f"table-controller {args.subcommand}: error: {error}\n")
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
