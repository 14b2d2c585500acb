# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The shoe link's events into the table service's queue: inputs, audit rows, acknowledgements.

Runtime adapter. Each reader event is queued as what the table records of it (a procedure
input or an audit row) with its delivery, which the shoe is acknowledged for only once the
journal holds the row; rejected lines and warnings are only logged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import structlog

from drivers.events import LineRejected, ReaderEvent, ReaderWarning
from table_controller.procedure import input_to_record
from table_controller.runtime.journal.format import AUDIT_ROW, INPUT_ROW
from table_controller.runtime.reader_input import audit_record, reader_input
from table_controller.runtime.service_ports import QueuedInput, ShoeLink

_LOG = structlog.get_logger("table_controller.service")


async def feed_shoe(
    link: ShoeLink,
    queue: asyncio.Queue[QueuedInput],
    *,
    clock: Callable[[], float],
    note: Callable[[ReaderEvent], None],
) -> None:
    """Read the shoe link until it ends, queueing what the table records of each event.

    ``note`` hears every event first (the reader's state, the rejected lines' count).
    """
    async for event in link:
        note(event)
        now = clock()
        if isinstance(event, LineRejected):
            _LOG.warning("shoe line rejected", reason=event.reason, raw=event.raw[:80])
            continue
        if isinstance(event, ReaderWarning):
            _LOG.warning("shoe warning", code=event.code)
            continue
        delivery = getattr(event, "delivery", None)
        procedure_input = reader_input(event, now)
        if procedure_input is not None:
            record = input_to_record(procedure_input)
            await queue.put(
                QueuedInput(INPUT_ROW, record, procedure_input, delivery, received_at=now)
            )
            continue
        audit = audit_record(event)
        if audit is not None:
            _LOG.info("shoe reports", **audit)
            await queue.put(QueuedInput(AUDIT_ROW, audit, None, delivery))
        elif delivery is not None:
            await queue.put(
                QueuedInput(AUDIT_ROW, {"reader_event": type(event).__name__}, None, delivery)
            )
