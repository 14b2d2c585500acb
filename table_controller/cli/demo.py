# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller demo``: a whole table on one machine, with no hardware.

Edge module: reads the flags (the settings shared with ``run``, docs/operations.md, and the demo's
own ``--speed``, ``--rounds``, ``--seed``), checks them, and runs
:func:`table_controller.demo.runner.run_demo`: an embedded MQTT broker, mosquitto (unless
``--broker`` or the ``broker`` setting names one), the virtual shoe on a pseudo-terminal with
an automatic dealer, ``table-controller run``, its dealer display (the URL is printed), an
automatic pit that opens and closes betting and starts every shoe over MQTT, and a console
view of the results as the backend receives them. Ctrl-C or SIGTERM stops it all, as does the end of
``--rounds``; the exit status is then 0.

The demo decides the reader's settings itself (the shoe is its pseudo-terminal, SRP/1, a
betting phase the pit opens and closes): ``--port``, ``--protocol``, ``--card-source`` and
``--no-betting-phase`` are refused. Its own defaults are flags, and so win over the
environment and the file: the table id ``DEMO`` and a temporary journal. A demo whose settings
and variant file give no stake limits gives its table some (``demo_limits``), so that the
players' board shows them.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import socket
from typing import Final

from table_controller.cli import Subcommand, UsageError, whole_number
from table_controller.cli.settings_flags import add_settings_flags
from table_controller.demo import (
    MOSQUITTO_MISSING,
    DemoSettings,
    demo_limits,
    find_mosquitto,
    run_demo,
)
from table_controller.rules import Reshuffle
from table_controller.runtime import Settings, SettingsError, load_settings
from table_controller.variant_file import VariantFileError, load_bet_limits, load_variants

DEFAULT_TABLE_ID: Final = "DEMO"
MAX_SPEED: Final = 1000.0
#: Settings of ``run`` the demo fixes itself, with what it says when one is given.
FIXED_SETTINGS: Final = {
    "port": "--port: the demo's shoe is its own pseudo-terminal",
    "protocol": "--protocol: the demo's virtual shoe speaks SRP/1",
    "card_source": "--card-source: the demo deals from its virtual shoe",
}
#: Flags given to the demo that go on to ``table-controller run`` as they are.
PASSED_ON: Final = {
    "config": "--config",
    "baud": "--baud",
    "paytable": "--paytable",
    "events_log": "--events-log",
    "log_format": "--log-format",
    "log_level": "--log-level",
    "metrics": "--metrics",
}
#: A placeholder port for checking the settings before the pseudo-terminal exists.
_PORT_TO_COME: Final = "demo-pseudo-terminal"


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SPEED):
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_SPEED:g}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``demo`` flags."""
    add_settings_flags(parser)
    parser.set_defaults(table_id=DEFAULT_TABLE_ID)
    parser.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        metavar="X",
        help="scales every pause of the dealer and the pit (default 1: live; 2: twice as fast)",
    )
    parser.add_argument(
        "--rounds", type=whole_number(1), metavar="N", help="stop after N settled rounds"
    )
    parser.add_argument(
        "--seed",
        type=whole_number(0),
        metavar="N",
        help="reproducible shuffles (default: the system's cryptographic RNG)",
    )


def demo_settings(args: argparse.Namespace) -> DemoSettings:
    """The demo's settings from the flags, the environment and ``--config``.

    Raises:
        UsageError: A setting the demo cannot use; the message names it.
    """
    for name, message in FIXED_SETTINGS.items():
        if getattr(args, name, None) is not None:
            raise UsageError(message)
    if args.betting_phase is False:
        raise UsageError("--no-betting-phase: the demo's pit opens and closes betting")
    flags = {name: getattr(args, name, None) for name in Settings.model_fields}
    flags |= {"port": _PORT_TO_COME, "protocol": "srp", "card_source": "reader"}
    flags["betting_phase"] = True
    try:
        settings = load_settings(flags, args.config)
    except SettingsError as error:
        raise UsageError(str(error)) from None
    try:
        variant = load_variants(settings.paytable)[settings.variant]
        configured = bool(settings.limits or load_bet_limits(settings.paytable).get(variant.name))
    except VariantFileError as error:
        raise UsageError(f"paytable: {error}") from None
    if settings.broker is None and find_mosquitto() is None:
        raise UsageError(MOSQUITTO_MISSING)
    run_env = {}
    if args.display_pin is not None:  # on to the table by the environment, not its argv
        run_env = {**os.environ, "TABLE_CONTROLLER_DISPLAY_PIN": args.display_pin}
    passed_on: list[str] = []
    for name, flag in PASSED_ON.items():
        value = getattr(args, name, None)
        if value is not None:
            passed_on += [flag, str(value)]
    return DemoSettings(
        table_id=settings.table_id,
        variant=variant.name,
        decks=variant.decks,
        reshuffle_every_round=variant.reshuffle is Reshuffle.EVERY_ROUND,
        topic_prefix=settings.topic_prefix,
        broker_url=settings.broker,
        mqtt_protocol=settings.mqtt_protocol,
        ca_file=settings.mqtt_ca_file,
        cert_file=settings.mqtt_cert_file,
        key_file=settings.mqtt_key_file,
        display=settings.display_address,
        journal=settings.journal,
        speed=args.speed,
        rounds=args.rounds,
        seed=args.seed,
        run_flags=tuple(passed_on),
        run_env=run_env,
        limits={} if configured else demo_limits(variant.bet_ids),
    )


def check_display_free(address: tuple[str, int] | None) -> None:
    """Refuse a display address another program listens on, before anything starts.

    Raises:
        UsageError: The address cannot be bound now.
    """
    if address is None:
        return
    host, port = address
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise UsageError(
                f"--display {host}:{port}: {error.strerror}; choose another with"
                " --display HOST:PORT"
            ) from None


def run(args: argparse.Namespace) -> int:
    """Run the demo until its rounds were played, Ctrl-C or SIGTERM."""
    settings = demo_settings(args)
    check_display_free(settings.display)
    return asyncio.run(run_demo(settings))


SUBCOMMAND = Subcommand(
    help="a whole table on one machine, with no hardware",
    description=(
        "Run a whole table on this machine: an embedded MQTT broker, mosquitto (unless --broker), "
        "the virtual shoe on a pseudo-terminal with an automatic dealer, the table "
        "service and its dealer display, an automatic pit that opens and closes betting "
        "and starts each shoe, and the results as a backend receives them. Ctrl-C stops."
    ),
    epilog=(
        "The demo's defaults: table id DEMO, a temporary journal (removed at the end), "
        "mosquitto on a free port of 127.0.0.1 (unless --broker), the "
        "display on 127.0.0.1:8080, and stake limits unless the configuration gives some "
        "(player and banker 10-5000, tie 5-1000, each side bet 5-500, in the table's "
        "currency). The shoe is the demo's own: --port, --protocol, --card-source and "
        "--no-betting-phase are refused."
    ),
    add_arguments=add_arguments,
    handler=run,
)
