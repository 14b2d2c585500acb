# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who draws from the virtual shoe: a person at the keyboard, a script, or an automatic dealer.

Two halves. Pure: the command language (``parse_command``), the automatic dealer's rule
(``should_deal``) and the words for a draw (``describe``). Adapter: ``run_commands``
carries out lines typed at the keyboard or read from a script, ``auto_deal`` follows the
host's lamp, ``stdin_lines`` reads standard input without blocking the loop.

The commands, one a line (``#`` starts a comment)::

    (empty line) | deal [N]   deal the next card (or N cards)
    wait SECONDS              pause a script
    unplug [SECONDS]          pull the cable (and plug it back in SECONDS later)
    plug                      plug the cable back in
    power-cycle               switch the shoe off and on (HELLO)
    stall [SECONDS]           the shoe says nothing for SECONDS (default 4)
    burn on | burn off        Bee-Tek only: the shoe's burn mode
    alarm | warning N         Bee-Tek only: write the card-not-read alarm, warning N
    status                    show the lamp, the draws and the cards left
    help                      list the commands
    quit                      stop the shoe

The automatic dealer deals the next card ``1/speed`` seconds after the shoe is ready: the
host has acknowledged everything, the port is plugged in, and the lamp is ``PLAYER`` or
``BANKER`` (on ``STAND``, ``HOLD`` or ``OFF`` it waits). A Bee-Tek shoe has no lamp: it
deals on, at that pace, until the shoe is empty.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TextIO, TypeAlias

from drivers.srp.constants import Lamp
from simulators.virtual_shoe.beetek import BeeTekDevice
from simulators.virtual_shoe.faults import (
    Dealt,
    DealtCard,
    DealtCutCard,
    DealtMisread,
    ShoeRanOut,
)

if TYPE_CHECKING:
    from simulators.virtual_shoe.server import VirtualShoe

#: Lamps that ask for a card.
DEALING_LAMPS: Final = frozenset({Lamp.PLAYER, Lamp.BANKER})
DEFAULT_STALL_S: Final = 4.0
HELP: Final = (
    "commands: <Enter> | deal [N], wait S, unplug [S], plug, power-cycle, stall [S], "
    "burn on|off, alarm, warning N, status, help, quit"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal:
    """Deal ``count`` cards."""

    count: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Wait:
    """Pause for ``seconds``."""

    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PullCable:
    """Unplug; plug back in after ``seconds`` if given."""

    seconds: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PlugCable:
    """Plug back in."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CyclePower:
    """Switch off and on."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Stall:
    """Say nothing for ``seconds``."""

    seconds: float = DEFAULT_STALL_S


@dataclass(frozen=True, slots=True, kw_only=True)
class SetBurnMode:
    """Bee-Tek burn mode on or off."""

    on: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class RaiseAlarm:
    """Bee-Tek card-not-read alarm."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RaiseWarning:
    """Bee-Tek warning ``number``."""

    number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ShowStatus:
    """Show the shoe's state."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ShowHelp:
    """List the commands."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Quit:
    """Stop the shoe."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandError:
    """A line that is not a command; ``message`` says why."""

    message: str


Command: TypeAlias = (
    Deal
    | Wait
    | PullCable
    | PlugCable
    | CyclePower
    | Stall
    | SetBurnMode
    | RaiseAlarm
    | RaiseWarning
    | ShowStatus
    | ShowHelp
    | Quit
)


_WITHOUT_ARGUMENT: Final[dict[str, Command]] = {
    "deal": Deal(),
    "d": Deal(),
    "unplug": PullCable(),
    "plug": PlugCable(),
    "replug": PlugCable(),
    "power-cycle": CyclePower(),
    "stall": Stall(),
    "alarm": RaiseAlarm(),
    "status": ShowStatus(),
    "help": ShowHelp(),
    "?": ShowHelp(),
    "quit": Quit(),
    "exit": Quit(),
}
_WITH_SECONDS: Final[dict[str, Callable[[float], Command]]] = {
    "wait": lambda seconds: Wait(seconds=seconds),
    "unplug": lambda seconds: PullCable(seconds=seconds),
    "stall": lambda seconds: Stall(seconds=seconds),
}
_WITH_COUNT: Final[dict[str, tuple[int, Callable[[int], Command]]]] = {
    "deal": (1000, lambda count: Deal(count=count)),
    "d": (1000, lambda count: Deal(count=count)),
    "warning": (0xFF, lambda number: RaiseWarning(number=number)),
}
_BURN: Final = {"on": SetBurnMode(on=True), "off": SetBurnMode(on=False)}


def parse_command(line: str) -> Command | CommandError | None:  # noqa: PLR0911
    """Read one command line: an empty line deals a card, a line with only a comment is None.

    Returns:
        The command, a ``CommandError`` for a line that is not one, or None for a comment.
    """
    text = line.split("#", 1)[0].strip().lower()
    if not text:
        return None if "#" in line else Deal()
    word, *rest = text.split()
    if not rest and word in _WITHOUT_ARGUMENT:
        return _WITHOUT_ARGUMENT[word]
    if len(rest) != 1:
        return CommandError(message=f"not a command: {line.strip()!r} ({HELP})")
    argument = rest[0]
    if word == "burn" and argument in _BURN:
        return _BURN[argument]
    if word in _WITH_SECONDS:
        try:
            seconds = float(argument)
        except ValueError:
            seconds = -1.0
        if not 0 < seconds < 3600:  # also refuses nan
            return CommandError(message=f"{word} SECONDS: more than 0 and less than 3600")
        return _WITH_SECONDS[word](seconds)
    if word in _WITH_COUNT:
        most, make = _WITH_COUNT[word]
        if not argument.isdigit() or not 1 <= int(argument) <= most:
            return CommandError(message=f"{word} N: N from 1 to {most}")
        return make(int(argument))
    return CommandError(message=f"not a command: {line.strip()!r} ({HELP})")


def should_deal(*, lamp: Lamp | None, awaiting_ack: bool, plugged: bool) -> bool:
    """The automatic dealer's rule: deal when the host asks for a card and has caught up.

    Args:
        lamp: The lamp the host lit last; None for a shoe without one (Bee-Tek).
        awaiting_ack: Whether a frame still waits for the host.
        plugged: Whether the port is plugged in.
    """
    if awaiting_ack or not plugged:
        return False
    return lamp is None or lamp in DEALING_LAMPS


def describe(dealt: Dealt) -> str:
    """A draw in words, for the person running the shoe."""
    match dealt:
        case DealtCard(number=number, card=card, foreign=True):
            return f"draw {number}: {card} (a foreign card)"
        case DealtCard(number=number, card=card):
            return f"draw {number}: {card}"
        case DealtCutCard(number=number):
            return f"draw {number}: the cut card"
        case DealtMisread(number=number, actual=actual):
            return f"draw {number}: misread (it was {actual})"
        case ShoeRanOut():
            return "the shoe is empty"


# --- adapter half ---------------------------------------------------------------------------


class _Stop(Exception):  # noqa: N818 - a signal between two functions, not an error
    pass


def _status(shoe: VirtualShoe) -> str:
    lamp = shoe.lamp.value if shoe.lamp is not None else "none"
    return (
        f"lamp {lamp}, {shoe.draws} drawn, {shoe.shoe.remaining} cards left, "
        f"{'plugged in' if shoe.plugged else 'unplugged'}, "
        f"{'waiting for the host' if shoe.awaiting_ack else 'nothing waiting'}"
    )


async def _execute(  # noqa: C901, PLR0912 - one case per command
    shoe: VirtualShoe, command: Command, announce: Callable[[str], None]
) -> None:
    beetek = shoe.session if isinstance(shoe.session, BeeTekDevice) else None
    now = asyncio.get_running_loop().time()
    match command:
        case Deal(count=count):
            for _ in range(count):
                dealt = shoe.deal()
                announce(describe(dealt))
                if isinstance(dealt, ShoeRanOut):
                    break
        case Wait(seconds=seconds):
            await asyncio.sleep(seconds)
        case PullCable(seconds=seconds):
            shoe.unplug(seconds)
        case PlugCable():
            shoe.plug_in()
        case CyclePower():
            shoe.power_cycle()
        case Stall(seconds=seconds):
            shoe.stall(seconds)
        case SetBurnMode() | RaiseAlarm() | RaiseWarning() if beetek is None:
            announce("only a Bee-Tek shoe (--protocol beetek) has burn mode, alarms, warnings")
        case SetBurnMode(on=on):
            assert beetek is not None
            beetek.burn_mode = on
            announce(f"burn mode {'on' if on else 'off'}")
        case RaiseAlarm():
            assert beetek is not None
            beetek.alarm(now)
        case RaiseWarning(number=number):
            assert beetek is not None
            beetek.warning(number, now)
        case ShowStatus():
            announce(_status(shoe))
        case ShowHelp():
            announce(HELP)
        case Quit():
            raise _Stop


async def run_commands(
    shoe: VirtualShoe, lines: AsyncIterator[str], announce: Callable[[str], None]
) -> bool:
    """Carry out command lines from the keyboard or a script, until they end or say quit.

    Returns:
        True if a line said ``quit``; False when the lines ran out.
    """
    async for line in lines:
        command = parse_command(line)
        if command is None:
            continue
        if isinstance(command, CommandError):
            announce(command.message)
            continue
        try:
            await _execute(shoe, command, announce)
        except _Stop:
            return True
    return False


async def auto_deal(shoe: VirtualShoe, *, speed: float, announce: Callable[[str], None]) -> None:
    """Deal whenever the host asks for a card, ``1/speed`` seconds later; stop when empty."""
    interval = 1.0 / speed
    while True:
        while not should_deal(lamp=shoe.lamp, awaiting_ack=shoe.awaiting_ack, plugged=shoe.plugged):
            await shoe.changed()
        await asyncio.sleep(interval)
        if not should_deal(lamp=shoe.lamp, awaiting_ack=shoe.awaiting_ack, plugged=shoe.plugged):
            continue
        dealt = shoe.deal()
        announce(describe(dealt))
        if isinstance(dealt, ShoeRanOut):
            return


async def stdin_lines(stream: TextIO | None = None) -> AsyncIterator[str]:
    """Lines of standard input (a keyboard, a pipe or a file), read on a daemon thread.

    A daemon thread, because a blocked read cannot be cancelled and must not hold up the
    process's exit.
    """
    source = stream if stream is not None else sys.stdin
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def read() -> None:
        try:
            for line in source:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            loop.call_soon_threadsafe(queue.put_nowait, None)
        except RuntimeError:
            return  # the loop closed while a line was being read: nobody is listening

    threading.Thread(target=read, name="shoe-sim stdin", daemon=True).start()
    while (line := await queue.get()) is not None:
        yield line
