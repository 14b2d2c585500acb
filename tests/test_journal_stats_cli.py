# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller journal stats`` over the journals of two tables a dealer worked at."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from table_controller.contract.codes import StaffRole
from table_controller.contract.payloads.round import RoundSettled
from table_controller.procedure.decisions import Publish
from table_controller.procedure.inputs import SignIn
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import input_to_record
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal.journal import Journal
from tests.support.dealing import dealer_inputs, seeded_shoe
from tests.support.table_process import table_controller

START = datetime(2026, 11, 2, 20, 0, tzinfo=UTC)


def journal_of(path: Path, table_id: str, seed: int, inputs: int) -> int:
    """A journal of D-1 dealing ``inputs`` inputs of a seeded shoe; the rounds it settled."""
    procedure = TableProcedure(VARIANTS["commission"], table_id=table_id)
    sign_in = SignIn(at=0.0, command_id="in", operator="display", staff_id="D-1", name="Ann",
                     role=StaffRole.DEALER)  # fmt: skip
    settled = 0
    with Journal.open(path, table_id=table_id) as journal:
        events = dealer_inputs(procedure, iter(seeded_shoe(seed)))
        for number in range(inputs):
            event = sign_in if number == 0 else next(events)
            decisions = procedure.handle(event)
            settled += sum(
                isinstance(d, Publish) and isinstance(d.payload, RoundSettled) for d in decisions
            )
            stamp = (START + timedelta(seconds=5 * number)).isoformat(timespec="milliseconds")
            journal.append("input", input_to_record(event), ts_utc=stamp.replace("+00:00", "Z"),
                           monotonic_ns=number)  # fmt: skip
    return settled


async def test_a_dealer_at_two_tables_is_one_row_and_each_table_keeps_its_shoes(
    tmp_path: Path,
) -> None:
    first = journal_of(tmp_path / "A1.journal", "A1", seed=3, inputs=240)
    second = journal_of(tmp_path / "B1.journal", "B1", seed=4, inputs=160)
    files = [str(tmp_path / "A1.journal"), str(tmp_path / "B1.journal")]
    status, out, err = await table_controller(
        "journal", "stats", *files, "--by", "dealer", "--json"
    )
    assert status == 0, err
    rows = {row["key"]: row for row in json.loads(out)["groups"]}
    assert set(rows) == {"D-1"}  # signed in at each table's first input
    assert rows["D-1"]["rounds"] == first + second > 0
    assert rows["D-1"]["rounds_per_hour"] == round((first + second) * 3600 / (5 * 239 + 5 * 159), 1)
    status, out, err = await table_controller("journal", "stats", *files, "--by", "shoe", "--json")
    assert status == 0, err
    shoes = {row["key"]: row["rounds"] for row in json.loads(out)["groups"]}
    assert shoes == {"A1/S-1": first, "B1/S-1": second}
    status, out, _ = await table_controller("journal", "stats", files[0])
    assert status == 0
    assert out.splitlines()[1].split()[:2] == ["all", str(first)]


async def test_a_file_that_is_no_journal_stops_the_report_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a journal\n")
    status, _, err = await table_controller("journal", "stats", str(tmp_path / "notes.txt"))
    assert status == 2
    assert len(err.strip().splitlines()) == 1, err
