# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The settings flags of ``run`` and ``demo``, and the settings ``run`` reads with them.

A flag left out is ``None`` and defers to the environment (``TABLE_CONTROLLER_*``) and the TOML
file; the order of precedence and the checks are those of ``runtime/config.py``. A setting that
is refused stops the command with one line naming it (:class:`UsageError`, exit status 2).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from table_controller.cli import UsageError
from table_controller.rules import VARIANTS
from table_controller.runtime import (
    Settings,
    SettingsError,
    load_settings,
    unknown_variables,
)


def add_settings_flags(parser: argparse.ArgumentParser) -> None:
    """The settings shared by ``run`` and ``demo``; a flag left out defers to env and file."""
    parser.add_argument("--config", type=Path, metavar="FILE", help="TOML settings file")
    parser.add_argument("--table-id", metavar="ID", help="the table's id (topics, client id)")
    parser.add_argument(
        "--variant",
        metavar="NAME",
        help=f"{', '.join(VARIANTS)}, or a variant the paytable (variant file) composes",
    )
    parser.add_argument("--port", help="shoe reader: device path or socket://host:port")
    parser.add_argument("--protocol", help="srp or beetek")
    parser.add_argument("--baud", type=int, help="serial speed (default 9600)")
    parser.add_argument("--journal", type=Path, metavar="FILE", help="the durable journal")
    parser.add_argument(
        "--broker", metavar="URL", help="mqtt://[user:pass@]host[:port] or mqtts://"
    )
    parser.add_argument("--topic-prefix", metavar="P", help="topics are <P>/<table_id>/...")
    parser.add_argument("--display", metavar="HOST:PORT", help="dealer display address, or off")
    parser.add_argument(
        "--display-pin",
        metavar="PIN",
        help="PIN for supervisor commands on the display (prefer the environment or the file)",
    )
    parser.add_argument(
        "--betting-phase",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="rounds have a betting period opened and closed by commands (default on); "
        "without one, a virtual table deals each round on the deal command",
    )
    parser.add_argument("--card-source", help="reader or rng")
    parser.add_argument(
        "--paytable",
        type=Path,
        metavar="FILE",
        help="variant file: payout and window overrides, and variants of its own",
    )
    parser.add_argument(
        "--events-log", type=Path, metavar="FILE", help="JSON-lines copy of every message"
    )
    parser.add_argument("--log-format", help="json (default) or console")
    parser.add_argument("--log-level", help="debug, info (default), warning or error")
    parser.add_argument(
        "--metrics", metavar="HOST:PORT", help="serve /health and /metrics there, or off (default)"
    )


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the parsed flags, the environment and ``--config``.

    A ``TABLE_CONTROLLER_*`` variable that names no setting gets one warning line on stderr.
    """
    names = tuple(Settings.model_fields)
    for warning in unknown_variables(os.environ):
        print(f"table-controller {args.subcommand}: warning: {warning}", file=sys.stderr)
    try:
        return load_settings({name: getattr(args, name, None) for name in names}, args.config)
    except SettingsError as error:
        raise UsageError(str(error)) from None
