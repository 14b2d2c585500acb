# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""deploy/backup-journal.py: a verified copy of a journal the table is writing.

The journal is a real one (``Journal``) whose connection stays open, so its last rows are
still in the ``-wal`` file when the backup runs: the case where copying the file would lose
them. The script runs as the timer runs it, a separate process calling the real
``table-controller journal verify``.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from table_controller.runtime.journal.journal import Journal
from tests.deploy.conftest import BACKUP_SCRIPT, table_controller_program

TABLE = "T07"


def record(journal: Journal, count: int) -> None:
    start = journal.head[0]
    for n in range(start + 1, start + count + 1):
        journal.append(
            "input",
            {"card": "KH", "n": n},
            ts_utc=f"2026-11-29T12:00:{n % 60:02d}.000Z",
            monotonic_ns=n * 1_000_000,
            event_id=f"in-{n}",
        )


def backup(*args: str) -> tuple[int, list[dict[str, object]], str]:
    done = subprocess.run(
        [sys.executable, str(BACKUP_SCRIPT), "--table-controller", str(table_controller_program()),
         *args],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def rows_of(path: Path) -> int:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        count: int = connection.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        connection.close()
    return count


def test_a_journal_in_use_is_copied_whole_and_verified(tmp_path: Path) -> None:
    live = tmp_path / "state" / f"{TABLE}.journal"
    live.parent.mkdir()
    kept = tmp_path / "backups"
    kept.mkdir()
    with Journal.open(live, table_id=TABLE) as journal:
        record(journal, 40)
        assert Path(f"{live}-wal").stat().st_size > 0  # rows not yet in the main file
        seq, digest = journal.head
        status, results, stderr = backup("--to", str(kept), str(live.parent))
        assert status == 0, stderr
        record(journal, 5)  # the table goes on writing after the backup
        head = journal.head
    [result] = results
    assert result["ok"] is True
    assert result["rows"] == 40
    assert result["head"] == {"seq": seq, "hash": digest}
    [copy] = kept.iterdir()  # no partial file, no -wal or -shm left beside it
    assert copy.name.startswith(f"{TABLE}-")
    assert copy.name.endswith("-seq40.journal")
    assert rows_of(copy) == 40
    with Journal.open(copy) as restored:  # a full check: quick_check and the hash chain
        assert restored.verify().ok
        assert restored.meta("table_id") == TABLE
    assert head[0] == 45


def test_a_broken_chain_is_not_kept(tmp_path: Path) -> None:
    live = tmp_path / f"{TABLE}.journal"
    kept = tmp_path / "backups"
    kept.mkdir()
    with Journal.open(live, table_id=TABLE) as journal:
        record(journal, 10)
    tamper = sqlite3.connect(live)
    try:
        tamper.execute('UPDATE events SET payload = \'{"card":"9H"}\' WHERE seq = 4')
        tamper.commit()
    finally:
        tamper.close()
    status, results, _ = backup("--to", str(kept), str(live))
    assert status == 1
    assert results[0]["ok"] is False
    assert "failed verification" in str(results[0]["error"])
    assert list(kept.iterdir()) == []


def test_only_the_newest_copies_are_kept(tmp_path: Path) -> None:
    live = tmp_path / f"{TABLE}.journal"
    other = tmp_path / f"{TABLE}-old.journal"  # a name that starts like it is not its copy
    kept = tmp_path / "backups"
    kept.mkdir()
    with Journal.open(other, table_id="T07-old") as journal:
        record(journal, 1)
    heads = []
    with Journal.open(live, table_id=TABLE) as journal:
        for sources in ([other, live], [live], [live]):
            record(journal, 1)
            status, results, stderr = backup("--keep", "2", "--to", str(kept), *map(str, sources))
            assert status == 0, stderr
            heads.append(results[-1]["head"])
    names = sorted(path.name for path in kept.iterdir())
    assert len(names) == 3
    assert sum(name.endswith(("-seq2.journal", "-seq3.journal")) for name in names) == 2
    assert any(name.startswith(f"{TABLE}-old-") for name in names)
    assert [head["seq"] for head in heads] == [1, 2, 3]  # type: ignore[index]


def test_a_missing_journal_fails_and_says_so(tmp_path: Path) -> None:
    status, results, _ = backup("--to", str(tmp_path), str(tmp_path / "absent.journal"))
    assert status == 1
    assert "no such file" in str(results[0]["error"])
