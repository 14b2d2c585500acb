# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The shape of a recall: the ``recall`` reply's ``rounds`` and ``between_rounds`` as types.

Pure: no I/O. :class:`RecalledRound` and :class:`RecallStep` are JSON data as they are (what
``history/recall.py`` builds, and the reply's schema in ``docs/api``); :class:`RecallReply`
is the ``commands/replies`` payload that carries them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Literal, NotRequired, TypedDict

from annotated_types import Interval

from table_controller.contract.payloads.base import ABSENT, Absent
from table_controller.contract.payloads.controller import CommandReply

StepKind = Literal[
    "card", "prompt", "command", "betting_opened", "betting_closed", "result", "void",
    "correction", "alarm", "shoe_started", "last_round", "shoe_ended", "shoe_voided", "staff",
    "dispute_opened", "dispute_resolved",
]  # fmt: skip
#: Where a card went: a hand, the burn, or no hand at all.
CardPosition = Literal["player", "banker", "burn", "discard"]
#: Read by the shoe, or entered by a supervisor (``manual_card``).
CardSource = Literal["shoe", "manual"]
RoundStatus = Literal["in_play", "settled", "voided"]


class RecalledHand(TypedDict):
    """One hand of a result: its cards in dealing order and its total."""

    cards: list[str]
    total: Annotated[int, Interval(ge=0, le=9)]


class RecallStep(TypedDict):
    """One step of a round, with the journal row (``seq``) and time that caused it.

    ``kind`` says which of the other fields it has: ``card`` (``card``, ``position``,
    ``source``, ``supervisor`` for a manual card, ``reason`` for a discard), ``prompt``
    (``action``, ``count``, ``reason``), ``command`` (``command``, ``id``, ``operator``,
    ``supervisor``, ``args``, ``ok``, ``error``, ``message``), ``result`` and ``correction``
    (``winner``, ``player``, ``banker``, ``natural``, ``correction_no``, ``operator``,
    ``supervisor``), ``void`` (``reason``, ``cards``, ``was_settled``, ``operator``,
    ``supervisor``), ``alarm`` (``code``, ``message``, ``card``), ``staff`` (``staff_id``,
    ``action``, ``dealer``, ``supervisor``), the shoe's events (``shoe_id``, ``reason``,
    ``cards``), ``dispute_opened`` / ``dispute_resolved`` (``dispute_id``, ``reason``,
    ``round_ids``, ``supervisor``, ``outcome``) and ``betting_opened`` / ``betting_closed``.
    """

    #: The journal row of the input that caused the step.
    seq: int
    #: That row's UTC time stamp.
    ts: str | None
    kind: StepKind
    #: A card's code (``null``: unread).
    card: NotRequired[str | None]
    position: NotRequired[CardPosition]
    source: NotRequired[CardSource]
    #: A prompt's action, or a staff change's ``sign_in`` / ``sign_out``.
    action: NotRequired[str]
    #: A burn prompt's count.
    count: NotRequired[int]
    #: Why: a hold prompt's reason, a void's reason, the alarm that discarded a card, why a
    #: shoe ended, or when the cut card came out (``last_round``).
    reason: NotRequired[str]
    command: NotRequired[str]
    #: A command's id.
    id: NotRequired[str]
    operator: NotRequired[str | None]
    #: The supervisor who authorised a command, entered a card, corrected or voided.
    supervisor: NotRequired[str | None]
    #: A command's arguments as the procedure took them (a ``sign_in``: never its PIN).
    args: NotRequired[dict[str, object]]
    ok: NotRequired[bool]
    #: A refused command's code.
    error: NotRequired[str]
    #: A refusal's or an alarm's text.
    message: NotRequired[str]
    code: NotRequired[str]
    winner: NotRequired[str]
    player: NotRequired[RecalledHand]
    banker: NotRequired[RecalledHand]
    natural: NotRequired[bool]
    #: A result's: the round was the shoe's last.
    last_round: NotRequired[bool]
    correction_no: NotRequired[int]
    #: A void's cards, a burn's, or the cards a voided shoe discarded (``null``: unread).
    cards: NotRequired[list[str | None]]
    was_settled: NotRequired[bool]
    shoe_id: NotRequired[str]
    staff_id: NotRequired[str]
    dealer: NotRequired[str | None]
    dispute_id: NotRequired[str]
    #: The rounds a dispute names.
    round_ids: NotRequired[list[str]]
    #: How a dispute ended.
    outcome: NotRequired[str]


class RecalledRound(TypedDict):
    """One round with every step, in order."""

    round_id: str
    shoe_id: str
    round_no: int
    #: The dealer signed in when the round started (``null``: none).
    dealer: str | None
    #: ``voided`` once voided, even after its result; ``settled`` with its result (corrected
    #: or not); ``in_play`` before either.
    status: RoundStatus
    steps: list[RecallStep]


class Recall(TypedDict):
    """What ``recall`` answers: the last rounds, and the steps since the last one ended."""

    rounds: list[RecalledRound]
    #: Steps after the last round ended: they go to the next round when it starts.
    between_rounds: list[RecallStep]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallReply(CommandReply):
    """``commands/replies``: the answer to one command, and to ``recall`` the rounds recalled."""

    #: ``recall``: the last rounds asked for, oldest first, each with every step.
    rounds: Sequence[RecalledRound] | Absent = field(default=ABSENT, hash=False)
    #: ``recall``: the steps since the last round ended (they go to the next round).
    between_rounds: Sequence[RecallStep] | Absent = field(default=ABSENT, hash=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class EdgeReply(RecallReply):
    """``commands/replies`` with what the edge answers itself: recall's rounds, resend's counts."""

    #: ``resend``: how many messages were published again (each acknowledged by the broker).
    resent: int | Absent = ABSENT
    #: ``resend``: the ``seq`` of the range the table no longer holds (pruned), ascending.
    gone: Sequence[int] | Absent = field(default=ABSENT, hash=False)
    #: ``resend``: the highest ``seq`` given when the range was read; those above it were not
    #: given yet, and are neither resent nor gone.
    last_seq: int | Absent = ABSENT
