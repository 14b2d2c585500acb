# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The payloads the pit watches: alarms and their acknowledgements, disputes, staff in and out.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, ClassVar, TypedDict

from annotated_types import Ge

from table_controller.contract.codes import AlarmCode, EventType
from table_controller.contract.payloads.base import (
    ABSENT,
    FLATTEN,
    Absent,
    BetId,
    CardOrUnread,
    OneOf,
    Payload,
    RoundId,
    RoundNo,
)


class AlarmFindings(TypedDict, total=False):
    """The findings an alarm's ``details`` may carry that every integrator can rely on."""

    #: ``edge_positive``: the bet.
    bet: BetId
    #: ``edge_positive``: the bet's exact house edge for the next round.
    house_edge: float


@dataclass(frozen=True, slots=True, kw_only=True)
class AlarmRaised(Payload):
    """``events/alarm``: something for the pit to look at, with a message a person can read.

    It stays open until a supervisor acknowledges it (:class:`AlarmAcknowledged`).
    """

    TYPE: ClassVar = EventType.ALARM
    shoe_id: str | Absent = ABSENT
    round_no: RoundNo | Absent = ABSENT
    round_id: RoundId | Absent = ABSENT
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: ``<table_id>-A000001``, ``-A000002`` … in the order the table raised its alarms: what
    #: ``acknowledge_alarm`` names.
    alarm_id: str
    code: AlarmCode
    message: str
    #: The card concerned (``None``: unread).
    card: CardOrUnread | Absent = ABSENT
    #: ``foreign_card``: how many times that card has now been seen.
    seen: Annotated[int, Ge(1)] | Absent = ABSENT
    #: ``lost_frames``, ``lost_frames_left_over``: how many frames were lost.
    count: Annotated[int, Ge(1)] | Absent = ABSENT
    #: An analysis's own findings (the bet and its edge, a shuffle's evidence): the fields
    #: :class:`AlarmFindings` names, and for some alarms more.
    details: Annotated[Mapping[str, object], AlarmFindings] = field(
        default_factory=dict, hash=False, metadata=FLATTEN
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class AlarmAcknowledged(Payload):
    """``events/alarm_acknowledged``: a supervisor acknowledged an open alarm; it is closed."""

    TYPE: ClassVar = EventType.ALARM_ACKNOWLEDGED
    #: The alarm's ``alarm_id``, as its ``alarm`` event gave it.
    alarm_id: str
    #: The alarm's code, as raised.
    code: AlarmCode
    #: The supervisor's words, if any (``None``: none).
    comment: str | None
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: The supervisor who acknowledged it.
    supervisor: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class DisputeOpened(Payload):
    """``events/dispute_opened``: a supervisor disputes rounds; the table holds until resolved.

    The core names the rounds; the edge adds what it holds: the rounds' ``recall``, the
    journal's ``head`` hash at the dispute (the hash of the dispute's own journal row, which
    chains every row before it) and the ``seal`` over both.
    """

    TYPE: ClassVar = EventType.DISPUTE_OPENED
    dispute_id: str
    reason: str
    round_ids: tuple[RoundId, ...]
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: The supervisor who opened it.
    supervisor: str | None
    #: The disputed rounds with every step (the ``recall`` command's rounds), in order.
    recall: tuple[Mapping[str, object], ...] | Absent = field(default=ABSENT, hash=False)
    #: SHA-256 hex of the dispute's own journal row (``hash`` of journal-format.md).
    journal_head: str | Absent = ABSENT
    #: SHA-256 hex of the canonical JSON of ``{"dispute_id", "recall", "journal_head"}``.
    seal: str | Absent = ABSENT


@dataclass(frozen=True, slots=True, kw_only=True)
class DisputeResolved(Payload):
    """``events/dispute_resolved``: the open dispute ended with its outcome; the hold clears."""

    TYPE: ClassVar = EventType.DISPUTE_RESOLVED
    dispute_id: str
    reason: str
    round_ids: tuple[RoundId, ...]
    outcome: str
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: The supervisor who resolved it.
    supervisor: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffChanged(Payload):
    """``events/staff_changed``: a dealer or a supervisor signed in or out."""

    TYPE: ClassVar = EventType.STAFF_CHANGED
    #: The dealer signed in now (``None``: none).
    dealer: str | None
    #: The dealer signed in before this change (the same as ``dealer`` when a supervisor
    #: signed in or out).
    previous_dealer: str | None
    #: The supervisor signed in at the table now (``None``: none).
    supervisor: str | None
    #: Who signed in or out, and how.
    staff_id: str
    action: Annotated[str, OneOf(("sign_in", "sign_out"))]
