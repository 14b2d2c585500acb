# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The virtual shoe's command line: ``python -m simulators`` and ``table-controller shoe-sim``.

Edge module: reads flags and files, builds the shoe, runs it until ``quit``, SIGTERM or
Ctrl-C. Flags (docs/operations.md, ``shoe-sim``)::

    --decks N            decks in the shoe (default 8; not with --stack)
    --seed N             a reproducible shuffle (default: the system's cryptographic RNG)
    --stack FILE         the cards in this order instead of a shuffle
    --cut-depth N        the cut card comes out after N cards (default: 14 from the back)
    --protocol P         srp (default) or beetek
    --faults F           the --faults grammar (faults.py), or a scenario file *.toml
    --pty [LINK]         serve on a new pseudo-terminal (default); keep LINK pointing at it
    --listen HOST:PORT   serve on TCP, for socket://HOST:PORT
    --auto [--speed X]   deal automatically, following the lamp, X cards a second (default 1)

Without ``--auto`` the keyboard deals: Enter deals a card (``help`` lists the commands); a
script piped to standard input is read the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from simulators.virtual_shoe.beetek import BeeTekDevice
from simulators.virtual_shoe.dealer import auto_deal, run_commands, stdin_lines
from simulators.virtual_shoe.deck import Shoe, default_cut_depth
from simulators.virtual_shoe.device import ShoeDevice, ShoeSession
from simulators.virtual_shoe.faults import FaultPlan, FaultSyntaxError, parse_faults
from simulators.virtual_shoe.scenarios import Scenario, ScenarioError, parse_scenario
from simulators.virtual_shoe.server import (
    Port,
    PortUnusableError,
    PtyPort,
    TcpPort,
    VirtualShoe,
)
from simulators.virtual_shoe.shuffle import StackError, read_stack, secure_order, seeded_order

DEFAULT_DECKS: Final = 8
MAX_DECKS: Final = 16
PROTOCOLS: Final = ("srp", "beetek")
#: The signals that stop the shoe (the package imports nothing of the controller's helper).
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)


class SimulatorUsageError(ValueError):
    """A flag's value that argparse accepted but the shoe cannot use (exit status 2)."""


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low or (high is not None and value > high):
            limit = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {limit}, got {value}")
        return value

    return read


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1000:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 1000, got {text}")
    return value


def _host_port(text: str) -> tuple[str, int]:
    host, colon, port_text = text.rpartition(":")
    if not colon or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port_text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the shoe's flags to ``parser``."""
    parser.add_argument(
        "--decks", type=_whole(1, MAX_DECKS), help=f"decks in the shoe (default {DEFAULT_DECKS})"
    )
    order = parser.add_mutually_exclusive_group()
    order.add_argument(
        "--seed", type=_whole(0), help="a reproducible shuffle (default: cryptographic RNG)"
    )
    order.add_argument("--stack", type=Path, metavar="FILE", help="the cards in this order")
    parser.add_argument(
        "--cut-depth",
        type=_whole(0),
        metavar="N",
        help="the cut card comes out after N cards (default: 14 cards from the back)",
    )
    parser.add_argument("--protocol", choices=PROTOCOLS, default="srp", help="default: srp")
    parser.add_argument(
        "--faults",
        metavar="SPEC|FILE.toml",
        default="",
        help="faults, e.g. drop:card=5,unplug:card=9:seconds=3, or a scenario file",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--pty",
        nargs="?",
        const="",
        metavar="LINK",
        help="serve on a new pseudo-terminal (the default), also linked from LINK if given",
    )
    where.add_argument(
        "--listen", type=_host_port, metavar="HOST:PORT", help="serve on TCP (socket://HOST:PORT)"
    )
    parser.add_argument(
        "--auto", action="store_true", help="deal automatically, following the lamp"
    )
    parser.add_argument(
        "--speed", type=_speed, metavar="X", help="with --auto: X cards a second (default 1)"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeSettings:
    """Everything the flags ask for, checked."""

    cards: tuple[str, ...]
    cut_depth: int
    protocol: str
    scenario: Scenario
    link: Path | None
    listen: tuple[str, int] | None
    speed: float | None


def _scenario(text: str) -> Scenario:
    if text.endswith(".toml"):
        path = Path(text)
        try:
            return parse_scenario(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise SimulatorUsageError(f"--faults: cannot read {text!r}: {error}") from None
        except ScenarioError as error:
            raise SimulatorUsageError(f"--faults {text}: {error}") from None
    try:
        return Scenario(faults=parse_faults(text))
    except FaultSyntaxError as error:
        raise SimulatorUsageError(f"--faults: {error}") from None


def settings_from(args: argparse.Namespace) -> ShoeSettings:
    """Check the flags together and read the files they name.

    Raises:
        SimulatorUsageError: A combination or a file the shoe cannot use.
    """
    if args.speed is not None and not args.auto:
        raise SimulatorUsageError("--speed goes with --auto")
    if args.stack is not None:
        if args.decks is not None:
            raise SimulatorUsageError("--stack gives the cards; it cannot be combined with --decks")
        try:
            cards = read_stack(args.stack)
        except StackError as error:
            raise SimulatorUsageError(f"--stack: {error}") from None
    else:
        decks = args.decks or DEFAULT_DECKS
        cards = seeded_order(decks, args.seed) if args.seed is not None else secure_order(decks)
    cut_depth = default_cut_depth(len(cards)) if args.cut_depth is None else args.cut_depth
    if cut_depth > len(cards):
        raise SimulatorUsageError(f"--cut-depth {cut_depth}: the shoe holds {len(cards)} cards")
    return ShoeSettings(
        cards=cards,
        cut_depth=cut_depth,
        protocol=args.protocol,
        scenario=_scenario(args.faults),
        link=Path(args.pty) if args.pty else None,
        listen=args.listen,
        speed=(args.speed or 1.0) if args.auto else None,
    )


def build_shoe(settings: ShoeSettings, announce: Callable[[str], None]) -> VirtualShoe:
    """The shoe the settings describe, not yet started."""
    plan: FaultPlan = settings.scenario.faults
    session: ShoeSession
    if settings.protocol == "beetek":
        session = BeeTekDevice(style=settings.scenario.beetek, faults=plan)
    else:
        session = ShoeDevice(faults=plan)
    port: Port = (
        TcpPort(*settings.listen) if settings.listen is not None else PtyPort(link=settings.link)
    )
    return VirtualShoe(
        shoe=Shoe(cards=settings.cards, cut_depth=settings.cut_depth),
        session=session,
        port=port,
        faults=plan,
        announce=announce,
    )


async def serve(settings: ShoeSettings, announce: Callable[[str], None]) -> int:
    """Run the shoe until ``quit``, SIGINT (Ctrl-C) or SIGTERM; returns the exit status, 0.

    The loop's own handlers take both signals, so Ctrl-C stops a shoe started with SIGINT
    ignored too (a shell script's ``shoe-sim &``).
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    try:
        async with build_shoe(settings, announce) as shoe:
            if settings.scenario.faults.faults:
                announce(f"faults: {settings.scenario.faults.describe()}")
            async with asyncio.TaskGroup() as tasks:
                stopper = tasks.create_task(stop.wait(), name="shoe-sim stop")

                async def keyboard() -> None:
                    if await run_commands(shoe, stdin_lines(), announce):
                        stop.set()

                workers = [tasks.create_task(keyboard(), name="shoe-sim keyboard")]
                if settings.speed is not None:
                    workers.append(
                        tasks.create_task(
                            auto_deal(shoe, speed=settings.speed, announce=announce),
                            name="shoe-sim auto dealer",
                        )
                    )
                await stopper
                for worker in workers:
                    worker.cancel()
    finally:
        for signum in STOP_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signum)
    return 0


def run(args: argparse.Namespace, announce: Callable[[str], None] | None = None) -> int:
    """Run the shoe the flags describe.

    Raises:
        SimulatorUsageError: A flag's value the shoe cannot use, or a ``--pty`` link or
            ``--listen`` address it cannot serve on.
    """
    settings = settings_from(args)
    try:
        return asyncio.run(serve(settings, announce or _print))
    except PortUnusableError as error:
        flag = "--pty" if settings.listen is None else "--listen"
        raise SimulatorUsageError(f"{flag} {error}") from None


def _print(text: str) -> None:
    print(text, flush=True)
