# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The text-line shoe profile (Bee-Tek / USPC style; shoe-protocol.md, "The text-line profile").

Pure: no I/O, no clock, no randomness, no logging.

One event per line, ending CR LF, often padded with spaces; no checksum, sequence number or
acknowledgement. What this module accepts (field evidence, not a vendor document):

* ``[Game]<Card:4S>`` a card in dealing mode; ``[Manual Burn Cards]<Card:4S>`` in the shoe's
  burn mode. The rank may be ``T`` or ``10``; the suit may come first (``<Card:S4>``).
* ``[Game]<Game>`` a card the shoe could not read (also under the burn tag).
* ``<Alarm:E3 Card Not Read>``, also under ``[GameAlarm]``; ``<W0x01>``, ``<W0x02>`` ...
  warnings. Alarms and warnings are accepted with any known tag or none.

A card needs a mode tag: a card whose mode is unknown is rejected, not guessed. Any line that
does not match exactly is rejected with a reason and its bytes; it never becomes a card.
Blank lines are ignored. Two identical cards in a row are two cards: there is no ``seq``,
so nothing is ever dropped as a duplicate.
"""

from __future__ import annotations

import collections
import re
from typing import Final

from drivers.events import (
    CardMisread,
    CardSeen,
    Delivery,
    LineRejected,
    ReaderAlarm,
    ReaderEvent,
    ReaderOffline,
    ReaderOnline,
    ReaderWarning,
)
from drivers.srp.constants import RANKS, SUITS, Lamp

__all__ = [
    "BURN_TAG",
    "GAME_TAG",
    "MAX_LINE_BYTES",
    "TextLineSession",
    "TextRejectReason",
    "parse_line",
]

#: Tag of a card dealt in the shoe's normal (dealing) mode.
GAME_TAG: Final = "Game"
#: Tag of a card dealt in the shoe's burn mode.
BURN_TAG: Final = "Manual Burn Cards"
#: Tag some firmware puts before alarms.
ALARM_TAG: Final = "GameAlarm"
_KNOWN_TAGS: Final = frozenset({GAME_TAG, BURN_TAG, ALARM_TAG})
#: A longer line is rejected: the real ones are about 30 bytes.
MAX_LINE_BYTES: Final = 256

_LINE: Final = re.compile(r"(?:\[(?P<tag>[^\[\]<>]*)\])?\s*<(?P<body>[^<>]*)>")
_CARD: Final = re.compile(r"Card:(?P<value>.*)")
_ALARM: Final = re.compile(r"Alarm:(?P<code>[^\s:]+)(?:\s+(?P<text>.*))?")
_WARNING: Final = re.compile(r"W0x[0-9A-Fa-f]+")
_MISREAD_BODY: Final = "Game"


class TextRejectReason:
    """Why a text line was rejected."""

    #: Bytes outside printable ASCII.
    NOT_TEXT: Final = "not_text"
    #: More than ``MAX_LINE_BYTES`` before the LF.
    TOO_LONG: Final = "too_long"
    #: Not ``[tag]<body>`` or a body this profile does not know.
    UNPARSEABLE: Final = "unparseable"
    #: A ``[tag]`` this profile does not know.
    UNKNOWN_TAG: Final = "unknown_tag"
    #: ``<Card:...>`` whose value is not a rank and a suit in either order.
    BAD_CARD: Final = "bad_card"
    #: A card or misread without the ``[Game]`` / ``[Manual Burn Cards]`` tag.
    NO_MODE: Final = "no_mode"


def _card_text(value: str) -> str | None:
    """``4S``, ``S4``, ``10S``, ``S10``, ``TS`` -> rank-then-suit text, or None."""
    value = value.replace("10", "T") if len(value) == 3 else value
    if len(value) != 2:
        return None
    first, second = value[0], value[1]
    if first in RANKS and second in SUITS:
        return first + second
    if first in SUITS and second in RANKS:
        return second + first
    return None


def parse_line(line: bytes) -> ReaderEvent | None:  # noqa: PLR0911 - one return per line kind
    """Parse one line, without its LF.

    Args:
        line: The line's bytes; CR and surrounding spaces are allowed.

    Returns:
        The event the line reports, ``LineRejected`` if it cannot be parsed, or None for a
        blank line. Never raises.
    """
    if len(line) > MAX_LINE_BYTES:
        return LineRejected(reason=TextRejectReason.TOO_LONG, raw=line[:MAX_LINE_BYTES])
    if any(byte > 0x7E or (byte < 0x20 and byte not in b"\t\r") for byte in line):
        return LineRejected(reason=TextRejectReason.NOT_TEXT, raw=line)
    text = line.decode("ascii").strip()
    if not text:
        return None
    matched = _LINE.fullmatch(text)
    if matched is None:
        return LineRejected(reason=TextRejectReason.UNPARSEABLE, raw=line)
    tag, body = matched["tag"], matched["body"]
    if tag is not None and tag not in _KNOWN_TAGS:
        return LineRejected(reason=TextRejectReason.UNKNOWN_TAG, raw=line)
    card = _CARD.fullmatch(body)
    if card is not None or body == _MISREAD_BODY:
        return _card_event(tag, card, line)
    alarm = _ALARM.fullmatch(body)
    if alarm is not None:
        return ReaderAlarm(code=alarm["code"], text=alarm["text"] or "")
    if _WARNING.fullmatch(body):
        return ReaderWarning(code=body)
    return LineRejected(reason=TextRejectReason.UNPARSEABLE, raw=line)


def _card_event(tag: str | None, card: re.Match[str] | None, line: bytes) -> ReaderEvent:
    """A card or misread line, once its tag says the mode."""
    if tag not in (GAME_TAG, BURN_TAG):
        return LineRejected(reason=TextRejectReason.NO_MODE, raw=line)
    if card is None:
        return CardMisread()
    text = _card_text(card["value"])
    if text is None:
        return LineRejected(reason=TextRejectReason.BAD_CARD, raw=line)
    return CardSeen(card=text, burn_mode=tag == BURN_TAG)


class TextLineSession:
    """The text-line profile in the same shape as ``HostSession``.

    The profile has no acknowledgement, lamp or heartbeat: ``confirm`` and ``set_lamp`` do
    nothing, nothing is ever sent, and there is no deadline (a quiet shoe is normal between
    hands, so silence cannot mean offline). The reader counts as online once its port is
    open, and offline when the port is lost.

    Attributes:
        rejected: How many lines were rejected, by reason.
    """

    def __init__(self) -> None:
        self.rejected: collections.Counter[str] = collections.Counter()
        self._line = bytearray()
        self._overlong = False
        self._online: bool | None = None

    @property
    def online(self) -> bool | None:
        """Whether the port is open; None before the first attempt."""
        return self._online

    @property
    def silent(self) -> bool:
        """Always False: this profile cannot tell a silent shoe from an idle one."""
        return False

    def connection_made(self, now: float) -> list[ReaderEvent]:  # noqa: ARG002
        """The port is open: the reader counts as online."""
        if self._online is True:
            return []
        self._online = True
        return [ReaderOnline()]

    def connection_lost(self, now: float, reason: str) -> list[ReaderEvent]:  # noqa: ARG002
        """The port closed, failed or could not be opened; a partial line is rejected."""
        events: list[ReaderEvent] = []
        if self._line:
            events.append(self._count(LineRejected(reason="truncated", raw=bytes(self._line))))
        self._line.clear()
        self._overlong = False
        if self._online is not False:
            self._online = False
            events.append(ReaderOffline(reason=reason))
        return events

    def receive_data(self, data: bytes, now: float) -> list[ReaderEvent]:  # noqa: ARG002
        """Bytes from the shoe, split anywhere; returns the events of the lines they complete."""
        events: list[ReaderEvent] = []
        start = 0
        while start < len(data):
            newline = data.find(b"\n", start)
            end = len(data) if newline < 0 else newline
            if not self._overlong:
                self._line += data[start:end]
                if len(self._line) > MAX_LINE_BYTES:
                    events.append(self._count(parse_line(bytes(self._line))))
                    self._line.clear()
                    self._overlong = True
            if newline < 0:
                break
            if self._overlong:
                self._overlong = False
            else:
                event = parse_line(bytes(self._line))
                if event is not None:
                    events.append(self._count(event))
                self._line.clear()
            start = newline + 1
        return events

    def confirm(self, delivery: Delivery | None) -> None:
        """Nothing to acknowledge in this profile."""

    def set_lamp(self, lamp: Lamp) -> None:
        """This profile has no lamp: the request is dropped."""

    def data_to_send(self) -> bytes:
        """Nothing is ever sent to a text-line shoe."""
        return b""

    def deadline(self) -> float | None:
        """No liveness deadline: a text-line shoe sends no heartbeat."""
        return None

    def on_deadline(self, now: float) -> list[ReaderEvent]:  # noqa: ARG002
        """Never due."""
        return []

    def _count(self, event: ReaderEvent | None) -> ReaderEvent:
        assert event is not None
        if isinstance(event, LineRejected):
            self.rejected[event.reason] += 1
        return event
