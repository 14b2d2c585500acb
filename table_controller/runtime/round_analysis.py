# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Each round's odds, analysed on their own thread between rounds and fed back as an input.

Nothing on the dealing path waits for an analysis: its result comes back as a
``RoundAssessed`` input, journaled and handled in turn like any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import structlog

from table_controller.contract import TableSnapshot
from table_controller.procedure import Input, ShoeCount
from table_controller.protection import Analysis, analyse_request
from table_controller.runtime.deferred_log import describe_failure
from table_controller.runtime.service_ports import Advisor

_LOG = structlog.get_logger("table_controller.service")


class RoundAnalysis:
    """The advisor's analyses, one at a time, on the analysis thread.

    Args:
        advisor: the live odds and shoe alarms; None for a table without them.
        shoe_count: the procedure's count of the shoe (what an assessment is asked about).
        clock: monotonic seconds, stamped on the input an analysis concludes with.
        enqueue: queues an analysis's input for the table to journal and handle.
    """

    def __init__(
        self,
        advisor: Advisor | None,
        *,
        shoe_count: Callable[[], ShoeCount | None],
        clock: Callable[[], float],
        enqueue: Callable[[Input], None],
    ) -> None:
        self._advisor = advisor
        self._shoe_count = shoe_count
        self._clock = clock
        self._enqueue = enqueue
        #: The analysis runs here, never on the event loop nor on the journal's writer.
        self._analyst = ThreadPoolExecutor(max_workers=1, thread_name_prefix="round-analysis")
        self.analysing = False
        self._warmed_up: asyncio.Future[None] | None = None
        self.assessments = 0
        #: Assessments that failed (a bug in the advisor or the analysis), logged each time.
        self.analyses_failed = 0

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The table took an input (live or replayed); ``state`` is its snapshot after it."""
        if self._advisor is not None:
            self._advisor.observe(event, state)

    async def warm_up(self) -> None:
        """Before the first input: the advisor's warm-up, on the analysis thread (once).

        The first assessment of a process would otherwise fold the analyser's tables and
        compute the shuffle limits (about 0.3 s of the interpreter) while the first rounds
        are dealt, and their cards' events would wait for it.
        """
        if self._advisor is None:
            return
        if self._warmed_up is None:
            loop = asyncio.get_running_loop()
            self._warmed_up = loop.run_in_executor(self._analyst, self._advisor.warm_up)
        await asyncio.shield(self._warmed_up)

    def assess_if_due(self) -> None:
        """Between rounds: analyse the shoe for the next round on the analysis thread.

        One analysis at a time: another falls due when its input is handled, if the table
        moved on meanwhile. The odds are advice: a bug in the advisor is logged, as a failed
        analysis is, and play goes on without them.
        """
        advisor = self._advisor
        if advisor is None or self.analysing:
            return
        try:
            request = advisor.request(self._shoe_count())  # the one test of "due"
        except Exception as error:  # noqa: BLE001 - see above
            self.analyses_failed += 1
            _LOG.error("round analysis failed", error=describe_failure(error))
            return
        if request is None:
            return
        self.analysing = True
        loop = asyncio.get_running_loop()
        pending = loop.run_in_executor(self._analyst, analyse_request, request)
        pending.add_done_callback(self._analysed)

    def _analysed(self, done: asyncio.Future[Analysis]) -> None:
        self.analysing = False
        if done.cancelled():
            return
        error = done.exception()
        if error is not None:  # a bug in the analysis must not stop the table
            self.analyses_failed += 1
            _LOG.error("round analysis failed", error=describe_failure(error))
            return
        assert self._advisor is not None
        event = self._advisor.conclude(done.result(), at=self._clock())
        if event is None:
            self.assess_if_due()
            return
        self.assessments += 1
        self._enqueue(event)

    def shutdown(self) -> None:
        """Stop the analysis thread; an analysis not yet started is dropped."""
        self._analyst.shutdown(wait=True, cancel_futures=True)
