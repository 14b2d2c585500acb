# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
import sqlite3
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.runtime.journal import (
    DuplicateEventError,
    Journal,
    JournalCorruptError,
    JournalError,
    is_journal,
)
from tests.runtime.journal_files import rows_in_the_database_file


def fill(path: Path, count: int = 5) -> None:
    with Journal.open(path, table_id="T07") as journal:
        for i in range(count):
            journal.append(
                "card", {"card": f"{i + 1}H"}, ts_utc=f"2026-11-29T12:00:0{i}.000Z", monotonic_ns=i
            )


def test_appends_survive_reopening_and_the_chain_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    fill(path, 3)
    with Journal.open(path, table_id="T07") as journal:
        assert journal.head[0] == 3
        assert (
            journal.append("cut", {"cut": True}, ts_utc="2026-11-29T12:01:00.000Z", monotonic_ns=9)
            == 4
        )
        rows = list(journal.rows())
        assert [r.payload for r in rows] == [
            {"card": "1H"},
            {"card": "2H"},
            {"card": "3H"},
            {"cut": True},
        ]
        assert rows[3].prev_hash == rows[2].hash
        assert journal.verify().ok


def test_wal_and_full_synchronous(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    with Journal.open(path) as journal:
        assert journal._connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal._connection.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_appends_never_checkpoint_and_checkpoint_copies_the_log(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    with Journal.open(path) as journal:
        journal.checkpoint()  # the tables, into the file
        assert rows_in_the_database_file(path, tmp_path / "empty.db") == 0
        # Well past SQLite's automatic checkpoint (1,000 pages of log): two pages an append.
        for i in range(600):
            journal.append("card", {"pad": "x" * 5000}, ts_utc="t", monotonic_ns=i)
        assert rows_in_the_database_file(path, tmp_path / "before.db") == 0
        journal.checkpoint()
        assert rows_in_the_database_file(path, tmp_path / "after.db") == 600
        assert journal.verify().ok


def test_a_repeated_event_id_is_refused_and_not_recorded(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "t.journal") as journal:
        journal.append("command", {"command": "deal"}, ts_utc="t", monotonic_ns=0, event_id="c-1")
        with pytest.raises(DuplicateEventError):
            journal.append(
                "command", {"command": "deal"}, ts_utc="t", monotonic_ns=1, event_id="c-1"
            )
        assert journal.head[0] == 1
        assert journal.find_event("c-1") == 1
        assert journal.append("card", {"card": "AS"}, ts_utc="t", monotonic_ns=2) == 2
        assert journal.verify().ok


def tamper(path: Path, sql: str) -> None:
    connection = sqlite3.connect(path)
    connection.execute(sql)
    connection.commit()
    connection.close()


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        (
            'UPDATE events SET payload = \'{"card":"9S"}\' WHERE seq = 3',
            "row 3: hash does not match",
        ),
        ("DELETE FROM events WHERE seq = 2", "row 3: expected seq 2"),
        ("DELETE FROM events WHERE seq = 5", None),  # a cut tail is only seen against a witness
        (
            "INSERT INTO events VALUES (6, NULL, 't', 0, 'card', '{}', 'x', 'y')",
            "row 6: prev_hash does not match",
        ),
        ("UPDATE events SET seq = seq + 10 WHERE seq = 2", "expected seq 2"),
    ],
)
def test_tampering_is_detected(tmp_path: Path, sql: str, problem: str | None) -> None:
    path = tmp_path / "t.journal"
    fill(path)
    with Journal.open(path) as journal:
        witness = journal.head
    tamper(path, sql)
    with Journal.open(path, verify=False) as journal:
        report = journal.verify()
    if problem is None:
        assert report.ok
        assert (report.head_seq, report.head_hash) != witness
    else:
        assert any(problem in p for p in report.problems), report.problems
        with pytest.raises(JournalCorruptError, match=problem):
            Journal.open(path)


def test_a_journal_of_another_table_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    fill(path, 1)
    with pytest.raises(JournalError, match="journal of table 'T07', not 'T08'"):
        Journal.open(path, table_id="T08")


def test_garbage_file_is_not_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "junk"
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    assert not is_journal(path)
    with pytest.raises(JournalCorruptError):
        Journal.open(path)


def test_backup_is_a_verified_journal(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    fill(path)
    with Journal.open(path) as journal:
        journal.backup(tmp_path / "copy.journal")
        head = journal.head
    with Journal.open(tmp_path / "copy.journal") as copy:
        assert copy.head == head


def test_cli_verify_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.journal"
    fill(path, 2)
    assert main(["journal", "verify", str(path)]) == 0
    assert "ok, 2 inputs" in capsys.readouterr().out
    assert main(["journal", "export", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        '{"card":"1H","ts":"2026-11-29T12:00:00.000Z"}',
        '{"card":"2H","ts":"2026-11-29T12:00:01.000Z"}',
    ]
    tamper(path, "UPDATE events SET type = 'cut' WHERE seq = 1")
    assert main(["journal", "verify", str(path)]) == 1
    assert "BROKEN chain" in capsys.readouterr().out
    (tmp_path / "plain.txt").write_text("hello")
    assert main(["journal", "verify", str(tmp_path / "plain.txt")]) == 1
    assert "not a table-controller journal" in capsys.readouterr().err


def test_verify_and_export_only_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.journal"
    fill(path, 3)
    with Journal.open(path) as live:  # the table still has it open, in WAL mode
        live.append("card", {"card": "9D"}, ts_utc="t", monotonic_ns=9)
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        assert main(["journal", "verify", str(path)]) == 0
        assert "ok, 4 inputs" in capsys.readouterr().out
        assert main(["journal", "export", str(path)]) == 0
        assert len(capsys.readouterr().out.splitlines()) == 4
        after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in before}
        assert after["t.journal"] == before["t.journal"]
        assert after["t.journal-wal"] == before["t.journal-wal"]
