# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table service's answers to commands: the ids given, and journaled answers.

Runtime. A command id is *given* once a command with it was carried out or refused by the
procedure (its journal row binds the id for good), or answered ``ok`` at the edge (``recall``,
``resend``: the journaled answer names what it answered, ``asked``). A given id is kept with
its reply and with what the command asked (:class:`Asked`: ``command``, ``operator``,
``args``): the same command again with that id gets the same reply and is never carried out
twice; another command with it is refused (``id_reused``) and is never answered with the
first one's reply. A command refused at the edge (malformed, not authorised, a bad signature
or PIN, ``overloaded``, ``id_reused``) gives its id to nothing, so a refused command with a
guessed id takes nothing from the genuine one. Replaying the journal at start gives the same
ids with the same contents, so a restart changes none of this.

Every answer journaled as an audit row (refused at the edge, ``recall`` or ``resend``
answered there, a repeated id) is published under its journal row, live and in every replay.
A ``recall``'s reply is journaled by its seal only (:func:`answer_row`) and made again from
the recall book on replay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

import structlog

from table_controller.contract import CommandErrorCode, CommandReply, OutgoingMessage, RefusalCode
from table_controller.contract.commands import (
    PROCEDURE_INPUTS,
    CommandMessage,
    command_spec,
    reply_data,
    reply_from_data,
)
from table_controller.history import (
    RecallBook,
    carries_recall,
    recall_answer,
    recalled_again,
)
from table_controller.procedure import Command, Input, input_to_record
from table_controller.runtime.interpreter import answer_message
from table_controller.runtime.journal.format import (
    ANSWER_KEY,
    ASKED_KEY,
    AUDIT_ROW,
    RECALL_ANSWER_KEY,
    canonical_json,
)
from table_controller.runtime.service_ports import QueuedInput

_LOG = structlog.get_logger("table_controller.service")
#: The ``message`` of an ``id_reused`` refusal.
ID_REUSED_MESSAGE: Final = (
    "this id was given to another command (its command, operator or args differ); nothing "
    "was carried out: send the command with a fresh id"
)
#: The procedure's command inputs (each has a ``command_id``).
COMMAND_TYPES: Final = PROCEDURE_INPUTS


@dataclass(frozen=True, slots=True)
class Asked:
    """What a command asked: what a repeated id must match to be answered again.

    ``args`` is the canonical JSON of the arguments as the procedure records them, so a
    command read from the wire and the same command read back from the journal are equal. A
    ``sign_in`` is known by its staff id alone: its PIN is never kept, and the name and role
    come from the staff register.
    """

    command: str
    operator: str
    args: str

    @classmethod
    def of(cls, command: str, operator: str, args: Mapping[str, object]) -> Asked:
        """From a command's name, operator and arguments (JSON data)."""
        spec = command_spec(command)
        if spec is not None and spec.staff_desk:  # the PIN, or the register's name and role
            args = {"staff_id": args.get("staff_id")}
        return cls(command=command, operator=operator, args=canonical_json(args))

    @classmethod
    def in_message(cls, message: CommandMessage) -> Asked:
        """What a command read from the wire asks (``recall``, ``resend``, ``sign_in``)."""
        args = message.model_dump(mode="json", include={"args"})["args"]
        return cls.of(message.command, message.operator, args)

    @classmethod
    def by_command(cls, command: Command) -> Asked:
        """What a command the procedure takes asks, as the journal records it."""
        args = input_to_record(command)["args"]
        assert isinstance(args, Mapping), "a command's record has its args"
        return cls.of(command.COMMAND, command.operator, args)

    @classmethod
    def from_record(cls, record: object) -> Asked | None:
        """Read back from an audit row (:meth:`to_record`); None if it is not one."""
        if not isinstance(record, Mapping):
            return None
        command, operator, args = (record.get(k) for k in ("command", "operator", "args"))
        if isinstance(command, str) and isinstance(operator, str) and isinstance(args, Mapping):
            return cls.of(command, operator, args)
        return None

    def to_record(self) -> dict[str, object]:
        """As an audit row keeps it, next to the answer (``asked``)."""
        args: object = json.loads(self.args)
        return {"command": self.command, "operator": self.operator, "args": args}


@dataclass(frozen=True, slots=True)
class _Given:
    """A given command id: its reply (None: carried out, no reply kept) and what it asked.

    ``asked`` is None for an answer journaled without it (a display's ``recall``): then only
    the command's name is known, and a repeat must name the same command.
    """

    reply: CommandReply | None
    asked: Asked | None

    def matches(self, asked: Asked) -> bool:
        if self.asked is not None:
            return self.asked == asked
        return self.reply is not None and self.reply.command == asked.command


def answer_row(
    reply: CommandReply,
    done: asyncio.Future[dict[str, object]] | None,
    asked: Asked | None = None,
) -> QueuedInput:
    """The audit row of a reply given without the procedure, queued to be journaled.

    The row holds the reply as JSON data (``answer``), or for a ``recall``'s only its id, how
    many rounds and its seal (``recall_answer``): the rounds are the journal's own earlier
    rows. ``asked`` (what an edge command asked) goes beside it, so that its id stays that
    command's.
    """
    row: dict[str, object] = (
        {RECALL_ANSWER_KEY: recall_answer(reply)}
        if carries_recall(reply)
        else {ANSWER_KEY: reply_data(reply)}
    )
    if asked is not None:
        row[ASKED_KEY] = asked.to_record()
    return QueuedInput(AUDIT_ROW, row, None, done=done, reply=reply)


class CommandReplies:
    """The command ids given, their replies, and the publishing of journaled answers.

    Args:
        publish: hands messages to the sink and the listeners (``live``: a live input's).
    """

    def __init__(self, publish: Callable[[list[OutgoingMessage], bool], None]) -> None:
        self._publish = publish
        self._given: dict[str, _Given] = {}
        #: Commands refused because their id was given to another command (``id_reused``).
        self.ids_reused = 0

    def keep(self, replies: tuple[CommandReply, ...], event: Input | None) -> None:
        """Give the id of a command the procedure took, with its reply (live and replayed)."""
        if not isinstance(event, COMMAND_TYPES):
            return
        command_id = event.command_id
        reply = next((r for r in replies if r.id == command_id), None)
        if reply is not None or command_id not in self._given:
            self._given[command_id] = _Given(reply, Asked.by_command(event))

    def repeat(self, command_id: str, asked: Asked) -> CommandReply | None:
        """The answer to a command whose id is given: its first reply again, or ``id_reused``.

        None: the id is not given (the command is new). An id whose command the journal holds
        without a reply (the table faulted carrying it out) is answered ``ok``: it was taken.
        """
        given = self._given.get(command_id)
        if given is None:
            return None
        if given.matches(asked):
            return given.reply if given.reply is not None else CommandReply(id=command_id, ok=True)
        self.ids_reused += 1
        _LOG.warning("command refused: id given to another command", id=command_id)
        return CommandReply(
            id=command_id,
            ok=False,
            command=asked.command,
            error=CommandErrorCode.ID_REUSED,
            message=ID_REUSED_MESSAGE,
        )

    def publish_answer(
        self,
        reply: CommandReply,
        *,
        key: str,
        ts: str,
        live: bool,
        asked: Asked | None = None,
    ) -> None:
        """Publish a journaled answer; an ``ok`` one gives its id, if not given yet.

        A refusal given at the edge gives its id to nothing; a repeated id's answer leaves the
        id as it was first given.
        """
        if reply.ok and reply.id is not None and reply.id not in self._given:
            self._given[reply.id] = _Given(reply, asked)
        self._publish([answer_message(reply, key=key, ts=ts)], live)

    def publish_row(
        self,
        row: Mapping[str, object],
        *,
        key: str,
        ts: str,
        live: bool,
        book: RecallBook | None = None,
    ) -> None:
        """Publish the answer an audit row holds, if it holds one.

        An ``answer`` is read back as its typed reply; one that is no reply is logged only. A
        ``recall_answer`` (a replay of the journal: ``book`` fed every row before this one) is
        made again from ``book`` and checked against its seal; one that does not match is
        logged, not published.
        """
        asked = Asked.from_record(row.get(ASKED_KEY))
        answer = row.get(ANSWER_KEY)
        if isinstance(answer, Mapping):
            try:
                reply = reply_from_data(answer)
            except ValueError as error:
                _LOG.error("journaled answer is no reply: not published", row=key, error=str(error))
                return
            self.publish_answer(reply, key=key, ts=ts, live=live, asked=asked)
            return
        recalled = row.get(RECALL_ANSWER_KEY)
        if not isinstance(recalled, Mapping) or book is None:
            return
        earlier = self._reply_to(str(recalled.get("id")))
        try:
            reply = recalled_again(recalled, book, earlier)
        except ValueError as error:
            _LOG.error("journaled recall not made again: not published", row=key, error=str(error))
            return
        self.publish_answer(reply, key=key, ts=ts, live=live, asked=asked)

    def settle(self, work: QueuedInput, seq: int, ts: str) -> None:
        """Publish a journaled answer, and give the submitter its reply."""
        answer = work.reply
        if answer is not None:
            asked = Asked.from_record(work.record.get(ASKED_KEY))
            self.publish_answer(answer, key=str(seq), ts=ts, live=True, asked=asked)
        if work.done is not None and not work.done.done():
            reply = answer if answer is not None else self._reply_to(work.command_id)
            if reply is None:  # carried out, and answered by no reply of its own
                reply = CommandReply(id=work.command_id, ok=True)
            work.done.set_result(reply_data(reply))

    def refuse(self, work: QueuedInput, failure: str) -> None:
        """The submitter's reply when its input could not be carried out (the table faulted)."""
        if work.done is not None and not work.done.done():
            refused = CommandReply(
                id=work.command_id, ok=False, error=RefusalCode.FAULTED, message=failure
            )
            first = self._reply_to(work.command_id)
            work.done.set_result(reply_data(refused if first is None else first))

    def _reply_to(self, command_id: str | None) -> CommandReply | None:
        """The reply first given to a command id, if one is kept."""
        given = None if command_id is None else self._given.get(command_id)
        return None if given is None else given.reply
