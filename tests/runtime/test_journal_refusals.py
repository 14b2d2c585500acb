# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The journal on a disk that is really full: the cause named, the table held, commands refused.

A real journal on a tmpfs filled to its last byte (``tests/support/small_disk.py``): SQLite gets
``ENOSPC`` from the kernel and says ``SQLITE_FULL``, as on the table's own disk. The service
runs on it with an in-memory shoe link (``tests/support/links.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from functools import partial

import pytest
from structlog.testing import capture_logs

from drivers.events import CardSeen, Delivery
from drivers.srp.constants import Lamp
from table_controller.contract.envelope import fields_of
from table_controller.contract.journal_refusal import JournalRefusal
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.history.pace import Pace
from table_controller.mqtt.outbox import Outbox, OutboxError, OutboxMessage
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal.journal import Journal, JournalWriteError
from table_controller.runtime.journal.writer import OUTAGE_KEY
from table_controller.runtime.service import TableService
from table_controller.runtime.service_ports import HandledInput
from tests.support.links import MemoryLink, MemorySink
from tests.support.small_disk import (
    SmallDisk,
    pin_the_log,
    small_disk,
    write_to_the_end_of_the_log,
)


@pytest.fixture
def disk() -> Iterator[SmallDisk]:
    with small_disk("tmpfs") as mounted:
        yield mounted


def new_shoe(command_id: str) -> dict[str, object]:
    return {"command": "new_shoe", "id": command_id, "operator": "dealer", "args": {}}


async def refused_again(service: TableService, n: int) -> None:
    """A command the table refuses (a round it never dealt): one more row in the journal."""
    args = {"round_id": "S-none-1"}
    command = {"command": "void_round", "id": f"v-{n}", "operator": "sup", "args": args}
    assert not (await service.submit(command))["ok"]


class Unrecorded:
    """Where the service publishes the replies it could not record (the MQTT link's place)."""

    def __init__(self) -> None:
        self.messages: list[OutgoingMessage] = []

    def publish_unrecorded(self, message: OutgoingMessage) -> None:
        self.messages.append(message)


class Table:
    """A running service on the small disk, what it told its screens, and what it published.

    The table is one of its service's observers, as a screen is.
    """

    def __init__(self, journal: Journal) -> None:
        self.link = MemoryLink(journal)
        self.sink = MemorySink()
        self.unrecorded = Unrecorded()
        self.shown: list[JournalRefusal | None] = []
        self.changed = asyncio.Event()
        self.service = TableService(
            procedure=TableProcedure(VARIANTS["commission"], table_id="T07"),
            journal=journal,
            sink=self.sink,
            pace=Pace(),
            observers=[self],
            unrecorded=self.unrecorded,
            link=self.link,
        )

    def on_journal(self, refusal: JournalRefusal | None) -> None:
        self.shown.append(refusal)
        self.changed.set()

    def on_message(self, message: OutgoingMessage, *, live: bool) -> None:
        del message, live  # the sink keeps them

    def on_input(self, handled: HandledInput) -> None:
        del handled

    async def until_shown(self, count: int) -> None:
        async with asyncio.timeout(10):
            while len(self.shown) < count:
                await self.changed.wait()
                self.changed.clear()


@asynccontextmanager
async def running_on(disk: SmallDisk) -> AsyncIterator[tuple[Table, Journal]]:
    with Journal.open(disk.path / "T07.journal", table_id="T07") as journal:
        table = Table(journal)
        task = asyncio.create_task(table.service.run())
        try:
            yield table, journal
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task


async def test_a_write_on_a_full_disk_names_sqlites_cause_not_a_failed_rollback(
    disk: SmallDisk,
) -> None:
    path = disk.path / "T07.journal"
    opened = Outbox.open(path, clock=lambda: datetime(2026, 11, 29, 12, tzinfo=UTC))
    with Journal.open(path, table_id="T07") as journal, opened as outbox:

        async def append(n: int) -> None:
            journal.append("input", {"n": n}, ts_utc="2026-11-29T12:00:00.000Z", monotonic_ns=n)

        with pin_the_log(path):
            await write_to_the_end_of_the_log(path, append)
            next_seq = journal.head[0] + 1
            disk.fill()
            with pytest.raises(JournalWriteError) as refused:
                journal.append("input", {"n": 0}, ts_utc="2026-11-29T12:00:01.000Z", monotonic_ns=0)
            with pytest.raises(OutboxError) as not_stored:
                outbox.add([OutboxMessage(key="1.0", topic="t", message={"seq": 0}, retain=False)])
            disk.free()
        error = refused.value
        assert error.reason == "database or disk is full"
        assert error.code == "SQLITE_FULL"
        assert error.disk_full
        assert error.free_bytes == 0
        assert error.path == path
        assert str(error) == (
            f"{path}: cannot record input {next_seq}: database or disk is full"
            " (SQLITE_FULL; 0 bytes free on its disk)"
        )
        assert "database or disk is full" in str(not_stored.value)
        assert "rollback" not in str(not_stored.value)
        # Nothing half-written: the same input is recorded once space is back.
        assert journal.append("input", {"n": 0}, ts_utc="t", monotonic_ns=0) == next_seq
        assert journal.verify().ok


async def test_a_full_disk_holds_the_table_refuses_commands_at_once_and_resumes(
    disk: SmallDisk,
) -> None:
    async with running_on(disk) as (table, journal):
        service = table.service
        assert (await service.submit(new_shoe("c-1")))["ok"]
        with pin_the_log(journal.path), capture_logs() as logs:
            await write_to_the_end_of_the_log(journal.path, partial(refused_again, service))
            disk.fill()
            # A card and a command arrive together: the card is taken first, the journal
            # refuses it, and the command waiting behind it is answered at once.
            await table.link.events.put(CardSeen(card="5H", delivery=Delivery(epoch=1, seq=1)))
            waiting = asyncio.create_task(service.submit(new_shoe("c-2")))
            async with asyncio.timeout(5):
                reply = await waiting
            assert reply["error"] == "journal_unavailable"
            assert reply["command"] == "new_shoe"
            await table.until_shown(1)
            refusal = table.shown[0]
            assert refusal is not None
            assert refusal.disk_full
            assert refusal.cause.startswith("database or disk is full (SQLITE_FULL")
            assert refusal == service.journal_refusal
            assert table.link.lamps[-1] is Lamp.HOLD
            assert table.link.confirmed == []  # the card is not acknowledged
            # A command while held: answered at once, with why, recorded nowhere.
            again = await service.submit(new_shoe("c-3"))
            assert again == {
                "id": "c-3",
                "ok": False,
                "error": "journal_unavailable",
                "message": refusal.message,
                "command": "new_shoe",
            }
            published = [fields_of(m.payload) for m in table.unrecorded.messages]
            assert [reply["id"] for reply in published] == ["c-2", "c-3"]
            disk.free()
            await table.until_shown(2)
        assert table.shown[1] is None
        assert service.journal_refusal is None
        await table.link.wait_until(lambda: len(table.link.confirmed) == 1)
        assert (await service.submit(new_shoe("c-3")))["error"] == "wrong_phase"  # taken now
        rows = list(journal.rows())
        assert journal.verify().ok
    refusals = [line for line in logs if line["event"].startswith("journal refuses")]
    assert len(refusals) == 1, logs
    assert refusals[0]["code"] == "SQLITE_FULL"
    assert refusals[0]["journal"] == str(journal.path)
    outage = [row for row in rows if OUTAGE_KEY in row.payload]
    assert len(outage) == 1
    assert outage[0].payload[OUTAGE_KEY]["commands_refused"] == 2
    assert outage[0].payload[OUTAGE_KEY]["cause"] == "database or disk is full"
    # The outage's row comes before the card that waited for it; the refused commands
    # left no row.
    card = next(row for row in rows if row.payload.get("card") == "5H")
    assert outage[0].seq == card.seq - 1
    recorded = [row.payload.get("id") for row in rows if row.payload.get("command") == "new_shoe"]
    assert recorded == ["c-1", "c-3"]


async def test_a_command_first_to_find_the_disk_full_is_refused_and_the_hold_still_ends(
    disk: SmallDisk,
) -> None:
    """No card waits: the writer's own retries find the space back."""
    async with running_on(disk) as (table, journal):
        service = table.service
        with pin_the_log(journal.path):
            await write_to_the_end_of_the_log(journal.path, partial(refused_again, service))
            disk.fill()
            async with asyncio.timeout(5):
                reply = await service.submit(new_shoe("c-1"))
            assert reply["error"] == "journal_unavailable"
            await table.until_shown(1)
            disk.free()
            await table.until_shown(2)
        assert (await service.submit(new_shoe("c-1")))["ok"]  # the refused id is not kept


async def test_a_table_stopped_while_its_disk_is_full_stops_and_leaves_nothing_running(
    disk: SmallDisk, no_leaks: None
) -> None:
    """Its retries end with it; the card that waited is not recorded, nor acknowledged."""
    del no_leaks
    with Journal.open(disk.path / "T07.journal", table_id="T07") as journal:
        table = Table(journal)
        task = asyncio.create_task(table.service.run())
        assert (await table.service.submit(new_shoe("c-1")))["ok"]
        with pin_the_log(journal.path):
            await write_to_the_end_of_the_log(journal.path, partial(refused_again, table.service))
            head = journal.head[0]
            disk.fill()
            await table.link.events.put(CardSeen(card="5H", delivery=Delivery(epoch=1, seq=1)))
            await table.until_shown(1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            disk.free()
        assert journal.head[0] == head
        assert table.link.confirmed == []


async def test_a_recall_on_a_full_disk_is_answered_at_once_from_the_book_recorded_nowhere(
    disk: SmallDisk,
) -> None:
    async with running_on(disk) as (table, journal):
        service = table.service
        assert (await service.submit(new_shoe("c-1")))["ok"]
        with pin_the_log(journal.path):
            await write_to_the_end_of_the_log(journal.path, partial(refused_again, service))
            disk.fill()
            # Behind a card the journal refuses, then while the table is held.
            await table.link.events.put(CardSeen(card="5H", delivery=Delivery(epoch=1, seq=1)))
            waiting = asyncio.create_task(service.answer_recall("r-1", 5))
            async with asyncio.timeout(5):
                behind = await waiting
            await table.until_shown(1)
            held = await service.answer_recall("r-2", 5)
            disk.free()
            await table.until_shown(2)
        rows = list(journal.rows())
    for reply, command_id in ((behind, "r-1"), (held, "r-2")):
        assert (reply["id"], reply["ok"], reply["command"]) == (command_id, True, "recall")
        steps = reply["between_rounds"]
        assert isinstance(steps, list)
        assert [step["kind"] for step in steps][:2] == ["command", "shoe_started"]
    published = [fields_of(m.payload) for m in table.unrecorded.messages]
    assert published == [behind, held]
    assert not [row for row in rows if "recall_answer" in row.payload]  # recorded nowhere
