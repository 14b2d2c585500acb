# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller shoe-sim``: the virtual shoe on a pseudo-terminal or TCP port.

Edge module: the flags and the shoe live in ``simulators.virtual_shoe.cli`` (shared with
``python -m simulators``); this module declares them as a sub-command.
"""

from __future__ import annotations

import argparse

from simulators.virtual_shoe.cli import SimulatorUsageError, add_arguments
from simulators.virtual_shoe.cli import run as run_shoe
from table_controller.cli import Subcommand, UsageError


def run(args: argparse.Namespace) -> int:
    """Serve the shoe until quit, SIGTERM or Ctrl-C."""
    try:
        return run_shoe(args)
    except SimulatorUsageError as error:
        raise UsageError(str(error)) from None


SUBCOMMAND = Subcommand(
    help="the virtual shoe: serves a shoe on a pseudo-terminal or TCP port",
    description=(
        "A virtual card shoe speaking SRP/1 or the Bee-Tek profile, with faults on demand. "
        "Enter deals a card; type help for the other commands."
    ),
    add_arguments=add_arguments,
    handler=run,
)
