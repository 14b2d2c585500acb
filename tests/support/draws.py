# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a virtual shoe dealt and what a driver delivered, in one form to compare them."""

from __future__ import annotations

from drivers.events import CardMisread, CardSeen, CutCardSeen, FramesLost, ReaderEvent
from simulators.virtual_shoe.faults import Dealt, DealtCard, DealtCutCard, DealtMisread

#: A draw: ``("card", code)``, ``("cut", None)``, ``("misread", None)`` or ``("lost", None)``.
Expected = tuple[str, str | None]


def expected_event(dealt: Dealt) -> Expected:
    """What the driver should deliver for a draw of the virtual shoe."""
    match dealt:
        case DealtCard(card=card):
            return ("card", card)
        case DealtCutCard():
            return ("cut", None)
        case DealtMisread():
            return ("misread", None)
    raise AssertionError(dealt)


def delivered_event(event: ReaderEvent) -> list[Expected]:
    """The draws a driver's event reports (a lost-frames event: one per frame lost)."""
    match event:
        case CardSeen(card=card):
            return [("card", card)]
        case CutCardSeen():
            return [("cut", None)]
        case CardMisread():
            return [("misread", None)]
        case FramesLost(count=count):
            return [("lost", None)] * count
    return []
