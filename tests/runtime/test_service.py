# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The service over a real journal and an in-memory shoe link: ordering, durability, recovery."""

from __future__ import annotations

import asyncio
import itertools
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from drivers.events import CardSeen, Delivery, ReaderHello
from drivers.srp.constants import Lamp
from table_controller.contract.codes import Lamp as ProcedureLamp
from table_controller.contract.envelope import fields_of
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.history.pace import Pace
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import input_from_record
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal.format import INPUT_ROW
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.jsonl_sink import JsonLinesSink
from table_controller.runtime.service import TableService
from table_controller.runtime.service_ports import Outlet
from tests.support.dealing import next_records, seeded_shoe
from tests.support.journal_files import execute_sql, rows_in_the_database_file
from tests.support.links import MemoryLink, MemorySink


def make_service(
    journal: Journal,
    sink: MemorySink | JsonLinesSink,
    link: MemoryLink | None = None,
    *,
    outlet: Outlet | None = None,
) -> TableService:
    procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
    return TableService(
        procedure=procedure,
        journal=journal,
        sink=sink,
        pace=Pace(),
        outlet=outlet,
        link=link,
        wall_clock=lambda: "2026-11-29T12:00:00.000Z",
    )


async def test_cards_are_journaled_before_they_are_acknowledged_and_checkpointed_after(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.journal"
    with Journal.open(path, table_id="T07") as journal:
        link = MemoryLink(journal)
        service = make_service(journal, MemorySink(), link)
        task = asyncio.create_task(service.run())
        try:
            assert (
                await service.submit(
                    {
                        "command": "new_shoe",
                        "id": "c-1",
                        "operator": "dealer",
                        "args": {"shoe_id": "S-1"},
                    }
                )
            )["ok"]
            await link.events.put(
                ReaderHello(
                    model="VS", firmware="1", serial="42", delivery=Delivery(epoch=1, seq=0)
                )
            )
            for seq, card in enumerate(["5H", "2C", "3D"], start=1):
                await link.events.put(CardSeen(card=card, delivery=Delivery(epoch=1, seq=seq)))
            await link.wait_until(lambda: len(link.confirmed) == 4)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task  # its end waits for the writer thread's queue
        # The appends never checkpoint (test_journal); the service did, between inputs.
        assert rows_in_the_database_file(path, tmp_path / "copy.db") == 5
        rows = list(journal.rows())
        # Each acknowledgement went out only once its row was in the journal.
        assert link.rows_at_confirm == [2, 3, 4, 5]
        assert [row.type for row in rows] == ["input", "audit", "input", "input", "input"]
        assert rows[1].payload == {"reader_hello": {"model": "VS", "firmware": "1", "serial": "42"}}
        assert Lamp.PLAYER in link.lamps  # burning: a card is expected


async def test_a_repeated_command_id_is_answered_again_not_carried_out_twice(
    tmp_path: Path,
) -> None:
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        sink = MemorySink()
        service = make_service(journal, sink)
        task = asyncio.create_task(service.run())
        try:
            command = {
                "command": "new_shoe",
                "id": "c-1",
                "operator": "dealer",
                "args": {"shoe_id": "S-1"},
            }
            first = await service.submit(command)
            again = await service.submit(command)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert first == again == {"id": "c-1", "ok": True, "command": "new_shoe"}
        rows = list(journal.rows())
        # The repeat is journaled as an answer, published again, and not carried out again.
        assert [row.type for row in rows] == ["input", "audit"]
        assert rows[1].payload == {"answer": first}
        assert [m.event_type for m in sink.messages].count("shoe_started") == 1
        replies = [fields_of(m.payload) for m in sink.messages if m.topic == "commands/replies"]
        assert replies == [first, first]


class StepSink(MemorySink):
    """A sink that notes, in the test's list of steps, each staging and each write."""

    def __init__(self, steps: list[str]) -> None:
        super().__init__()
        self.steps = steps

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        self.steps.append(f"staged {len(messages)}")

        def write() -> None:  # on the journal's writer thread
            self.steps.append("written")
            self.add(messages)

        return write


class StepOutlet:
    """An outlet that notes each ``let_out`` in the test's list of steps, or hangs there."""

    def __init__(self, steps: list[str]) -> None:
        self.steps = steps
        #: Hang in ``let_out`` (until the test stops the service).
        self.stuck = False
        self.letting_out = asyncio.Event()

    async def let_out(self) -> None:
        self.steps.append("let out")
        if self.stuck:
            self.letting_out.set()
            await asyncio.Event().wait()


async def test_a_cards_first_message_is_out_before_the_rest_of_its_work(tmp_path: Path) -> None:
    """The first message goes out, publishing gets its turns, and only then the rest."""
    steps: list[str] = []
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        link = MemoryLink(journal)
        sink = StepSink(steps)
        service = make_service(journal, sink, link, outlet=StepOutlet(steps))
        task = asyncio.create_task(service.run())
        try:
            new_shoe = {"command": "new_shoe", "id": "c-1", "operator": "d", "args": {}}
            assert (await service.submit(new_shoe))["ok"]
            hello = ReaderHello(
                model="VS", firmware="1", serial="4", delivery=Delivery(epoch=1, seq=0)
            )
            await link.events.put(hello)
            await link.wait_until(lambda: len(link.confirmed) == 1)
            async with asyncio.timeout(5):  # every write so far done before the card
                while steps.count("written") < sum(s.startswith("staged") for s in steps):  # noqa: ASYNC110
                    await asyncio.sleep(0.001)
            steps.clear()
            link.confirmed.clear()
            await link.events.put(CardSeen(card="5H", delivery=Delivery(epoch=1, seq=1)))
            await link.wait_until(lambda: len(link.confirmed) == 1)
            steps.append("acknowledged")
            async with asyncio.timeout(5):
                while "written" not in steps:  # noqa: ASYNC110 - the writer thread's turn
                    await asyncio.sleep(0.001)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
    burn = [m for m in sink.messages if m.key.startswith(f"{journal.head[0]}.")]
    assert len(burn) > 1, "a burn card has an event and a new state"
    assert steps[:3] == ["staged 1", "let out", f"staged {len(burn) - 1}"]
    # the outbox's copy and the shoe's acknowledgement come after the first message is out
    assert steps.index("written") > steps.index("let out")
    assert steps.index("acknowledged") > steps.index("let out")
    assert burn[0].event_type == "burn"


async def test_a_stop_while_the_first_message_is_let_out_still_writes_all_of_them(
    tmp_path: Path,
) -> None:
    steps: list[str] = []
    outlet = StepOutlet([])
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        link = MemoryLink(journal)
        sink = StepSink(steps)
        service = make_service(journal, sink, link, outlet=outlet)
        task = asyncio.create_task(service.run())
        try:
            new_shoe = {"command": "new_shoe", "id": "c-1", "operator": "d", "args": {}}
            assert (await service.submit(new_shoe))["ok"]
            outlet.stuck = True
            await link.events.put(CardSeen(card="5H", delivery=Delivery(epoch=1, seq=1)))
            async with asyncio.timeout(5):
                await outlet.letting_out.wait()
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        burn_row = journal.head[0]
    burn = [m for m in sink.messages if m.key.startswith(f"{burn_row}.")]
    assert len(burn) > 1
    assert steps[-4:] == ["staged 1", f"staged {len(burn) - 1}", "written", "written"]
    assert link.confirmed == [], "not acknowledged: the shoe sends the card again"


def play_whole_shoe(journal: Journal, seed: int) -> list[dict[str, object]]:
    """Record a whole shoe's inputs in the journal, as the service would; the state after each."""
    procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
    shoe = iter(seeded_shoe(seed))
    counter = itertools.count(2)
    records: list[dict[str, object]] = [
        {"command": "new_shoe", "id": "c-1", "operator": "dealer", "args": {"shoe_id": "S-1"}}
    ]
    states = []
    while records:
        record = records.pop(0)
        journal.append(INPUT_ROW, record, ts_utc="2026-11-29T12:00:00.000Z", monotonic_ns=0)
        event = input_from_record(
            record, default_at=0.0, default_command_id="x", default_operator="x"
        )
        procedure.handle(event)  # type: ignore[arg-type]
        state: dict[str, object] = dict(fields_of(procedure.snapshot().state))
        states.append(state)
        if not records:
            records = next_records(procedure.snapshot(), shoe, counter)
    return states


def test_recovery_after_a_crash_at_every_input_gives_the_same_state_and_messages(
    tmp_path: Path,
) -> None:
    full_path = tmp_path / "full.journal"
    with Journal.open(full_path, table_id="T07") as journal:
        states = play_whole_shoe(journal, seed=3)
    assert states[-1]["phase"] == "shoe_over"
    with Journal.open(full_path) as journal:
        full_sink = MemorySink()
        make_service(journal, full_sink).recover()
    cut_points = sorted(
        {1, 2, 5, 9, 15, 30, len(states) // 2, len(states) - 1, *range(60, len(states), 97)}
    )
    for cut in cut_points:
        path = tmp_path / f"cut-{cut}.journal"
        shutil.copy(full_path, path)
        execute_sql(path, "DELETE FROM events WHERE seq > ?", (cut,))
        with Journal.open(path) as journal:
            sink = MemorySink()
            service = make_service(journal, sink)
            assert service.recover() == cut
            assert fields_of(service.procedure.snapshot().state) == states[cut - 1], (
                f"state differs after {cut} inputs"
            )
            assert sink.messages == [
                m for m in full_sink.messages if int(m.key.split(".")[0]) <= cut
            ]


def test_jsonl_sink_replays_without_duplicates_and_keeps_seq(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        play_whole_shoe(journal, seed=5)
        log = tmp_path / "events.jsonl"
        first = JsonLinesSink(log, table_id="T07", topic_root="baccarat/tables/T07")
        make_service(journal, first).recover()
        first.close()
        lines = log.read_text().splitlines()
        # A crash lost the last 40 lines of the log: recovery writes exactly those again.
        log.write_text("\n".join(lines[:-40]) + "\n")
        second = JsonLinesSink(log, table_id="T07", topic_root="baccarat/tables/T07")
        make_service(journal, second).recover()
        second.close()
    assert log.read_text().splitlines() == lines
    assert '"type":"round_result"' in "".join(lines)


def test_every_lamp_the_procedure_decides_is_one_the_shoe_can_show() -> None:
    """The service turns the procedure's lamp into the shoe's by value: the two must agree."""
    assert [lamp.value for lamp in ProcedureLamp] == [lamp.value for lamp in Lamp]
