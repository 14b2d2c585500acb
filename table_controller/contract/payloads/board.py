# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the boards show besides the state, all retained: roads, next round's odds, game pace.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from table_controller.contract.codes import EventType
from table_controller.contract.payloads.base import (
    ABSENT,
    Absent,
    BetId,
    Count,
    Payload,
    RoadMark,
    RoundNo,
)
from table_controller.rules import BeadPayload, BigRoadCellPayload, StatsPayload


@dataclass(frozen=True, slots=True, kw_only=True)
class AskMarks:
    """The mark each derived road would get after the asked result (``None``: none yet)."""

    big_eye_boy: RoadMark | None
    small_road: RoadMark | None
    cockroach_pig: RoadMark | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Roads(Payload):
    """``roads`` (retained): the scoreboards of the current shoe, as logical columns."""

    TYPE: ClassVar = EventType.ROADS
    RETAINED: ClassVar = True
    shoe_id: str
    bead_plate: Sequence[BeadPayload] = field(hash=False)
    big_road: Sequence[Sequence[BigRoadCellPayload]] = field(hash=False)
    big_eye_boy: Sequence[Sequence[RoadMark]] = field(hash=False)
    small_road: Sequence[Sequence[RoadMark]] = field(hash=False)
    cockroach_pig: Sequence[Sequence[RoadMark]] = field(hash=False)
    ask_banker: AskMarks
    ask_player: AskMarks
    stats: StatsPayload = field(hash=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class BetOdds:
    """One bet's exact value for the next round, as JSON numbers."""

    #: Expected net result per unit staked.
    ev: float
    #: ``-ev``.
    house_edge: float
    #: ``1 + ev``.
    rtp: float
    #: The probability of each verdict: a tier, ``push``, ``lose``.
    probabilities: Mapping[str, float] = field(hash=False)
    #: Whether the bet is offered on that round.
    offered: bool | Absent = ABSENT


@dataclass(frozen=True, slots=True, kw_only=True)
class Odds(Payload):
    """``odds`` (retained): exact probabilities and house edge of every bet, next round."""

    TYPE: ClassVar = EventType.ODDS
    RETAINED: ClassVar = True
    shoe_id: str
    #: The round the odds are for.
    round_no: RoundNo
    cards_left: Count
    bets: Mapping[BetId, BetOdds] = field(hash=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class PaceFigures:
    """Game pace over one span: a shoe, a dealer's stint or the last hour.

    Times come from the journal's time stamps of the inputs, so a replay gives the same figures.
    """

    #: When the span began (UTC).
    since: str
    #: Rounds settled in the span.
    rounds: Count
    #: ``rounds`` per hour of the span (``None`` before a second has passed).
    rounds_per_hour: float | None
    #: Median time from betting closed (or the first card, without a betting phase) to the
    #: result.
    median_round_seconds: float | None
    #: Median time from a round's end to the next round's betting (or first card), in one shoe.
    median_between_rounds_seconds: float | None
    voids: Count
    misdeals: Count
    exposed_cards: Count
    misreads: Count
    unnecessary_cards: Count
    #: Time the table stood held.
    hold_seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Stats(Payload):
    """``stats`` (retained): game pace for the shoe, the dealer's stint and the last hour."""

    TYPE: ClassVar = EventType.STATS
    RETAINED: ClassVar = True
    shoe_id: str | None
    dealer: str | None
    #: The current shoe (``None`` before the first).
    shoe: PaceFigures | None
    #: The signed-in dealer's stint (``None`` with no dealer signed in).
    stint: PaceFigures | None
    last_hour: PaceFigures
