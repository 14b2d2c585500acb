# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a shoe reader tells the controller, whatever protocol it speaks.

Pure: no I/O, no clock, no randomness. Never imports ``table_controller``: card text is
checked here against the spec's ranks ``A23456789TJQK`` and suits ``SHDC``.

Events that the reader must have acknowledged (a card, the cut card, a misread, a hello)
carry a ``Delivery`` handle. The caller records the event durably, then passes the handle to
``ShoeReader.confirm``; only then does the acknowledgement go to the shoe. Profiles without
acknowledgements (Bee-Tek text lines) deliver ``delivery=None``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from drivers.srp.constants import RANKS, SUITS, Lamp, ShoeState

__all__ = [
    "CardMisread",
    "CardSeen",
    "CutCardSeen",
    "Delivery",
    "FramesLost",
    "Lamp",
    "LineRejected",
    "ReaderAlarm",
    "ReaderEvent",
    "ReaderHello",
    "ReaderOffline",
    "ReaderOnline",
    "ReaderStatus",
    "ReaderWarning",
    "ShoeState",
    "is_card_text",
]


def is_card_text(text: str) -> bool:
    """Whether ``text`` is a card as the spec writes it: a rank then a suit, e.g. ``QH``."""
    return len(text) == 2 and text[0] in RANKS and text[1] in SUITS


@dataclass(frozen=True, slots=True, kw_only=True)
class Delivery:
    """The handle of one event that the shoe needs acknowledged.

    Attributes:
        epoch: The reader session's epoch (a new one starts at each ``HELLO``): an
            acknowledgement from an earlier epoch is never sent, since the shoe restarted its
            ``seq`` and the number would name another frame.
        seq: The frame's ``seq``.
    """

    epoch: int
    seq: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardSeen:
    """A card left the shoe and was recognised.

    Attributes:
        card: Rank then suit, e.g. ``"TH"`` (ten written ``T``).
        burn_mode: True when the shoe itself was in its burn mode (Bee-Tek
            ``[Manual Burn Cards]``); SRP/1 has no such mode and always says False.
        delivery: The handle to confirm once recorded, or None if nothing is acknowledged.
    """

    card: str
    burn_mode: bool = False
    delivery: Delivery | None = None

    def __post_init__(self) -> None:
        if not is_card_text(self.card):
            raise ValueError(f"{self.card!r} is not a card")


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCardSeen:
    """The cut (blue) card left the shoe."""

    delivery: Delivery | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CardMisread:
    """A card left the shoe but was not recognised."""

    delivery: Delivery | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderHello:
    """The shoe powered up or reconnected (SRP/1 ``HELLO``); a new epoch starts."""

    model: str
    firmware: str
    serial: str
    delivery: Delivery | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderStatus:
    """The shoe's condition changed (SRP/1 ``STATUS``).

    Attributes:
        state: ``READY``, ``EMPTY`` or ``FAULT``.
        code: The fault code for ``FAULT``, otherwise None.
    """

    state: ShoeState
    code: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderAlarm:
    """The shoe raised an alarm (Bee-Tek ``<Alarm:E3 Card Not Read>``)."""

    code: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderWarning:
    """The shoe raised a warning (Bee-Tek ``<W0x01>``); ``code`` is as written, ``W0x01``."""

    code: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FramesLost:
    """The ``seq`` jumped: frames were lost. The controller must hold, never guess a card.

    Attributes:
        expected_seq: The ``seq`` that should have come next.
        received_seq: The ``seq`` that came instead.
        count: How many frames are missing (modulo 65536).
    """

    expected_seq: int
    received_seq: int
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class LineRejected:
    """Bytes from the reader that were dropped, never acted on.

    Attributes:
        reason: Why, e.g. ``bad_checksum`` or ``unknown_tag``.
        raw: The offending bytes (at most the first few hundred).
    """

    reason: str
    raw: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderOffline:
    """The reader is gone: the port closed or failed, or the reader fell silent.

    Attributes:
        reason: A short human-readable cause, for logs and the technician.
    """

    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderOnline:
    """The reader is heard again (or for the first time)."""


ReaderEvent: TypeAlias = (
    CardSeen
    | CutCardSeen
    | CardMisread
    | ReaderHello
    | ReaderStatus
    | ReaderAlarm
    | ReaderWarning
    | FramesLost
    | LineRejected
    | ReaderOffline
    | ReaderOnline
)
