# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Faults on demand: what goes wrong, at which draw, and what that does to the bytes.

Pure: no I/O, no clock, no randomness. The plan is data; ``resolve_draw`` says what leaves the
shoe at a draw, and ``apply_frame_faults`` says which bytes reach the line, and when, for one
transmission of a frame. Devices and servers carry these decisions out.

Every fault is aimed at a draw: ``card=N`` is the N-th thing the dealer takes out of the
shoe, counting from 1 (cards, the cut card, misread cards and foreign cards all count).

The ``--faults`` grammar (also written back by ``FaultPlan.describe``)::

    FAULTS := FAULT ("," FAULT)*
    FAULT  := KIND (":" NAME "=" VALUE)*

==============  =================================  ==========================================
kind            parameters (default)               effect
==============  =================================  ==========================================
``drop``        ``card``, ``times`` (1)            the first ``times`` transmissions of the
                                                   draw's frame never reach the line
                                                   (``times=all``: every one, the frame is lost)
``corrupt``     ``card``, ``times`` (1)            one bit flipped in the body: bad checksum
``split``       ``card``, ``parts`` (2),           the frame reaches the line in ``parts``
                ``gap`` (0.05 s), ``times`` (1)    pieces, ``gap`` seconds apart
``delay``       ``card``, ``seconds`` (0.5),       the frame (and, the line being first in
                ``times`` (1)                      first out, what follows it) arrives late
``misread``     ``card``                           the card leaves the shoe unrecognised
``foreign``     ``card``, ``code`` (AS)            a card not in the shoe is dealt at that draw
``stall``       ``card``, ``seconds`` (4.0)        before the draw the shoe falls silent: no
                                                   heartbeat, its frames wait in its queue
``power-cycle`` ``card``                           before the draw the shoe restarts: ``HELLO``
``unplug``      ``card``, ``seconds`` (2.0)        before the draw the port closes; it is
                                                   plugged back in ``seconds`` later
==============  =================================  ==========================================

Example: ``drop:card=5,corrupt:card=9:times=2,unplug:card=14:seconds=3.5``.
"""

from __future__ import annotations

import collections
import enum
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Final, TypeAlias

from drivers.srp.constants import MAX_RESENDS
from simulators.virtual_shoe.deck import CardDrawn, CutCardDrawn, Shoe, normalise_card_code

#: ``times=all``: the first transmission and every resend.
ALL_TRANSMISSIONS: Final = MAX_RESENDS + 1


class FaultSyntaxError(ValueError):
    """A fault description that cannot be read; the message names the offending part."""


class FaultKind(enum.StrEnum):
    """The kinds of fault, as written in ``--faults`` and scenario files."""

    DROP = "drop"
    CORRUPT = "corrupt"
    SPLIT = "split"
    DELAY = "delay"
    MISREAD = "misread"
    FOREIGN = "foreign"
    STALL = "stall"
    POWER_CYCLE = "power-cycle"
    UNPLUG = "unplug"


@dataclass(frozen=True, slots=True, kw_only=True)
class DropFrame:
    """The first ``times`` transmissions of draw ``card``'s frame never reach the line."""

    card: int
    times: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class CorruptFrame:
    """The first ``times`` transmissions of draw ``card``'s frame have one bit flipped."""

    card: int
    times: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class SplitFrame:
    """Draw ``card``'s frame reaches the line in ``parts`` pieces, ``gap`` seconds apart."""

    card: int
    parts: int = 2
    gap: float = 0.05
    times: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class DelayFrame:
    """Draw ``card``'s frame reaches the line ``seconds`` late."""

    card: int
    seconds: float = 0.5
    times: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class MisreadCard:
    """Draw ``card`` leaves the shoe but is not recognised."""

    card: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ForeignCard:
    """At draw ``card`` a card that was not in the shoe, ``code``, is dealt."""

    card: int
    code: str = "AS"


@dataclass(frozen=True, slots=True, kw_only=True)
class StallHeartbeats:
    """Before draw ``card`` the shoe sends nothing, heartbeats included, for ``seconds``."""

    card: int
    seconds: float = 4.0


@dataclass(frozen=True, slots=True, kw_only=True)
class PowerCycle:
    """Before draw ``card`` the shoe restarts and says ``HELLO``."""

    card: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Unplug:
    """Before draw ``card`` the port closes, and opens again ``seconds`` later."""

    card: int
    seconds: float = 2.0


FrameFault: TypeAlias = DropFrame | CorruptFrame | SplitFrame | DelayFrame
LinkFault: TypeAlias = StallHeartbeats | PowerCycle | Unplug
Fault: TypeAlias = FrameFault | MisreadCard | ForeignCard | LinkFault

_CLASS_OF_KIND: Final[dict[FaultKind, type[Fault]]] = {
    FaultKind.DROP: DropFrame,
    FaultKind.CORRUPT: CorruptFrame,
    FaultKind.SPLIT: SplitFrame,
    FaultKind.DELAY: DelayFrame,
    FaultKind.MISREAD: MisreadCard,
    FaultKind.FOREIGN: ForeignCard,
    FaultKind.STALL: StallHeartbeats,
    FaultKind.POWER_CYCLE: PowerCycle,
    FaultKind.UNPLUG: Unplug,
}
_KIND_OF_CLASS: Final = {cls: kind for kind, cls in _CLASS_OF_KIND.items()}


def kind_of(fault: Fault) -> FaultKind:
    """The kind a fault is written as."""
    return _KIND_OF_CLASS[type(fault)]


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultPlan:
    """The faults of one run, each aimed at a draw."""

    faults: tuple[Fault, ...] = ()

    def frame_faults(self, card: int) -> tuple[FrameFault, ...]:
        """The faults applied to the transmissions of draw ``card``'s frame."""
        return tuple(
            f
            for f in self.faults
            if isinstance(f, DropFrame | CorruptFrame | SplitFrame | DelayFrame) and f.card == card
        )

    def link_faults(self, card: int) -> tuple[LinkFault, ...]:
        """The faults that strike just before draw ``card``, in the order given."""
        return tuple(
            f
            for f in self.faults
            if isinstance(f, StallHeartbeats | PowerCycle | Unplug) and f.card == card
        )

    def is_misread(self, card: int) -> bool:
        """Whether draw ``card`` leaves the shoe unrecognised."""
        return any(isinstance(f, MisreadCard) and f.card == card for f in self.faults)

    def foreign_card(self, card: int) -> str | None:
        """The foreign card dealt at draw ``card``, if any."""
        return next(
            (f.code for f in self.faults if isinstance(f, ForeignCard) and f.card == card), None
        )

    def describe(self) -> str:
        """The plan in the ``--faults`` grammar (``parse_faults`` reads it back)."""
        return ",".join(_describe_one(f) for f in self.faults)


# --- what leaves the shoe ---------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class DealtCard:
    """Draw ``number`` was a card, recognised; ``foreign`` if it was not from this shoe."""

    number: int
    card: str
    foreign: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class DealtCutCard:
    """Draw ``number`` was the cut card."""

    number: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DealtMisread:
    """Draw ``number`` was ``actual``, which the shoe did not recognise."""

    number: int
    actual: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeRanOut:
    """The dealer tried to draw from an empty shoe."""


#: Something that left the shoe.
Drawn: TypeAlias = DealtCard | DealtCutCard | DealtMisread
Dealt: TypeAlias = Drawn | ShoeRanOut


def resolve_draw(plan: FaultPlan, shoe: Shoe, number: int) -> Dealt:
    """What leaves the shoe at draw ``number``, faults applied; draws from ``shoe``.

    A foreign card takes the draw's place, so the shoe's own next card stays in the shoe.
    A misread aimed at the cut card does nothing.
    """
    foreign = plan.foreign_card(number)
    if foreign is not None:
        return DealtCard(number=number, card=foreign, foreign=True)
    match shoe.draw():
        case CardDrawn(card=card):
            if plan.is_misread(number):
                return DealtMisread(number=number, actual=card)
            return DealtCard(number=number, card=card)
        case CutCardDrawn():
            return DealtCutCard(number=number)
    return ShoeRanOut()


# --- what reaches the line --------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class WireChunk:
    """Bytes that reach the line at time ``at`` (not before what was queued ahead of them)."""

    at: float
    data: bytes


class Line:
    """The device's end of the wire: bytes due now, and pieces held back until their time.

    Nothing overtakes a piece still held back: a piece due earlier than the last one waiting
    goes out with it (first in, first out).
    """

    def __init__(self) -> None:
        self._due = bytearray()
        self._later: collections.deque[WireChunk] = collections.deque()

    @property
    def next_at(self) -> float | None:
        """When the first held-back piece is due; None if none waits."""
        return self._later[0].at if self._later else None

    def put(self, chunk: WireChunk, now: float) -> None:
        """Send ``chunk``: at once if it is due and nothing waits ahead of it, else later."""
        if self._later:
            self._later.append(WireChunk(at=max(chunk.at, self._later[-1].at), data=chunk.data))
        elif chunk.at <= now:
            self._due += chunk.data
        else:
            self._later.append(chunk)

    def release(self, now: float) -> None:
        """Move the held-back pieces due by ``now`` to the bytes due."""
        while self._later and self._later[0].at <= now:
            self._due += self._later.popleft().data

    def take(self) -> bytes:
        """The bytes due, which leave the device."""
        data = bytes(self._due)
        self._due.clear()
        return data

    def drop_held(self) -> None:
        """Lose the pieces still held back (a restart)."""
        self._later.clear()

    def cut(self) -> None:
        """Lose everything on the wire (unplugged)."""
        self._due.clear()
        self._later.clear()


def corrupt_bytes(raw: bytes) -> bytes:
    """``raw`` with the lowest bit of one byte flipped, where the receiver must notice.

    In an SRP/1 frame the byte flipped is the last one before ``*``: an XOR checksum always
    catches a single changed byte, so the frame is rejected, never read as another frame. A
    text line has no checksum, so the flipped byte is the first of its ``<...>`` tag
    (``<Card:4S>`` becomes ``<Bard:4S>``): a flip in the card itself could spell another card.
    """
    if not raw:
        return raw
    star, angle = raw.find(b"*"), raw.find(b"<")
    if star > 1:
        index = star - 1
    elif 0 <= angle < len(raw) - 1:
        index = angle + 1
    else:
        index = len(raw) // 2
    return raw[:index] + bytes([raw[index] ^ 0x01]) + raw[index + 1 :]


def apply_frame_faults(
    raw: bytes, faults: Sequence[FrameFault], *, transmission: int, now: float
) -> tuple[WireChunk, ...]:
    """The bytes of one transmission of a frame, as they reach the line.

    Args:
        raw: The encoded frame (or text line).
        faults: The frame faults aimed at the frame's draw.
        transmission: 0 for the first transmission, 1 for the first resend, and so on.
        now: When the device transmits.

    Returns:
        The pieces to put on the line, in order; empty if the transmission is dropped.
    """
    active = [f for f in faults if transmission < f.times]
    if any(isinstance(f, DropFrame) for f in active):
        return ()
    data = raw
    at = now
    parts, gap = 1, 0.0
    for fault in active:
        match fault:
            case CorruptFrame():
                data = corrupt_bytes(data)
            case DelayFrame(seconds=seconds):
                at += seconds
            case SplitFrame(parts=count, gap=pause):
                parts, gap = count, pause
    return tuple(
        WireChunk(at=at + index * gap, data=piece)
        for index, piece in enumerate(_split(data, parts))
    )


def _split(data: bytes, parts: int) -> list[bytes]:
    """``data`` in ``parts`` non-empty pieces of nearly equal length (fewer if it is short)."""
    count = max(1, min(parts, len(data)))
    bounds = [len(data) * index // count for index in range(count + 1)]
    return [data[start:stop] for start, stop in itertools.pairwise(bounds)]


# --- the --faults grammar ---------------------------------------------------------------


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError("must be 1 or more")
    return value


def _times(text: str) -> int:
    if text == "all":
        return ALL_TRANSMISSIONS
    value = _positive_int(text)
    if value > ALL_TRANSMISSIONS:
        raise ValueError(f"a frame is transmitted at most {ALL_TRANSMISSIONS} times")
    return value


def _parts(text: str) -> int:
    value = int(text)
    if value < 2:
        raise ValueError("must be 2 or more")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < 3600:  # also refuses nan and inf
        raise ValueError("must be more than 0 and less than 3600 seconds")
    return value


def _gap(text: str) -> float:
    value = float(text)
    if not 0 <= value < 60:
        raise ValueError("must be 0 or more and less than 60 seconds")
    return value


def _card_code(text: str) -> str:
    code = normalise_card_code(text)
    if code is None:
        raise ValueError("is not a card (e.g. QH, TD, 10S)")
    return code


_PARAMETER_READERS: Final[dict[str, Callable[[str], object]]] = {
    "card": _positive_int,
    "times": _times,
    "parts": _parts,
    "gap": _gap,
    "seconds": _seconds,
    "code": _card_code,
}


def _describe_value(name: str, value: object) -> str:
    if name == "times" and value == ALL_TRANSMISSIONS:
        return "all"
    return str(value)


def _describe_one(fault: Fault) -> str:
    params = ":".join(
        f"{field.name}={_describe_value(field.name, getattr(fault, field.name))}"
        for field in fields(fault)
    )
    return f"{kind_of(fault)}:{params}"


def make_fault(kind_text: str, params: dict[str, str]) -> Fault:
    """One fault from its kind and its parameters, each still text.

    Raises:
        FaultSyntaxError: An unknown kind or parameter, a missing ``card``, a bad value.
    """
    if kind_text not in FaultKind.__members__.values():
        known = ", ".join(FaultKind)
        raise FaultSyntaxError(f"unknown fault kind {kind_text!r} (known: {known})")
    cls = _CLASS_OF_KIND[FaultKind(kind_text)]
    allowed = {field.name for field in fields(cls)}
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise FaultSyntaxError(
            f"{kind_text}: unknown parameter {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})"
        )
    if "card" not in params:
        raise FaultSyntaxError(f"{kind_text}: says at which draw with card=N")
    values: dict[str, object] = {}
    for name, text in params.items():
        try:
            values[name] = _PARAMETER_READERS[name](text)
        except ValueError as error:
            raise FaultSyntaxError(f"{kind_text}: {name}={text!r} {error}") from error
    return cls(**values)  # type: ignore[arg-type]


def parse_faults(text: str) -> FaultPlan:
    """Read the ``--faults`` grammar (see the module docstring); an empty text is no fault.

    Raises:
        FaultSyntaxError: The first part that cannot be read, named in the message.
    """
    faults: list[Fault] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        kind_text, *param_texts = (piece.strip() for piece in item.split(":"))
        params: dict[str, str] = {}
        for param in param_texts:
            name, equals, value = param.partition("=")
            if not equals or not name or not value:
                raise FaultSyntaxError(f"{item!r}: {param!r} is not NAME=VALUE")
            if name in params:
                raise FaultSyntaxError(f"{item!r}: {name} given twice")
            params[name] = value
        faults.append(make_fault(kind_text.lower(), params))
    return FaultPlan(faults=tuple(faults))
