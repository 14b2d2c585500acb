# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Command ingress: raw bytes from the broker in, a reply for every one of them out.

Runtime adapter. Each payload on ``<root>/commands`` is parsed (``parse_command``: size cap,
strict schema), authorised (``authorise``: supervisor allow-list, optional HMAC signature),
checked against the ids already given (``TableService.repeated``: the same command again is
answered again, another command with a given id is refused ``id_reused``), a ``sign_in``'s
staff id and PIN checked by the staff desk (the PIN goes no further), and only then handed to
the table service. ``recall`` never reaches the procedure: counted against its per-operator limit
(``rate_limited``), it is answered from the service's recall book, in any state (holds and
faults included), its reply journaled by its seal; nor does
``resend``, which the MQTT link republishes aside (``runtime/resends.py``). A command refused
here (with a :class:`~table_controller.contract.errors.CommandErrorCode`, the
display's codes for the same faults) changes nothing, gives its id to nothing, is counted and
logged, and its reply is journaled and published like every other message.

Commands are taken one at a time, in the order they arrived. At most :data:`MAX_WAITING` wait
their turn; a payload that finds them all waiting is not carried out but answered at once
``overloaded`` (with its id when it has a usable one), those answers journaled together in one
transaction, so a flood costs the table a few writes and every payload still gets its one
reply.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Final

import structlog

from table_controller.contract import ABSENT, DEFAULT_CURRENCY, CommandErrorCode, CommandReply
from table_controller.contract.commands import (
    COMMANDS_BY_NAME,
    CommandMessage,
    RecallArgs,
    ResendArgs,
    reply_data,
)
from table_controller.history import RECALLS_PER_MINUTE
from table_controller.ingress import (
    AuthorisationPolicy,
    Refused,
    RequestRateLimit,
    authorise,
    parse_command,
    readable_id,
)
from table_controller.runtime.command_replies import ID_REUSED_MESSAGE, Asked
from table_controller.runtime.resends import Resends
from table_controller.runtime.service import TableService
from table_controller.screens import PinRefusal
from table_controller.staff import StaffDesk

_LOG = structlog.get_logger("table_controller.commands")
#: Commands waiting to be taken; one that finds this many waiting is answered ``overloaded``.
MAX_WAITING: Final = 1000
#: ``overloaded`` answers journaled together, in one transaction, at most.
OVERLOADED_PER_WRITE: Final = 500
#: ``overloaded`` answers waiting to be journaled, at most. They wait only while the journal
#: refuses writes (the table is held); beyond this many, payloads are dropped, counted and
#: logged, so a flood cannot exhaust the memory.
MAX_UNANSWERED: Final = 100_000


class CommandIngress:
    """Parses, authorises and submits commands received from the broker.

    Args:
        service: the table the commands go to, and where every reply is journaled.
        policy: who may give which command.
        desk: checks a ``sign_in``'s staff id and PIN.
        resends: ``resend``'s limit and republishing; None: the table has no outbox.
        max_waiting: commands waiting to be taken before the next is answered ``overloaded``.
        max_unanswered: ``overloaded`` answers waiting to be journaled before payloads are
            dropped.
        recalls_per_minute: ``recall`` requests answered per operator in any minute.
        clock: monotonic seconds (the ``recall`` limit's).
    """

    def __init__(  # noqa: PLR0913 - keyword-only adapters and limits
        self,
        service: TableService,
        policy: AuthorisationPolicy,
        desk: StaffDesk | None = None,
        *,
        resends: Resends | None = None,
        max_waiting: int = MAX_WAITING,
        max_unanswered: int = MAX_UNANSWERED,
        recalls_per_minute: int = RECALLS_PER_MINUTE,
        clock: Callable[[], float] = time.monotonic,
        currency: str = DEFAULT_CURRENCY,
    ) -> None:
        self._service = service
        #: The table's currency: ``set_limits`` amounts finer than its minor unit are refused.
        self._currency = currency
        #: ``resend``'s limit and republishing; None: the table has no outbox to resend from.
        self.resends = resends
        self._recall_limit = RequestRateLimit(recalls_per_minute, requests="recalls")
        self._clock = clock
        self._policy = policy
        self._desk = desk or StaffDesk(None)
        self._waiting: asyncio.Queue[bytes] = asyncio.Queue(max_waiting)
        #: The ids (None: none usable) of payloads refused ``overloaded``, to be answered.
        self._unanswered: deque[str | None] = deque()
        self._max_unanswered = max_unanswered
        self._overload_noted = asyncio.Event()
        #: ``overloaded`` refusals since the queue was last at most half full (logged once it
        #: is again: one line when an overload starts, one when it ends).
        self._overloaded_lately = 0
        #: What a ``resend`` taken and not yet answered asked, by id.
        self._resending: dict[str, Asked] = {}
        #: Refusals before the procedure, by code (malformed, not authorised, overloaded ...).
        self.refused: Counter[str] = Counter()
        self.received = 0
        #: Payloads dropped unanswered: ``MAX_UNANSWERED`` answers were already waiting.
        self.dropped = 0

    def receive(self, raw: bytes) -> None:
        """Take one payload from the broker; never blocks, never raises."""
        self.received += 1
        try:
            self._waiting.put_nowait(raw)
        except asyncio.QueueFull:
            self._overloaded(raw)

    def _overloaded(self, raw: bytes) -> None:
        """Refuse a payload that found the queue full: answered ``overloaded`` soon after."""
        if len(self._unanswered) >= self._max_unanswered:
            if not self.dropped:
                _LOG.error(
                    "command ingress cannot answer: payloads dropped",
                    waiting=self._max_unanswered,
                )
            self.dropped += 1
            return
        if not self._overloaded_lately:
            _LOG.error(
                "command ingress overloaded: commands answered overloaded",
                waiting=self._waiting.maxsize,
            )
        self._overloaded_lately += 1
        self.refused[CommandErrorCode.OVERLOADED] += 1
        self._unanswered.append(readable_id(raw))
        self._overload_noted.set()

    async def run(self) -> None:
        """Take the waiting commands, one at a time, and answer the overloads, until cancelled."""
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(self._take_commands(), name="commands waiting")
                group.create_task(self._answer_overloads(), name="commands overloaded")
        finally:
            if self.resends is not None:
                await self.resends.aclose()

    async def _take_commands(self) -> None:
        while True:
            raw = await self._waiting.get()
            if self._overloaded_lately and self._waiting.qsize() <= self._waiting.maxsize // 2:
                _LOG.warning(
                    "command ingress takes commands again", overloaded=self._overloaded_lately
                )
                self._overloaded_lately = 0
            await self.handle(raw)

    async def _answer_overloads(self) -> None:
        """Journal and publish the ``overloaded`` answers, many to a write."""
        message = (
            f"the table has {self._waiting.maxsize} commands waiting, the most it holds: "
            "this one was not carried out; send it again later"
        )
        while True:
            await self._overload_noted.wait()
            self._overload_noted.clear()
            while self._unanswered:
                count = min(len(self._unanswered), OVERLOADED_PER_WRITE)
                replies = [
                    CommandReply(
                        id=self._unanswered.popleft(),
                        ok=False,
                        error=CommandErrorCode.OVERLOADED,
                        message=message,
                    )
                    for _ in range(count)
                ]
                await self._service.answer_all(replies)

    async def handle(self, raw: bytes) -> dict[str, object]:
        """One payload, to its reply (a ``resend`` taken: ``ok``; its reply follows later)."""
        parsed = parse_command(raw, currency=self._currency)
        if not isinstance(parsed, CommandMessage):
            return await self._refuse(parsed.id, None, parsed.code, parsed.message)
        verdict = authorise(parsed, self._policy)
        if isinstance(verdict, Refused):
            return await self._refuse(parsed.id, parsed.command, verdict.code, verdict.message)
        spec = COMMANDS_BY_NAME[parsed.command]
        if spec.staff_desk or spec.at_the_edge:
            # Answered or checked here, not by the procedure: a repeated id gets its reply
            # again, with no second PIN check, recall or republishing.
            asked = Asked.in_message(parsed)
            repeated = await self._repeated(parsed.id, asked)
            if repeated is not None:
                return repeated
            if isinstance(parsed.args, RecallArgs | ResendArgs):  # answered here, in any state
                return await self._at_the_edge(parsed.id, parsed.operator, parsed.args, asked)
        record = parsed.to_record()
        if spec.staff_desk:
            # The client whose wrong PINs count together: the operator the command names.
            checked = await self._desk.verified_sign_in(record, client=f"mqtt {parsed.operator}")
            if isinstance(checked, PinRefusal):
                return await self._refuse(parsed.id, parsed.command, checked.error, checked.message)
            record = checked
        return await self._service.submit(record)

    async def _repeated(self, command_id: str, asked: Asked) -> dict[str, object] | None:
        """A ``resend`` still going out, or an id given before: its answer; None: a new id."""
        resending = self._resending.get(command_id)
        if resending is not None:
            if self.resends is not None and self.resends.in_progress(command_id):
                if resending == asked:  # repeated while republishing: its reply follows
                    return _resend_taken(command_id)
                return await self._refuse(
                    command_id, asked.command, CommandErrorCode.ID_REUSED, ID_REUSED_MESSAGE
                )
            del self._resending[command_id]  # answered since: the service knows
        return await self._service.repeated(command_id, asked)

    async def _at_the_edge(
        self, command_id: str, operator: str, args: RecallArgs | ResendArgs, asked: Asked
    ) -> dict[str, object]:
        """``recall`` (read-only: answered now) and ``resend`` (its reply once it is out)."""
        if isinstance(args, RecallArgs):
            limited = self._recall_limit.refusal(operator, self._clock())
            if limited is not None:
                return await self._refuse(
                    command_id, "recall", CommandErrorCode.RATE_LIMITED, limited
                )
            return await self._service.answer_recall(command_id, args.rounds, asked=asked)
        resends = self.resends
        if resends is None:
            return await self._refuse(
                command_id,
                "resend",
                CommandErrorCode.RESEND_FAILED,
                "this table has no outbox to publish messages again from",
            )
        refusal = resends.refusal(operator, args)
        if refusal is not None:
            return await self._refuse(command_id, "resend", *refusal)

        async def answer(reply: CommandReply) -> dict[str, object]:
            try:
                return await self._service.answer(reply, asked=asked)
            finally:  # journaled: the service knows the id now
                self._resending.pop(command_id, None)

        self._resending[command_id] = asked
        resends.start(command_id, args, answer)
        return _resend_taken(command_id)

    async def _refuse(
        self, command_id: str | None, command: str | None, code: CommandErrorCode, message: str
    ) -> dict[str, object]:
        self.refused[code] += 1
        _LOG.warning(
            "command refused at the edge",
            id=command_id,
            command=command,
            error=code,
            message=message,
        )
        reply = CommandReply(
            id=command_id,
            ok=False,
            command=ABSENT if command is None else command,
            error=code,
            message=message,
        )
        return await self._service.answer(reply)


def _resend_taken(command_id: str) -> dict[str, object]:
    """The answer to a ``resend`` taken: its reply, with the counts, follows once it is out."""
    return reply_data(CommandReply(id=command_id, ok=True, command="resend"))
