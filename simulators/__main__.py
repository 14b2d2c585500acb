# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``python -m simulators``: the virtual card shoe, with the flags of ``table-controller shoe-sim``.

Edge module: parses flags and runs the shoe (``simulators.virtual_shoe.cli``). A wrong flag or
value stops with a one-line message naming it and exit status 2. Never imports
table_controller.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from simulators.virtual_shoe.cli import SimulatorUsageError, add_arguments, run

USAGE_ERROR = 2


class _OneLineParser(argparse.ArgumentParser):
    """Reports a wrong flag in one line, without the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the virtual shoe; returns the exit status."""
    parser = _OneLineParser(
        prog="python -m simulators",
        description="A virtual card shoe speaking SRP/1 or the Bee-Tek text profile.",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except SimulatorUsageError as error:
        parser.error(str(error))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
