# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table service's answers to commands: the replies given by id, and journaled answers.

Runtime. A command's reply is kept by its id, so a repeated id is answered again and never
carried out twice; an answer journaled as an audit row (a command refused before the
procedure, a ``recall`` or ``resend`` answered at the edge, a repeated id) is published under
its journal row, live and in every replay, and kept by its id too. A ``recall``'s reply is
journaled by its seal only (:func:`answer_row`) and made again from the recall book on replay.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping

import structlog

from table_controller.procedure.codes import RefusalCode
from table_controller.procedure.controller_payloads import CommandReply
from table_controller.publishing.messages import fields_of
from table_controller.publishing.outgoing import OutgoingMessage, answer_message, reply_from_wire
from table_controller.publishing.recall import (
    RecallBook,
    carries_recall,
    recall_answer,
    recalled_again,
)
from table_controller.runtime.journal_format import ANSWER_KEY, AUDIT_ROW, RECALL_ANSWER_KEY
from table_controller.runtime.queued_input import QueuedInput

_LOG = structlog.get_logger("table_controller.service")


def answer_row(
    reply: Mapping[str, object], done: asyncio.Future[dict[str, object]] | None
) -> QueuedInput:
    """The audit row of a reply given without the procedure, queued to be journaled.

    The row holds the reply itself (``answer``), or for a ``recall``'s only its id, how many
    rounds and its seal (``recall_answer``): the rounds are the journal's own earlier rows.
    """
    row: dict[str, object] = (
        {RECALL_ANSWER_KEY: recall_answer(reply)}
        if carries_recall(reply)
        else {ANSWER_KEY: dict(reply)}
    )
    return QueuedInput(AUDIT_ROW, row, None, done=done, reply=dict(reply))


class CommandReplies:
    """The replies given to command ids, and the publishing of journaled answers.

    Args:
        publish: hands messages to the sink and the listeners (``live``: a live input's).
    """

    def __init__(self, publish: Callable[[list[OutgoingMessage], bool], None]) -> None:
        self._publish = publish
        self._replies: dict[str, CommandReply] = {}

    def keep(self, replies: Iterable[CommandReply]) -> None:
        """Remember the replies the procedure gave, by command id."""
        for reply in replies:
            if reply.id is not None:
                self._replies[reply.id] = reply

    def answered(self, command_id: str) -> dict[str, object] | None:
        """The reply already given to a command id, if it was carried out or refused."""
        reply = self._replies.get(command_id)
        return None if reply is None else dict(fields_of(reply))

    def publish_answer(
        self, answer: Mapping[str, object], *, key: str, ts: str, live: bool
    ) -> None:
        """Publish a journaled answer, kept by its id; one that is no reply is logged only."""
        try:
            reply = reply_from_wire(answer)
        except ValueError as error:
            _LOG.error("journaled answer is no reply: not published", row=key, error=str(error))
            return
        if reply.id is not None:
            self._replies[reply.id] = reply
        self._publish([answer_message(reply, key=key, ts=ts)], live)

    def publish_journaled(
        self, row: Mapping[str, object], book: RecallBook, *, key: str, ts: str
    ) -> None:
        """Publish again the answer an audit row holds, if any (a replay of the journal).

        A ``recall_answer`` is made again from ``book`` (fed every row before this one) and
        checked against its seal; one that does not match is logged, not published.
        """
        answer = row.get(ANSWER_KEY)
        if isinstance(answer, Mapping):
            self.publish_answer(answer, key=key, ts=ts, live=False)
            return
        recalled = row.get(RECALL_ANSWER_KEY)
        if not isinstance(recalled, Mapping):
            return
        earlier = self.answered(str(recalled.get("id")))
        try:
            reply = recalled_again(recalled, book, earlier)
        except ValueError as error:
            _LOG.error("journaled recall not made again: not published", row=key, error=str(error))
            return
        self.publish_answer(reply, key=key, ts=ts, live=False)

    def settle(self, work: QueuedInput, seq: int, ts: str) -> None:
        """Publish a journaled answer, and give the submitter its reply."""
        answer = work.reply
        if answer is not None:
            self.publish_answer(answer, key=str(seq), ts=ts, live=True)
        if work.done is not None and not work.done.done():
            if answer is not None:
                work.done.set_result(dict(answer))
            else:
                fallback: dict[str, object] = {"id": work.command_id, "ok": True}
                work.done.set_result(self.answered(work.command_id or "") or fallback)

    def refuse(self, work: QueuedInput, failure: str) -> None:
        """The submitter's reply when its input could not be carried out (the table faulted)."""
        if work.done is not None and not work.done.done():
            refused: dict[str, object] = {
                "id": work.command_id,
                "ok": False,
                "error": RefusalCode.FAULTED.value,
                "message": failure,
            }
            work.done.set_result(self.answered(work.command_id or "") or refused)
