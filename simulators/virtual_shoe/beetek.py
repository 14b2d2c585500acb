# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The text-line profile of Bee-Tek style shoes (docs/shoe-protocol.md, "The text-line profile").

Pure: no I/O, no clock, no randomness, no logging. The line writers turn events into the
bytes such a shoe sends; ``BeeTekDevice`` is the same session shape as the SRP/1 device, so
the servers and dealers drive either.

What this profile cannot say, and what the simulator does about it:

* There is no sequence number and no acknowledgement: a line that is dropped or corrupted is
  gone, and a line written while the port is unplugged is lost, as on a real RS-232 line.
* There is no lamp and no heartbeat: ``lamp`` is None, and a stall only holds lines back.
* The spec gives no line for the cut card, the end of the shoe or a power cycle: the shoe
  writes nothing for them.
* A card the shoe cannot read is ` [Game]<Game> `; alarms and warnings are written only when
  asked for (``alarm``, ``warning``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from drivers.srp.constants import Lamp
from simulators.virtual_shoe.device import DeviceEvent
from simulators.virtual_shoe.faults import (
    Dealt,
    DealtCard,
    DealtMisread,
    FaultPlan,
    FrameFault,
    Line,
    apply_frame_faults,
)

GAME_TAG: Final = "[Game]"
BURN_TAG: Final = "[Manual Burn Cards]"
ALARM_TAG: Final = "[GameAlarm]"
CARD_NOT_READ: Final = ("E3", "Card Not Read")


@dataclass(frozen=True, slots=True, kw_only=True)
class BeeTekStyle:
    """How a firmware writes its lines.

    Attributes:
        ten: ``"T"`` or ``"10"`` for the rank ten.
        suit_first: ``<Card:S4>`` instead of ``<Card:4S>``.
        padded: A leading and a trailing space around the line, as most shoes send.
    """

    ten: Literal["T", "10"] = "T"
    suit_first: bool = False
    padded: bool = True


def _finish(text: str, style: BeeTekStyle) -> bytes:
    line = f" {text} " if style.padded else text
    return line.encode("ascii") + b"\r\n"


def card_token(code: str, style: BeeTekStyle) -> str:
    """How the firmware writes a card code such as ``TS``: ``TS``, ``10S``, ``ST`` or ``S10``."""
    rank, suit = code[0], code[1]
    if rank == "T":
        rank = style.ten
    return suit + rank if style.suit_first else rank + suit


def card_line(code: str, *, burn_mode: bool = False, style: BeeTekStyle | None = None) -> bytes:
    """A recognised card: `` [Game]<Card:4S> ``; in burn mode `` [Manual Burn Cards]<Card:4S> ``."""
    style = style or BeeTekStyle()
    tag = BURN_TAG if burn_mode else GAME_TAG
    return _finish(f"{tag}<Card:{card_token(code, style)}>", style)


def unreadable_line(style: BeeTekStyle | None = None) -> bytes:
    """A card left the shoe but could not be read: `` [Game]<Game> ``."""
    return _finish(f"{GAME_TAG}<Game>", style or BeeTekStyle())


def alarm_line(
    code: str = CARD_NOT_READ[0],
    text: str = CARD_NOT_READ[1],
    *,
    tagged: bool = False,
    style: BeeTekStyle | None = None,
) -> bytes:
    """An alarm: ``<Alarm:E3 Card Not Read>``, under the ``[GameAlarm]`` tag if ``tagged``."""
    tag = ALARM_TAG if tagged else ""
    return _finish(f"{tag}<Alarm:{code} {text}>", style or BeeTekStyle())


def warning_line(number: int, style: BeeTekStyle | None = None) -> bytes:
    """A warning: ``<W0x01>`` for number 1."""
    if not 0 <= number <= 0xFF:
        raise ValueError(f"warning number {number} outside 0-255")
    return _finish(f"<W0x{number:02X}>", style or BeeTekStyle())


class BeeTekDevice:
    """A Bee-Tek style shoe: one line per event, nothing read back.

    Args:
        style: How the firmware writes its lines.
        faults: The plan whose frame faults this device applies to the lines of the draws
            they name (a line is sent once: ``times`` beyond 1 changes nothing).
    """

    def __init__(
        self, *, style: BeeTekStyle | None = None, faults: FaultPlan | None = None
    ) -> None:
        self._style = style or BeeTekStyle()
        self._faults = faults or FaultPlan()
        self._line = Line()
        self._held: list[tuple[bytes, tuple[FrameFault, ...]]] = []
        self._connected = False
        self._muted_until: float | None = None
        self.burn_mode = False
        #: Lines written while the port was unplugged, and so lost.
        self.lines_lost = 0
        #: Bytes the host sent, which this profile ignores.
        self.bytes_ignored = 0

    @property
    def lamp(self) -> Lamp | None:
        """This profile has no lamp."""
        return None

    @property
    def awaiting_ack(self) -> bool:
        """Nothing is ever acknowledged in this profile."""
        return False

    def start(self, now: float) -> None:
        """Power up: this profile says nothing."""

    def power_cycle(self, now: float) -> None:  # noqa: ARG002 - the session interface
        """A restart: held lines and the line's contents are lost; burn mode is off."""
        self._held.clear()
        self._line.drop_held()
        self._muted_until = None
        self.burn_mode = False

    def port_opened(self, now: float) -> None:
        """The port was plugged in."""
        self._connected = True
        self._release_held(now)

    def port_closed(self, now: float) -> None:  # noqa: ARG002 - the session interface
        """The port was unplugged: bytes on the line are lost, and so is what is written."""
        self._connected = False
        self._line.cut()

    def stall(self, seconds: float, now: float) -> None:
        """Hold every line back for ``seconds``."""
        self._muted_until = max(self._muted_until or now, now + seconds)

    def emit(self, dealt: Dealt, now: float) -> None:
        """Write the line for what the dealer drew (nothing for the cut card or an empty shoe)."""
        match dealt:
            case DealtCard(number=number, card=card):
                line = card_line(card, burn_mode=self.burn_mode, style=self._style)
                self._write(line, self._faults.frame_faults(number), now)
            case DealtMisread(number=number):
                self._write(unreadable_line(self._style), self._faults.frame_faults(number), now)
            case _:
                return

    def alarm(self, now: float, *, tagged: bool = False) -> None:
        """Write the card-not-read alarm."""
        self._write(alarm_line(tagged=tagged, style=self._style), (), now)

    def warning(self, number: int, now: float) -> None:
        """Write warning ``number``."""
        self._write(warning_line(number, self._style), (), now)

    def receive_data(self, data: bytes, now: float) -> list[DeviceEvent]:  # noqa: ARG002
        """The host has nothing to say to this profile: the bytes are counted and ignored."""
        self.bytes_ignored += len(data)
        return []

    def data_to_send(self) -> bytes:
        """Bytes due on the line now."""
        return self._line.take()

    def deadline(self) -> float | None:
        """When a held or delayed line is next due."""
        times = [] if self._line.next_at is None else [self._line.next_at]
        if self._muted_until is not None:
            times.append(self._muted_until)
        return min(times) if times else None

    def on_deadline(self, now: float) -> list[DeviceEvent]:
        """Release the lines that are due."""
        self._line.release(now)
        if self._muted_until is not None and now >= self._muted_until:
            self._muted_until = None
            self._release_held(now)
        return []

    def _write(self, line: bytes, faults: tuple[FrameFault, ...], now: float) -> None:
        if self._muted_until is not None and now < self._muted_until:
            self._held.append((line, faults))
            return
        if not self._connected:
            self.lines_lost += 1
            return
        for chunk in apply_frame_faults(line, faults, transmission=0, now=now):
            self._line.put(chunk, now)

    def _release_held(self, now: float) -> None:
        held, self._held = self._held, []
        for line, faults in held:
            self._write(line, faults, now)
