# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Which messages the table publishes for the decisions of one input, and on which topics.

Pure: no I/O, no clock, no randomness. The service and ``replay`` both plan their messages
here, so a journal replayed offline numbers its messages exactly as the live table did: the
``seq`` a backend saw is the ``seq`` a pit boss sees in ``replay``.

Per input, in order: one message per ``Publish`` decision (``events/<type>``, or ``roads``
retained), one ``commands/replies`` message per command answered, then the retained ``state``
snapshot if it changed. A command answered without reaching the procedure (refused at the
edge, or a repeated ``id`` answered again) is journaled as an answer and planned by
:meth:`MessagePlanner.answer`, so it is numbered in the replay too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from table_controller.procedure.decisions import (
    CommandAccepted,
    CommandRefused,
    Decision,
    EventType,
    Publish,
)

STATE_TOPIC = "state"
ROADS_TOPIC = "roads"
ODDS_TOPIC = "odds"
#: Event types published retained on a topic of their own rather than ``events/<type>``.
SNAPSHOT_TOPICS = {EventType.ROADS: ROADS_TOPIC, EventType.ODDS: ODDS_TOPIC}
REPLIES_TOPIC = "commands/replies"
REPLY_TYPE = "command_reply"


@dataclass(frozen=True, slots=True, kw_only=True)
class OutgoingMessage:
    """One message for the backend, before the envelope (seq, ts) is put on it.

    ``key`` is unique per message for the life of the table (the journal row that caused it and
    the message's index), so a sink can skip messages it already holds after a restart.
    """

    key: str
    topic: str
    event_type: str
    payload: Mapping[str, object] = field(hash=False)
    retain: bool
    ts: str | None

    @property
    def is_event(self) -> bool:
        """An ``events/<type>`` message, ``roads`` or ``odds``: what ``replay`` prints."""
        return self.topic.startswith("events/") or self.topic in (ROADS_TOPIC, ODDS_TOPIC)


def command_reply(decision: CommandAccepted | CommandRefused) -> dict[str, object]:
    """The ``commands/replies`` payload of an answered command."""
    if isinstance(decision, CommandAccepted):
        return {"id": decision.command_id, "ok": True, "command": decision.command}
    return {
        "id": decision.command_id,
        "ok": False,
        "command": decision.command,
        "error": decision.code.value,
        "message": decision.message,
    }


class MessagePlanner:
    """Turns each input's decisions into messages; remembers the last state it published."""

    def __init__(self) -> None:
        self._last_state: Mapping[str, object] | None = None

    def plan(
        self,
        decisions: Sequence[Decision],
        state: Mapping[str, object],
        *,
        key: str,
        ts: str | None,
    ) -> list[OutgoingMessage]:
        """The messages for one input; ``key`` names the input (its journal row)."""
        planned: list[tuple[str, str, Mapping[str, object], bool]] = []
        for decision in decisions:
            if isinstance(decision, Publish):
                topic = SNAPSHOT_TOPICS.get(
                    decision.event_type, f"events/{decision.event_type.value}"
                )
                planned.append(
                    (topic, decision.event_type.value, decision.payload, decision.retain)
                )
            elif isinstance(decision, CommandAccepted | CommandRefused):
                planned.append((REPLIES_TOPIC, REPLY_TYPE, command_reply(decision), False))
        if state != self._last_state:
            self._last_state = state
            planned.append((STATE_TOPIC, STATE_TOPIC, state, True))
        return [
            OutgoingMessage(
                key=f"{key}.{index}",
                topic=topic,
                event_type=kind,
                payload=payload,
                retain=retain,
                ts=ts,
            )
            for index, (topic, kind, payload, retain) in enumerate(planned)
        ]

    @staticmethod
    def answer(reply: Mapping[str, object], *, key: str, ts: str | None) -> list[OutgoingMessage]:
        """The reply to a command answered at the edge (``key`` names its journal row)."""
        message = OutgoingMessage(
            key=f"{key}.0",
            topic=REPLIES_TOPIC,
            event_type=REPLY_TYPE,
            payload=reply,
            retain=False,
            ts=ts,
        )
        return [message]
