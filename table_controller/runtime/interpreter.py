# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the adapters do for the decisions of one input: the one reading of every decision.

Pure: no I/O, no clock, no randomness. :meth:`DecisionInterpreter.interpret` walks an input's
decisions once, in one ``match`` over the closed set, and yields everything the service carries
out: the messages to publish (numbered per input, on their topics), the lamp to light, the
commands' replies and the log lines. The service and ``replay`` both use it, so a journal
replayed offline numbers its messages exactly as the live table did: the ``seq`` a backend saw
is the ``seq`` a pit boss sees in ``replay``.

Per input, in the order decided: one message per ``Publish``, ``Announce`` (the ``prompt``
event), ``RaiseAlarm`` (the ``alarm`` event) and command answered (``commands/replies``), then
the retained ``state`` if it changed, then what the pace observer given adds after them: the
retained ``stats`` (``history/pace.py``) when the input ended a round, started a shoe or changed
the dealer. A command answered without
reaching the procedure (refused at the edge, or a repeated ``id`` answered again) is journaled
as an answer and turned into its message by :func:`answer_message`, so it is numbered in the
replay too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from table_controller.contract import (
    ABSENT,
    CommandReply,
    Lamp,
    OutgoingMessage,
    Payload,
    TableSnapshot,
    TableState,
)
from table_controller.procedure import (
    Announce,
    CommandAccepted,
    CommandRefused,
    Decision,
    HoldTable,
    Publish,
    RaiseAlarm,
    ResumeTable,
    SetLamp,
)

if TYPE_CHECKING:
    from table_controller.runtime.service_ports import StatsObserver


@dataclass(frozen=True, slots=True)
class LogLine:
    """A line the service logs for a decision (only live: a replay repeats none)."""

    event: str
    fields: Mapping[str, object]
    #: A warning rather than an information.
    warns: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """Everything the adapters do for one input's decisions."""

    messages: tuple[OutgoingMessage, ...]
    #: The lamp to light, if the decisions changed it.
    lamp: Lamp | None
    #: The replies to the commands answered, each under its command's id.
    replies: tuple[CommandReply, ...]
    log: tuple[LogLine, ...]


def command_reply(decision: CommandAccepted | CommandRefused) -> CommandReply:
    """The ``commands/replies`` payload of a command the procedure answered."""
    supervisor = ABSENT if decision.supervisor is None else decision.supervisor
    if isinstance(decision, CommandAccepted):
        return CommandReply(
            id=decision.command_id, ok=True, command=decision.command, supervisor=supervisor
        )
    return CommandReply(
        id=decision.command_id,
        ok=False,
        command=decision.command,
        error=decision.code,
        message=decision.message,
        supervisor=supervisor,
    )


def answer_message(reply: CommandReply, *, key: str, ts: str | None) -> OutgoingMessage:
    """The message of a reply given at the edge, typed as made (``key`` names its journal row)."""
    return OutgoingMessage(key=f"{key}.0", payload=reply, ts=ts)


class DecisionInterpreter:
    """Turns each input's decisions into an :class:`Outcome`; remembers the last state shown.

    Args:
        pace: told each input's payloads with its time stamp (an input without one is not
            told); what it answers is the input's last message. None: nothing is added.
    """

    def __init__(self, *, pace: StatsObserver | None = None) -> None:
        self._last_state: TableState | None = None
        self._pace = pace

    def interpret(  # noqa: C901, PLR0912 - one case per decision of the closed set
        self,
        decisions: Sequence[Decision],
        snapshot: TableSnapshot,
        *,
        key: str,
        ts: str | None,
    ) -> Outcome:
        """The outcome of one input; ``key`` names the input (its journal row)."""
        lamp: Lamp | None = None
        published: list[Payload] = []
        replies: list[CommandReply] = []
        log: list[LogLine] = []
        for decision in decisions:
            match decision:
                case Publish(payload=payload):
                    published.append(payload)
                case Announce(prompt=prompt):
                    published.append(prompt)
                    count = None if prompt.count is ABSENT else prompt.count
                    log.append(LogLine("prompt", {"action": prompt.action.value, "count": count}))
                case RaiseAlarm(alarm=alarm):
                    published.append(alarm)
                    round_id = None if alarm.round_id is ABSENT else alarm.round_id
                    line = {"code": alarm.code.value, "message": alarm.message}
                    log.append(LogLine("alarm", line | {"round_id": round_id}, warns=True))
                case CommandAccepted(command_id=command_id, command=command):
                    reply = command_reply(decision)
                    replies.append(reply)
                    published.append(reply)
                    line = {"id": command_id, "command": command}
                    log.append(LogLine("command carried out", line))
                case CommandRefused(command_id=command_id, command=command, code=code):
                    reply = command_reply(decision)
                    replies.append(reply)
                    published.append(reply)
                    line = {"id": command_id, "command": command, "error": code.value}
                    log.append(LogLine("command refused", line))
                case SetLamp(lamp=new_lamp):
                    lamp = new_lamp
                case HoldTable(reason=reason):
                    log.append(LogLine("table held", {"reason": reason.value}, warns=True))
                case ResumeTable():
                    log.append(LogLine("table resumed", {}))
                case _:
                    assert_never(decision)
        if snapshot.state != self._last_state:
            self._last_state = snapshot.state
            published.append(snapshot.state)
        if ts is not None and self._pace is not None:
            stats = self._pace.observe(ts, published)
            if stats is not None:
                published.append(stats)
        messages = tuple(
            OutgoingMessage(key=f"{key}.{index}", payload=payload, ts=ts)
            for index, payload in enumerate(published)
        )
        return Outcome(messages=messages, lamp=lamp, replies=tuple(replies), log=tuple(log))
