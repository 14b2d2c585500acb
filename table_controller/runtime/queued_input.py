# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What waits in the table service's queue: one input (or audit row) to record and handle."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from drivers.events import Delivery
from table_controller.contract.payloads.controller import CommandReply
from table_controller.procedure.inputs import Input


@dataclass(slots=True)
class QueuedInput:
    """One input waiting to be recorded and handled."""

    row_type: str
    record: dict[str, object]
    event: Input | None
    delivery: Delivery | None = None
    command_id: str | None = None
    done: asyncio.Future[dict[str, object]] | None = None
    #: Drawn by the card source (a virtual table): the next draw waits until this one is taken.
    drawn: bool = False
    #: When the shoe link delivered it (the service's clock): the start of card-to-prompt latency.
    received_at: float | None = None
    #: Audit rows recorded together, in one transaction, in place of ``record``: the answers
    #: to many commands at once (those refused ``overloaded``).
    rows: list[dict[str, object]] | None = None
    #: An audit row's reply given without the procedure: published under the row, and given
    #: to the submitter (the row may hold only its seal: a ``recall``'s).
    reply: CommandReply | None = None
    #: A ``recall`` answered when its turn comes (its id and the rounds asked): the recall book
    #: is read then, as the journal's rows before it left it, so a replay reads the same.
    recall: tuple[str, int] | None = None
