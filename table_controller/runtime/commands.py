# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Command ingress: raw bytes from the broker in, a reply for every one of them out.

Runtime adapter. Each payload on ``<root>/commands`` is parsed (``parse_command``: size cap,
strict schema), authorised (``authorise``: supervisor allow-list, optional HMAC signature),
a ``sign_in``'s staff id and PIN checked by the staff desk (the PIN goes no further), and only
then handed to the table service. ``recall`` never reaches the procedure: it is answered from
the service's recall book, in any state (holds and faults included), its reply journaled;
nor does ``resend``, which the MQTT link republishes aside (``runtime/resends.py``). A
command refused here (with a
:class:`~table_controller.publishing.command_errors.CommandErrorCode`, the display's codes for
the same faults) changes nothing, is counted and logged, and its reply is journaled and
published like every other message; a repeated ``id`` is answered again by the service and
never carried out twice. Commands are taken one at a time, in the order they
arrived.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Final

import structlog

from table_controller.procedure.state_payloads import DEFAULT_CURRENCY
from table_controller.publishing.authorisation import AuthorisationPolicy, Refused, authorise
from table_controller.publishing.command_args import RecallArgs, ResendArgs
from table_controller.publishing.command_errors import CommandErrorCode
from table_controller.publishing.command_message import CommandMessage
from table_controller.publishing.command_parsing import parse_command
from table_controller.publishing.pin_lockout import PinRefusal
from table_controller.publishing.recall import recall_reply
from table_controller.runtime.resends import Resends
from table_controller.runtime.service import TableService
from table_controller.staff.desk import StaffDesk

_LOG = structlog.get_logger("table_controller.commands")
#: Commands waiting to be taken; beyond this the oldest are not dropped: the broker waits.
MAX_WAITING: Final = 1000


class CommandIngress:
    """Parses, authorises and submits commands received from the broker."""

    def __init__(
        self,
        service: TableService,
        policy: AuthorisationPolicy,
        desk: StaffDesk | None = None,
        *,
        resends: Resends | None = None,
        currency: str = DEFAULT_CURRENCY,
    ) -> None:
        self._service = service
        #: The table's currency: ``set_limits`` amounts finer than its minor unit are refused.
        self._currency = currency
        #: ``resend``'s limit and republishing; None: the table has no outbox to resend from.
        self.resends = resends
        self._policy = policy
        self._desk = desk or StaffDesk(None)
        self._waiting: asyncio.Queue[bytes] = asyncio.Queue(MAX_WAITING)
        #: Refusals before the procedure, by code (malformed, not authorised ...).
        self.refused: Counter[str] = Counter()
        self.received = 0

    def receive(self, raw: bytes) -> None:
        """Take one payload from the broker; never blocks, never raises."""
        self.received += 1
        try:
            self._waiting.put_nowait(raw)
        except asyncio.QueueFull:
            self.refused["overloaded"] += 1
            _LOG.error("command ingress overloaded: payload dropped", waiting=MAX_WAITING)

    async def run(self) -> None:
        """Take the waiting commands, one at a time, until cancelled."""
        try:
            while True:
                raw = await self._waiting.get()
                await self.handle(raw)
        finally:
            if self.resends is not None:
                await self.resends.aclose()

    async def handle(self, raw: bytes) -> dict[str, object]:
        """One payload, to its reply (a ``resend`` taken: ``ok``; its reply follows later)."""
        parsed = parse_command(raw, currency=self._currency)
        if not isinstance(parsed, CommandMessage):
            return await self._refuse(parsed.id, None, parsed.code, parsed.message)
        verdict = authorise(parsed, self._policy)
        if isinstance(verdict, Refused):
            return await self._refuse(parsed.id, parsed.command, verdict.code, verdict.message)
        if parsed.command == "sign_in" or isinstance(parsed.args, RecallArgs | ResendArgs):
            # Answered or checked here, not by the procedure: a repeated id gets its reply
            # again, with no second PIN check, recall or republishing.
            given = self._service.answered(parsed.id)
            if given is not None:
                return await self._service.answer(given)
        if isinstance(parsed.args, RecallArgs | ResendArgs):  # answered here, in any state
            return await self._at_the_edge(parsed.id, parsed.operator, parsed.args)
        record = parsed.to_record()
        if parsed.command == "sign_in":
            checked = await self._desk.verified_sign_in(record)
            if isinstance(checked, PinRefusal):
                return await self._refuse(parsed.id, parsed.command, checked.error, checked.message)
            record = checked
        return await self._service.submit(record)

    async def _at_the_edge(
        self, command_id: str, operator: str, args: RecallArgs | ResendArgs
    ) -> dict[str, object]:
        """``recall`` (read-only: answered now) and ``resend`` (its reply once it is out)."""
        if isinstance(args, RecallArgs):
            return await self._service.answer(
                recall_reply(self._service.recall, command_id, args.rounds)
            )
        resends = self.resends
        if resends is None:
            return await self._refuse(
                command_id,
                "resend",
                CommandErrorCode.RESEND_FAILED,
                "this table has no outbox to publish messages again from",
            )
        taken = {"id": command_id, "ok": True, "command": "resend"}
        if resends.in_progress(command_id):  # repeated while republishing: its reply follows
            return taken
        refusal = resends.refusal(operator, args)
        if refusal is not None:
            return await self._refuse(command_id, "resend", *refusal)
        resends.start(command_id, args, self._service.answer)
        return taken

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
        reply: dict[str, object] = {
            "id": command_id,
            "ok": False,
            "error": code,
            "message": message,
        }
        if command is not None:
            reply["command"] = command
        return await self._service.answer(reply)
