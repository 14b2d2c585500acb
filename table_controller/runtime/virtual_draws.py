# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A virtual table's cards: one draw at a time, while the burn or the round expects a card."""

from __future__ import annotations

from collections.abc import Callable

import structlog

from table_controller.contract import TableSnapshot
from table_controller.procedure import Input, RuntimeFailed, TableProcedure
from table_controller.runtime.deferred_log import describe_failure
from table_controller.runtime.service_ports import CardSource

_LOG = structlog.get_logger("table_controller.service")


class VirtualDraws:
    """Draws from a card source; the next draw waits until the last one was taken.

    Args:
        source: the virtual table's cards; None for a table with a reader (or none).
        clock: monotonic seconds, stamped on each draw.
    """

    def __init__(self, source: CardSource | None, *, clock: Callable[[], float]) -> None:
        self._source = source
        self._clock = clock
        self._waiting = False

    @property
    def virtual(self) -> bool:
        """Whether the table draws its own cards (``--card-source rng``): it has no reader."""
        return self._source is not None

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The table took an input; ``state`` is its snapshot after it."""
        if self._source is not None:
            self._source.observe(event, state)

    def taken(self) -> None:
        """The last draw was handled (or failed): the next one may be drawn."""
        self._waiting = False

    def draw(self, procedure: TableProcedure, after_row: Callable[[], int]) -> Input | None:
        """The next draw to queue, if the table expects a card and no draw waits; else None.

        A draw that raises gives a ``RuntimeFailed`` in its place (``after_row``: the journal
        row it follows): the table faults there, live and in every replay, rather than the
        service stopping at each start.
        """
        if self._source is None or self._waiting or not procedure.expects_card:
            return None
        state = procedure.snapshot()
        event: Input
        try:
            event = self._source.draw(state, at=self._clock())
        except Exception as error:  # noqa: BLE001 - a bug in the card source holds the table
            failure = describe_failure(error)
            after = after_row()
            _LOG.critical("card source failed: table held", after_row=after, error=failure)
            message = f"the card source could not draw after journal row {after}: {failure}"
            event = RuntimeFailed(at=self._clock(), message=message)
        self._waiting = True
        return event
