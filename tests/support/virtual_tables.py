# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Virtual tables through the real service: the RNG card source deals, the test commands."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, Final

from table_controller.contract.envelope import fields_of
from table_controller.history.pace import Pace
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.card_source import RngCardSource
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.jsonl_sink import JsonLinesSink
from table_controller.runtime.service import TableService
from table_controller.runtime.service_ports import Advisor, CardSource, TableObserver

#: Phases in which a virtual table draws its next card.
ASKING: Final = frozenset({"burn_card", "burning", "dealing"})
#: How long a table must stay without asking for a card to be waiting for a command.
QUIET_S: Final = 0.1


def virtual_service(
    journal: Journal,
    log: Path | JsonLinesSink,
    variant: str = "mini",
    seed: int = 7,
    *,
    betting_phase: bool = True,
    source: CardSource | None = None,
    advisor: Advisor | None = None,
    observers: Sequence[TableObserver] = (),
) -> TableService:
    """Table ``V1`` dealing from a seeded RNG source, publishing to the events log ``log``.

    A test that breaks a part passes its own: a sink for ``log``, a card ``source`` in place of
    the seeded one, an ``advisor``; ``observers`` are the service's.
    """
    procedure = TableProcedure(VARIANTS[variant], table_id="V1", betting_phase=betting_phase)
    sink = (
        log
        if isinstance(log, JsonLinesSink)
        else JsonLinesSink(log, table_id="V1", topic_root="baccarat/tables/V1")
    )
    if source is None:
        source = RngCardSource(VARIANTS[variant], rng=random.Random(seed))
    return TableService(
        procedure=procedure,
        journal=journal,
        sink=sink,
        pace=Pace(),
        observers=observers,
        card_source=source,
        advisor=advisor,
    )


@contextlib.asynccontextmanager
async def running(service: TableService) -> AsyncIterator[TableService]:
    """The service's loop running for the block, cancelled after it."""
    task = asyncio.create_task(service.run())
    try:
        yield service
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def command(
    service: TableService, name: str, number: int, **args: object
) -> dict[str, object]:
    """Give the pit's command ``c-NUMBER``; its reply, which must be ok."""
    reply = await service.submit(
        {"command": name, "id": f"c-{number}", "operator": "pit", "args": args}
    )
    assert reply["ok"], reply
    return reply


async def refused(service: TableService, name: str, number: int) -> str:
    """Give the pit's command ``c-NUMBER``, which must be refused; the reason."""
    reply = await service.submit({"command": name, "id": f"c-{number}", "operator": "pit"})
    assert not reply["ok"], reply
    return str(reply["error"])


def state_of(service: TableService) -> dict[str, Any]:
    """The table's ``state`` as it is published (JSON data)."""
    return fields_of(service.procedure.snapshot().state)


async def settle(service: TableService) -> dict[str, Any]:
    """Wait until the virtual table has dealt the round (its draws are queued inputs)."""
    async with asyncio.timeout(10):
        while service.procedure.snapshot().card_wanted or service.queue_depth:  # noqa: ASYNC110 - polling the table state
            await asyncio.sleep(0.001)
    return state_of(service)


async def quiet(service: TableService) -> dict[str, Any]:
    """Wait until the table waits for a command: no burn or round asks for a card, for 0.1 s.

    A virtual table's draw is taken off the queue before the card is handled, so an empty
    queue alone does not say that nothing more will come.
    """
    async with asyncio.timeout(10):
        calm_since: float | None = None
        loop = asyncio.get_running_loop()
        while calm_since is None or loop.time() - calm_since < QUIET_S:
            asking = service.queue_depth or state_of(service)["phase"] in ASKING
            calm_since = None if asking else calm_since or loop.time()
            await asyncio.sleep(0.005)
    return state_of(service)


async def released_and_played(service: TableService, first: int, *, betting: bool) -> None:
    """The supervisor voids the faulted shoe; a new shoe then plays a round."""
    await command(service, "void_shoe", first)
    assert (await quiet(service))["phase"] == "shoe_over"
    await command(service, "new_shoe", first + 1, shoe_id="M-2")
    if betting:
        await command(service, "open_betting", first + 2)
        await command(service, "close_betting", first + 3)
    else:
        await command(service, "deal", first + 2)
    state = await quiet(service)
    assert (state["phase"], state["round_id"]) == ("between_rounds", "M-2-1"), state


def published(log: Path, kind: str) -> list[dict[str, Any]]:
    """The messages of type ``kind`` in the events log ``log``, in order."""
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    return [e["message"] for e in entries if e["message"]["type"] == kind]
