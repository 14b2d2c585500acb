# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who the table service tells each journaled input, with its journal row and its messages.

Runtime helper of ``runtime/service.py``. A live input is told once its messages are out (the
card path never waits for an observer); an input replayed from the journal on start is told at
once, so an observer (the recall book) knows the rounds before a restart. An observer that
raises is logged and counted; the table goes on (an observer is a view of the table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import structlog

from table_controller.contract.outgoing import OutgoingMessage
from table_controller.procedure.inputs import Input
from table_controller.runtime.deferred_log import describe_failure

_LOG = structlog.get_logger("table_controller.service")

#: Told each journaled input: the input, its journal row, its time stamp, its messages.
InputObserver: TypeAlias = Callable[[Input, int, str, Sequence[OutgoingMessage]], None]


class InputObservers:
    """The observers, and the live input waiting to be told to them."""

    def __init__(self) -> None:
        self.observers: list[InputObserver] = []
        self._waiting: tuple[Input, int, str, Sequence[OutgoingMessage]] | None = None
        #: Observer calls that raised since start.
        self.failures = 0

    def handled(
        self, event: Input | None, seq: int, ts: str, messages: Sequence[OutgoingMessage],
        *, live: bool,
    ) -> None:  # fmt: skip
        """An input was handled: told now (a replay), or kept for :meth:`tell` (live)."""
        if event is None or not self.observers:
            return
        self._waiting = (event, seq, ts, messages)
        if not live:
            self.tell()

    def tell(self) -> None:
        """Tell the observers the input kept, if any."""
        waiting, self._waiting = self._waiting, None
        if waiting is None:
            return
        for observer in self.observers:
            try:
                observer(*waiting)
            except Exception as error:  # noqa: BLE001 - a view of the table, not the table
                self.failures += 1
                _LOG.critical(
                    "input observer failed", row=waiting[1], error=describe_failure(error)
                )
