# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's reads of the ingest's database, on SQLite and PostgreSQL, from a real table.

Table ``V1`` deals a shoe with a void and corrections (``tests/support/ingest_table.py``); its
messages are stored by the ingest's own store; the floor's page of the table must show each
round as the table's journal replayed says, every bet's settlement exact, and every void and
correction with who made it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from table_controller.floor.records import DatabaseUnavailable, FloorRecords, fraction_text
from table_controller.ingest.checked_messages import Received
from table_controller.ingest.store import IngestStore
from tests.support.ingest_table import play_table, replayed_rounds
from tests.support.ports import free_port


async def test_a_tables_page_shows_its_rounds_as_the_journal_says(
    database_url: str, tmp_path: Path
) -> None:
    played = await play_table(tmp_path)
    store = await IngestStore.open(database_url)
    try:
        await store.store_batch(
            [Received(topic, payload, None) for topic, payload in played.messages]
        )
    finally:
        await store.close()
    records = FloorRecords(database_url)
    try:
        assert await records.known("V1")
        assert not await records.known("V2")
        page = await records.table_page("V1")
        assert await records.open_alarms(since=datetime(2000, 1, 1, tzinfo=UTC)) == {}
    finally:
        await records.close()
    expected = await replayed_rounds(played.journal)
    rounds = {row["round_id"]: row for row in page["rounds"]}
    assert [row["round_no"] for row in page["rounds"]] == sorted(
        (row["round_no"] for row in page["rounds"]), reverse=True
    )
    assert set(rounds) == set(expected)
    for round_id, want in expected.items():
        shown = rounds[round_id]
        assert shown["status"] == want["status"], round_id
        if want["status"] == "voided":
            assert shown["settlement"] == {}
            continue
        assert (shown["winner"], shown["player_cards"], shown["banker_cards"]) == (
            want["winner"],
            want["player_cards"],
            want["banker_cards"],
        )
        assert shown["settlement"] == {
            bet: None if value is None else fraction_text(value)
            for bet, value in want["settlement"].items()
        }
    corrected = [version for version in rounds["S-A-5"]["versions"] if version["kind"] != "result"]
    # Who made each change: the pit's operator (given straight to the service, no supervisor).
    assert [(v["kind"], v["correction_no"], v["operator"]) for v in corrected] == [
        ("corrected", 1, "pit"),
        ("corrected", 2, "pit"),
    ]
    changed = [(v["kind"], v["operator"]) for v in rounds["S-A-7"]["versions"]]
    assert changed == [("result", None), ("corrected", "pit"), ("voided", "pit")]
    assert rounds["S-A-7"]["versions"][-1]["void_reason"] == "supervisor"


async def test_a_database_that_does_not_answer_is_one_line(tmp_path: Path) -> None:
    nowhere = FloorRecords(f"postgresql://floor@127.0.0.1:{free_port()}/none")
    empty = FloorRecords(f"sqlite:///{tmp_path / 'empty.sqlite'}")
    try:
        with pytest.raises(DatabaseUnavailable, match=r"^\w+Error: ") as refused:
            await nowhere.check()
        assert "\n" not in str(refused.value)
        with pytest.raises(DatabaseUnavailable, match="ingest's tables are not there yet"):
            await empty.table_page("T1")
    finally:
        await nowhere.close()
        await empty.close()
