# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table service's observers (:class:`~.service_ports.TableObserver`), told what it does.

Runtime helper of ``runtime/service.py``. Each message is told as it is handed to the sink. An
input is told with its journal row, time stamp and messages: a live one once its messages are
out (the card path never waits for an observer), one replayed from the journal on start at
once, so an observer (the recall book) knows the rounds before a restart. The recall book is
told first, then the observers in the order given. An observer that raises while told an input
or the journal is logged (an input's is counted); the table goes on (an observer is a view of
the table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import structlog

from table_controller.contract import JournalRefusal, OutgoingMessage
from table_controller.procedure import Input
from table_controller.runtime.deferred_log import describe_failure
from table_controller.runtime.service_ports import HandledInput, TableObserver

_LOG = structlog.get_logger("table_controller.service")

#: Told each journaled input: the input, its journal row, its time stamp, its messages.
InputObserver: TypeAlias = Callable[[Input, int, str, Sequence[OutgoingMessage]], None]


class Observers:
    """The observers, the recall book's hook, and the live input waiting to be told to them."""

    def __init__(self, observers: Sequence[TableObserver], *, recall: InputObserver) -> None:
        self._observers = tuple(observers)
        self._recall = recall
        self._waiting: tuple[Input, int, str, Sequence[OutgoingMessage], bool] | None = None
        #: Calls told an input that raised, since start.
        self.failures = 0

    def published(self, messages: Sequence[OutgoingMessage], *, live: bool) -> None:
        """Messages handed to the sink, told one by one."""
        observers = self._observers
        for message in messages:
            for observer in observers:
                observer.on_message(message, live=live)

    def journal(self, refusal: JournalRefusal | None) -> None:
        """The journal refuses writes (why), or records again (None)."""
        for observer in self._observers:
            try:
                observer.on_journal(refusal)
            except Exception as error:  # noqa: BLE001 - a screen must never stop the table
                _LOG.error("a screen could not show the journal", error=describe_failure(error))

    def handled(
        self, event: Input | None, seq: int, ts: str, messages: Sequence[OutgoingMessage],
        *, live: bool,
    ) -> None:  # fmt: skip
        """An input was handled: told now (a replay), or kept for :meth:`tell` (live)."""
        if event is None:
            return
        self._waiting = (event, seq, ts, messages, live)
        if not live:
            self.tell()

    @property
    def waiting(self) -> bool:
        """Whether a live input is kept for :meth:`tell`."""
        return self._waiting is not None

    def tell(self, elapsed_s: float | None = None) -> None:
        """Tell the input kept, if any (``elapsed_s``: since the shoe link delivered it)."""
        waiting, self._waiting = self._waiting, None
        if waiting is None:
            return
        event, seq, ts, messages, live = waiting
        try:
            self._recall(event, seq, ts, messages)
        except Exception as error:  # noqa: BLE001 - a view of the table, not the table
            self._failed(seq, error)
        if not self._observers:
            return
        handled = HandledInput(event, seq, ts, messages, live, elapsed_s)
        for observer in self._observers:
            try:
                observer.on_input(handled)
            except Exception as error:  # noqa: BLE001 - a view of the table, not the table
                self._failed(seq, error)

    def _failed(self, seq: int, error: Exception) -> None:
        self.failures += 1
        _LOG.critical("input observer failed", row=seq, error=describe_failure(error))
