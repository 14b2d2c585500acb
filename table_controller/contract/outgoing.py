# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The topics of a table and one message as it goes out on them, before its ``seq``.

Pure: no I/O, no clock. Topics are below the table's root ``<prefix>/<table_id>/``
(docs/mqtt-api.md, "Topics"); most payloads go out on ``events/<type>``, the retained ones and
the command replies on a topic of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from table_controller.contract.codes import EventType
from table_controller.contract.envelope import JsonValue, envelope
from table_controller.contract.payloads.base import ABSENT, Payload
from table_controller.contract.payloads.replies import RecallReply

#: Every table's topics are ``<prefix>/<table_id>/...``; the prefix is a setting.
DEFAULT_TOPIC_PREFIX: Final = "baccarat/tables"
STATE_TOPIC: Final = "state"
ROADS_TOPIC: Final = "roads"
ODDS_TOPIC: Final = "odds"
STATS_TOPIC: Final = "stats"
LIMITS_TOPIC: Final = "limits"
REPLIES_TOPIC: Final = "commands/replies"
#: Payload types published on a topic of their own rather than ``events/<type>``.
OWN_TOPICS: Final[Mapping[EventType, str]] = {
    EventType.ROADS: ROADS_TOPIC,
    EventType.ODDS: ODDS_TOPIC,
    EventType.STATE: STATE_TOPIC,
    EventType.STATS: STATS_TOPIC,
    EventType.LIMITS: LIMITS_TOPIC,
    EventType.COMMAND_REPLY: REPLIES_TOPIC,
}


def topic_of(payload: Payload) -> str:
    """The topic (below the table's root) a payload is published on."""
    kind = payload.TYPE
    return OWN_TOPICS.get(kind) or f"events/{kind.value}"


@dataclass(frozen=True, slots=True, kw_only=True)
class OutgoingMessage:
    """One message for the backend, before the envelope (seq, ts) is put on it.

    ``key`` is unique per message for the life of the table (the journal row that caused it and
    the message's index), so a sink can skip messages it already holds after a restart.
    """

    key: str
    payload: Payload = field(hash=False)
    ts: str | None

    @property
    def topic(self) -> str:
        return topic_of(self.payload)

    @property
    def event_type(self) -> str:
        """The message's ``type``."""
        return self.payload.TYPE.value

    @property
    def retain(self) -> bool:
        return self.payload.RETAINED

    @property
    def kept(self) -> bool:
        """Kept in the outbox once the broker has it, for ``resend``; not a ``recall``'s reply.

        The journal makes a recall's reply again (``table-controller replay``).
        """
        payload = self.payload
        return not (isinstance(payload, RecallReply) and payload.rounds is not ABSENT)

    @property
    def is_event(self) -> bool:
        """An ``events/<type>`` message, ``roads`` or ``odds``: what ``replay`` prints."""
        kind = self.payload.TYPE
        return kind not in OWN_TOPICS or kind in (EventType.ROADS, EventType.ODDS)

    def enveloped(self, *, table_id: str, seq: int, ts: str | None) -> dict[str, JsonValue]:
        """The whole message as it goes out: the envelope, then the payload's fields."""
        return envelope(self.event_type, self.payload, table_id=table_id, seq=seq, ts=ts)
