# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``resend`` at the command ingress: checked, counted, republished aside, answered after.

Runtime adapter. The ingress hands an authorised ``resend`` here. Its range is checked
(``bad_range``) and its operator's requests counted against the per-minute limit
(``rate_limited``); a request taken is republished by the MQTT link in a task of its own, so
the ingress goes on taking the next commands (a deal is never held behind a resend), and its
reply (``resent``, ``gone``, ``last_seq``) is journaled and published once every message is
out. A resend the outbox cannot serve is answered ``resend_failed``, logged and counted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeAlias

import structlog

from table_controller.contract import CommandErrorCode, CommandReply
from table_controller.contract.commands import ResendArgs
from table_controller.ingress import RequestRateLimit
from table_controller.mqtt import OutboxError, Republished, range_problem, resend_reply

#: Publishes ``first..last`` again (the MQTT link's ``republisher.republish``).
Republish: TypeAlias = Callable[[int, int], Awaitable[Republished]]
#: Journals and publishes a reply given at the edge (``TableService.answer``).
Answer: TypeAlias = Callable[[CommandReply], Awaitable[dict[str, object]]]

_LOG = structlog.get_logger("table_controller.commands")


class Resends:
    """The ``resend`` requests of one table: limit, checks, the republishing tasks.

    Args:
        republish: publishes a range again and says what it did.
        per_minute: requests taken per operator in any 60 seconds.
        clock: monotonic seconds.
    """

    def __init__(
        self,
        republish: Republish,
        *,
        per_minute: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._republish = republish
        self._limit = RequestRateLimit(per_minute, requests="resends")
        self._clock = clock
        self._running: dict[str, asyncio.Task[None]] = {}
        #: Requests taken since start (refused ones are counted by the ingress).
        self.taken = 0
        #: Messages published again since start.
        self.resent = 0
        #: Resends that failed (the outbox could not be read).
        self.failed = 0

    def refusal(self, operator: str, args: ResendArgs) -> tuple[CommandErrorCode, str] | None:
        """Why this request is not taken (a code and a message); None: it is, and is counted."""
        problem = range_problem(args.from_seq, args.to_seq)
        if problem is not None:
            return CommandErrorCode.BAD_RANGE, problem
        limited = self._limit.refusal(operator, self._clock())
        if limited is not None:
            return CommandErrorCode.RATE_LIMITED, limited
        return None

    def start(self, command_id: str, args: ResendArgs, answer: Answer) -> None:
        """Republish the range in a task of its own; ``answer`` gives the reply after."""
        task = asyncio.create_task(
            self._resend(command_id, args, answer), name=f"resend {command_id}"
        )
        self.taken += 1
        self._running[command_id] = task
        task.add_done_callback(lambda _: self._running.pop(command_id, None))

    def in_progress(self, command_id: str) -> bool:
        """Whether the resend of this command id was taken and is not answered yet."""
        return command_id in self._running

    @property
    def running(self) -> int:
        """Resends taken and not yet answered."""
        return len(self._running)

    async def _resend(self, command_id: str, args: ResendArgs, answer: Answer) -> None:
        try:
            done = await self._republish(args.from_seq, args.to_seq)
        except OutboxError as error:
            self.failed += 1
            _LOG.error("resend failed", id=command_id, error=str(error))
            await answer(
                CommandReply(
                    id=command_id,
                    ok=False,
                    command="resend",
                    error=CommandErrorCode.RESEND_FAILED,
                    message=f"the outbox could not be read: {error}",
                )
            )
            return
        self.resent += done.resent
        await answer(resend_reply(command_id, done))

    async def aclose(self) -> None:
        """Stop the resends still running (the table stops); their replies are not given."""
        tasks = set(self._running.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
