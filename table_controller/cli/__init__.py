# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ``table-controller`` console script: one sub-command per module of this package.

Each sub-command module declares a :class:`Subcommand` named ``SUBCOMMAND`` (after its handler,
which it names): its help, its description, the function adding its flags and its handler, which
takes the parsed arguments and returns the exit status. The sub-command is named after its module
(``shoe_sim``: ``shoe-sim``); adding one is a module of this package with its ``SUBCOMMAND``,
listed in ``SUBCOMMAND_MODULES``. A wrong flag or value stops with a one-line message naming it
and exit status 2 (docs/operations.md); an unknown flag after a sub-command's name prints that
sub-command's usage. A reader of standard output that goes away early (``... | head``) ends any
sub-command quietly, with status 1. Ctrl-C stops any sub-command, however it was started.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from table_controller import __version__

__all__ = ["main"]

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
    "staff",
    "watch",
    "ingest",
    "floor",
    "verify_install",
    "keys",
)
USAGE_ERROR = 2
#: Exit status when standard output's reader closed the pipe, as Python's own is on EPIPE.
CLOSED_PIPE = 1


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


def add_table_flags(parser: argparse.ArgumentParser) -> None:
    """``--betting-phase`` and ``--require-dealer``: how the table whose inputs are read ran.

    The same inputs through a procedure set up as the table's was give the same messages.
    """
    parser.add_argument(
        "--betting-phase",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="whether rounds have a betting period opened and closed by commands",
    )
    parser.add_argument(
        "--require-dealer",
        action="store_true",
        help="the table ran with require_dealer (nothing dealt while no dealer was signed in)",
    )
    parser.add_argument(
        "--confirm-results",
        action="store_true",
        help="the table ran with confirm_results (each result waited for confirm_result)",
    )


@dataclass(frozen=True)
class Subcommand:
    """What a sub-command's module declares; :func:`build_parser` adds the parser from it."""

    #: The one line ``table-controller --help`` shows beside the name.
    help: str
    #: The paragraph at the top of ``table-controller NAME --help``.
    description: str
    #: Adds the sub-command's flags (or its actions) to its parser.
    add_arguments: Callable[[argparse.ArgumentParser], None]
    #: Runs the sub-command with the parsed arguments and returns its exit status.
    handler: Handler
    #: The paragraph at the end of its ``--help``, if any.
    epilog: str | None = None


class UsageError(Exception):
    """A flag's value that argparse accepted but the sub-command refuses; exits with status 2."""


def require_extra(extra: str, modules: Sequence[str], install: str) -> None:
    """Check that the ``extra``'s ``modules`` are installed; one line naming the extra if not.

    Found, not imported: a module the sub-command may never need (alembic, for a database
    already at its newest schema) costs its start nothing.

    Raises:
        UsageError: a module of the extra is not installed; it says ``install``, how to.
    """
    for name in modules:
        if importlib.util.find_spec(name) is None:
            raise UsageError(f"needs the {extra} extra ({name} is not installed): {install}")


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
        subcommand: Subcommand = module.SUBCOMMAND
        subparser = subparsers.add_parser(
            name.replace("_", "-"),
            help=subcommand.help,
            description=subcommand.description,
            epilog=subcommand.epilog,
        )
        subcommand.add_arguments(subparser)
        # ``subparser``: whose usage an unknown flag prints
        subparser.set_defaults(handler=subcommand.handler, subparser=subparser)
    return parser


def _module_named(argv: Sequence[str]) -> str | None:
    """The module of the sub-command ``argv`` starts with, if it names one."""
    if not argv:
        return None
    name = argv[0].replace("-", "_")
    return name if name in SUBCOMMAND_MODULES else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command and return its exit status."""
    if argv is None:  # this process's own command line
        _take_ctrl_c()
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_module_named(arguments))
    args, unknown = parser.parse_known_args(arguments)
    if unknown:
        subparser: argparse.ArgumentParser = args.subparser
        subparser.error(f"unrecognized arguments: {' '.join(unknown)}")
    handler: Handler = args.handler
    try:
        status = handler(args)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at the interpreter's exit
    except UsageError as error:
        parser.exit(USAGE_ERROR, f"table-controller {args.subcommand}: error: {error}\n")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _closed_pipe()
    except BaseExceptionGroup as group:  # raised from a task group: a closed pipe inside
        if group.split(BrokenPipeError)[1] is not None:
            raise
        return _closed_pipe()
    return status


def _take_ctrl_c() -> None:
    """Ctrl-C raises ``KeyboardInterrupt`` again in a process started with SIGINT ignored.

    A shell script's background job (``cmd &``) starts so; the sub-commands that run until
    stopped then take SIGINT and SIGTERM themselves (``runtime/signals.py``).
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _closed_pipe() -> int:
    """Standard output's reader went away: stop quietly, as Python's documentation advises.

    What is still buffered for standard output would raise again when the interpreter flushes
    it on the way out, so standard output is pointed at the null device first.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return CLOSED_PIPE


if __name__ == "__main__":
    sys.exit(main())
