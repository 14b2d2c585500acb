# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
import itertools
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.mqtt.outbox import Outbox, OutboxMessage
from table_controller.runtime.clock import utc_now
from table_controller.runtime.journal.format import (
    AUDIT_ROW,
    INPUT_ROW,
    ZERO_GENESIS_HASH,
    DuplicateEventError,
    JournalCorruptError,
    JournalError,
    canonical_json,
    genesis_hash,
    row_hash,
)
from table_controller.runtime.journal.journal import Journal, check_file, is_journal
from tests.support.journal_files import execute_sql, rows_in_the_database_file


def fill(path: Path, count: int = 5) -> None:
    with Journal.open(path, table_id="T07") as journal:
        for i in range(count):
            journal.append(
                INPUT_ROW,
                {"card": f"{i + 1}H"},
                ts_utc=f"2026-11-29T12:00:0{i}.000Z",
                monotonic_ns=i,
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


def test_rows_appended_together_are_chained_like_single_ones(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    fill(path, 2)
    answers = [{"answer": {"id": f"c-{n}", "ok": False}} for n in range(3)]
    with Journal.open(path, table_id="T07") as journal:
        assert journal.append_all(AUDIT_ROW, answers, ts_utc="t", monotonic_ns=7) == [3, 4, 5]
        assert journal.head[0] == 5
        assert journal.append_all(AUDIT_ROW, [], ts_utc="t", monotonic_ns=8) == []
        assert journal.append("card", {"card": "AS"}, ts_utc="t", monotonic_ns=9) == 6
    with Journal.open(path, table_id="T07") as journal:  # reopened: the chain checks
        rows = list(journal.rows())
        assert [row.payload for row in rows[2:5]] == answers
        assert [(row.type, row.event_id) for row in rows[2:5]] == [(AUDIT_ROW, None)] * 3
        assert all(row.prev_hash == before.hash for before, row in itertools.pairwise(rows))
        assert journal.verify().ok


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
    execute_sql(path, sql)
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
    assert "ok: 2 rows (2 inputs, 0 audit rows)" in capsys.readouterr().out
    assert main(["journal", "export", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        '{"card":"1H","ts":"2026-11-29T12:00:00.000Z"}',
        '{"card":"2H","ts":"2026-11-29T12:00:01.000Z"}',
    ]
    execute_sql(path, "UPDATE events SET type = 'cut' WHERE seq = 1")
    assert main(["journal", "verify", str(path)]) == 1
    assert "BROKEN chain" in capsys.readouterr().out
    (tmp_path / "plain.txt").write_text("hello")
    assert main(["journal", "verify", str(tmp_path / "plain.txt")]) == 1
    assert "not a table-controller journal" in capsys.readouterr().err


def test_verify_and_export_only_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.journal"
    fill(path, 3)
    with Journal.open(path) as live:  # the table still has it open, in WAL mode
        live.append(INPUT_ROW, {"card": "9D"}, ts_utc="t", monotonic_ns=9)
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        assert main(["journal", "verify", str(path)]) == 0
        assert "ok: 4 rows (4 inputs, 0 audit rows)" in capsys.readouterr().out
        assert main(["journal", "export", str(path)]) == 0
        assert len(capsys.readouterr().out.splitlines()) == 4
        after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in before}
        assert after["t.journal"] == before["t.journal"]
        assert after["t.journal-wal"] == before["t.journal-wal"]


def verify_json(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    """``journal verify --json``: its exit status and its one JSON object (stdout, nothing else)."""
    status = main(["journal", "verify", "--json", str(path)])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1, lines
    summary: dict[str, Any] = json.loads(lines[0])
    return status, summary


def test_verify_counts_inputs_and_audit_rows_and_names_what_it_covers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.journal"
    fill(path, 3)
    with Journal.open(path, table_id="T07") as journal:
        journal.append(AUDIT_ROW, {"reader": "offline"}, ts_utc="t", monotonic_ns=9)
        head = journal.head
    assert main(["journal", "verify", str(path)]) == 0
    assert capsys.readouterr().out == (
        f"{path}: ok: 4 rows (3 inputs, 1 audit row) and table id 'T07' in the hash chain,"
        f" head seq 4 {head[1]}; not covered: the MQTT outbox\n"
    )
    assert verify_json(path, capsys) == (
        0,
        {
            "file": str(path),
            "ok": True,
            "fault": None,
            "message": "ok",
            "rows": 4,
            "inputs": 3,
            "audit_rows": 1,
            "table_id": "T07",
            "covered": ["rows", "table_id"],
            "not_covered": ["outbox"],
            "head": {"seq": 4, "hash": head[1]},
            "problems": [],
        },
    )


def test_an_edited_table_id_breaks_the_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.journal"
    fill(path, 2)
    execute_sql(path, "UPDATE meta SET value = 'T08' WHERE key = 'table_id'")
    problem = (
        "row 1: prev_hash does not match the chain's beginning for table id 'T08'"
        " (the metadata's table id or row 1 was edited)"
    )
    assert main(["journal", "verify", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{path}: {problem}",
        f"{path}: BROKEN chain (1 problems in 2 rows)",
    ]
    status, summary = verify_json(path, capsys)
    assert status == 1
    assert summary["fault"] == "chain_broken"
    assert summary["message"] == f"hash chain broken: {problem}"
    assert summary["problems"] == [problem]
    with pytest.raises(JournalCorruptError, match="table id 'T08'"):
        Journal.open(path, table_id="T08")


def test_a_removed_table_id_breaks_the_chain(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    fill(path, 2)
    execute_sql(path, "DELETE FROM meta WHERE key = 'table_id'")
    check = check_file(path)
    assert check.report is not None
    assert check.report.problems == (
        (
            "row 1: prev_hash does not match the chain's beginning for table id None"
            " (the metadata's table id or row 1 was edited)"
        ),
    )
    with pytest.raises(JournalError):  # nor is the table id taken again by a later start
        Journal.open(path, table_id="T07")


def test_the_chain_begins_at_the_table_id(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    fill(path, 1)
    with Journal.open(path) as journal:
        assert next(journal.rows()).prev_hash == genesis_hash("T07") != genesis_hash("T08")


def test_a_chain_from_the_zero_hash_verifies_but_does_not_cover_the_table_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.journal"
    Journal.open(path, table_id="T07").close()
    row = {"seq": 1, "event_id": None, "ts_utc": "t", "monotonic_ns": 0, "type": INPUT_ROW}
    payload = canonical_json({"card": "AS"})
    digest = row_hash(ZERO_GENESIS_HASH, {**row, "payload": payload})
    execute_sql(
        path,
        "INSERT INTO events VALUES"
        f" (1, NULL, 't', 0, 'input', '{payload}', '{ZERO_GENESIS_HASH}', '{digest}')",
    )
    with Journal.open(path, table_id="T07") as journal:  # still opens, and the chain goes on
        journal.append(INPUT_ROW, {"card": "KH"}, ts_utc="t", monotonic_ns=1)
    execute_sql(path, "UPDATE meta SET value = 'T08' WHERE key = 'table_id'")
    assert main(["journal", "verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ok: 2 rows (2 inputs, 0 audit rows) in the hash chain" in out
    assert "not covered: table id 'T08' (the chain begins at the zero hash), the MQTT outbox" in out
    status, summary = verify_json(path, capsys)
    assert (status, summary["covered"], summary["not_covered"]) == (
        0,
        ["rows"],
        ["outbox", "table_id"],
    )


def test_an_edited_outbox_row_is_outside_the_chain_and_verify_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.journal"
    fill(path, 2)
    with Outbox.open(path, clock=utc_now) as outbox:
        outbox.add([OutboxMessage(key="1:0", topic="baccarat/tables/T07/events/card", message={})])
    execute_sql(path, "UPDATE outbox SET payload = '{\"forged\":true}'")
    status, summary = verify_json(path, capsys)
    assert (status, summary["ok"], summary["not_covered"]) == (0, True, ["outbox"])
    assert main(["journal", "verify", str(path)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("not covered: the MQTT outbox")


def damage_a_page(path: Path) -> None:
    """Overwrite the b-tree header of a page in the middle of the events table."""
    with Journal.open(path, table_id="T07") as journal:
        for i in range(200):
            journal.append(INPUT_ROW, {"card": "AS", "pad": "x" * 300}, ts_utc="t", monotonic_ns=i)
        journal.checkpoint()
    page_size = 4096
    middle_page = path.stat().st_size // page_size // 2
    with path.open("r+b") as file:
        file.seek(middle_page * page_size)
        file.write(b"\xa5" * 64)


def test_a_damaged_page_is_named_in_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.journal"
    damage_a_page(path)
    assert main(["journal", "verify", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"table-controller journal: {path}: SQLite reports page ")
    assert " damaged: " in captured.err
    status, summary = verify_json(path, capsys)
    assert status == 1
    assert summary["fault"] == "corrupt"
    assert summary["message"].startswith("SQLite reports page ")
    assert (summary["ok"], summary["rows"], summary["head"]) == (False, None, None)
    assert summary["problems"] == [summary["message"]]
    with pytest.raises(JournalCorruptError, match="SQLite reports page"):
        Journal.open(path, table_id="T07")
    assert main(["journal", "export", str(path)]) == 1
    assert "SQLite cannot read the rows" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # replay names the damage too, no traceback
        main(["replay", "--inputs", str(path)])
    assert exited.value.code == 2
    assert "SQLite cannot read the rows" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("make", "fault", "message"),
    [
        (lambda path: None, "missing", "no such file"),
        (lambda path: path.mkdir(), "unreadable", "cannot read the file: Is a directory"),
        (
            lambda path: path.write_text("hello"),
            "not_a_journal",
            "not a table-controller journal (not an SQLite file)",
        ),
        (
            lambda path: sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close(),
            "not_a_journal",
            "not a table-controller journal (an SQLite file: no such table: meta)",
        ),
        (
            lambda path: path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000),
            "corrupt",
            "SQLite cannot read the file: file is not a database",
        ),
    ],
)
def test_verify_json_names_every_fault(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    make: Any,
    fault: str,
    message: str,
) -> None:
    path = tmp_path / "t.journal"
    make(path)
    status, summary = verify_json(path, capsys)
    assert status == 1
    assert summary == {
        "file": str(path),
        "ok": False,
        "fault": fault,
        "message": message,
        "rows": None,
        "inputs": None,
        "audit_rows": None,
        "table_id": None,
        "covered": [],
        "not_covered": ["outbox"],
        "head": None,
        "problems": [message],
    }
    assert main(["journal", "verify", str(path)]) == 1
    assert capsys.readouterr().err == f"table-controller journal: {path}: {message}\n"


def test_a_broken_chain_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.journal"
    fill(path, 3)
    execute_sql(path, 'UPDATE events SET payload = \'{"card":"9S"}\' WHERE seq = 2')
    status, summary = verify_json(path, capsys)
    assert status == 1
    assert summary["fault"] == "chain_broken"
    assert summary["problems"] == ["row 2: hash does not match its contents (edited)"]
    assert (summary["rows"], summary["inputs"]) == (3, 3)


def in_a_read_only_mount(directory: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """``command`` run where ``directory`` is a read-only bind mount (a private mount namespace)."""
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    return subprocess.run(
        ["unshare", "--mount", "sh", "-c", script, "sh", str(directory), *command],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_read_only_tools_read_a_closed_journal_in_a_directory_they_cannot_write(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "state"
    directory.mkdir()
    path = directory / "T07.journal"
    with Journal.open(path, table_id="T07") as journal:  # closed: no -wal or -shm file beside it
        for card in ("AH", "2H", "3H"):
            journal.append(INPUT_ROW, {"card": card}, ts_utc="t", monotonic_ns=0)
    probe = in_a_read_only_mount(directory, "touch", str(directory / "probe"))
    if shutil.which("unshare") is None or "Read-only file system" not in probe.stderr:
        pytest.skip(f"no read-only bind mount here: {probe.stderr.strip()}")
    tool = [sys.executable, "-m", "table_controller"]
    verify = in_a_read_only_mount(directory, *tool, "journal", "verify", "--json", str(path))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert json.loads(verify.stdout)["rows"] == 3
    export = in_a_read_only_mount(directory, *tool, "journal", "export", str(path))
    assert (export.returncode, len(export.stdout.splitlines())) == (0, 3), export.stderr
    replay = in_a_read_only_mount(
        directory, *tool, "replay", "--variant", "commission", "--inputs", str(path)
    )
    assert replay.returncode == 0, replay.stderr
    assert sorted(entry.name for entry in directory.iterdir()) == ["T07.journal"]
