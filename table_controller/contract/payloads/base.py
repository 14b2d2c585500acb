# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What every published payload is made of: :class:`Payload`, :data:`ABSENT`, shared field types.

Pure: no I/O, no clock, no randomness. The payloads themselves, one frozen type each, are the
contract's single source: a round's events and result (:mod:`.round`), a shoe's (:mod:`.shoe`),
the pit's alarms, disputes and staff changes (:mod:`.pit`), the table's state and limits
(:mod:`.state`), the boards' roads, odds and pace (:mod:`.board`), the controller's status and
command replies (:mod:`.controller`) and a recall's or resend's reply (:mod:`.replies`);
``PAYLOAD_TYPES`` (``contract/schema/models.py``) names each by the ``type`` it is published
with. The procedure builds them; the contract puts the envelope on them and turns them into
JSON (``contract/envelope.py``), and generates the JSON Schemas and the AsyncAPI document
from them (``contract/schema/models.py``, ``contract/schema/asyncapi.py``). A field added to a
payload is published, described and validated with no other edit.

Fields are written in the order they are published. Values keep the core's own types (cards,
enums, exact ``Fraction`` settlements); ``None`` is published as ``null``, and a field whose
value is :data:`ABSENT` is left out of the message (``count`` of a prompt that has none).

What an integrator may rely on beyond the type is said beside it: bounds as ``annotated_types``
metadata (``Annotated[int, Ge(1)]``, free at run time), a closed set of strings as
:class:`OneOf`, and a field's meaning in the ``#:`` comment above it, which the generated
schema carries as the field's description.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, ClassVar, Final, TypeAlias

from annotated_types import Ge, Interval, Len

from table_controller.contract.codes import EventType
from table_controller.rules import BETS, NOT_OFFERED, Card, RoadColour


class Absent(enum.Enum):
    """The type of :data:`ABSENT`: a field left out of the message, unlike ``None`` (``null``)."""

    ABSENT = "absent"


#: A field's value when the field is left out of the published message.
ABSENT: Final = Absent.ABSENT


@dataclass(frozen=True, slots=True)
class OneOf:
    """``Annotated`` metadata: the string is one of :attr:`values` (a bet id, a road colour)."""

    values: tuple[str, ...]


#: The longest round id: a shoe id, ``-`` and the round number.
MAX_ROUND_ID_LENGTH: Final = 96

#: A card as read, or ``None`` for one that left the shoe unread.
CardOrUnread: TypeAlias = Card | None
#: A bet id of the game rules' catalogue.
BetId: TypeAlias = Annotated[str, OneOf(tuple(BETS))]
#: A bet's net result per unit staked, or ``"not_offered"`` outside its window.
Settled: TypeAlias = Fraction | Annotated[str, OneOf((NOT_OFFERED,))]
#: A mark of a derived road.
RoadMark: TypeAlias = Annotated[str, OneOf(tuple(colour.value for colour in RoadColour))]
#: Rounds of a shoe count from 1.
RoundNo: TypeAlias = Annotated[int, Ge(1)]
#: ``<shoe_id>-<round_no>``, the round's idempotency key.
RoundId: TypeAlias = Annotated[str, Len(1, MAX_ROUND_ID_LENGTH)]
#: How many of something: never below zero.
Count: TypeAlias = Annotated[int, Ge(0)]
#: How many cards a burn takes: the face-up card's value, a court card or ten counting 10.
BurnCount: TypeAlias = Annotated[int, Interval(ge=1, le=10)]
#: Field metadata: the mapping's items are published as fields of the enclosing message.
FLATTEN: Final = {"flatten": True}


class Payload:
    """Base of every published payload: its ``type``, and whether its topic is retained."""

    __slots__ = ()
    TYPE: ClassVar[EventType]
    RETAINED: ClassVar[bool] = False
