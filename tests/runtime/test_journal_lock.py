# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One writer per journal: a second ``run`` on a live table's journal is refused.

The services are real ``table-controller run`` processes (a virtual table: ``--card-source
rng``, no broker, no display, no live odds, so that a table waiting for bets writes nothing),
probed through ``--metrics``; the read-only tools run beside them as an operator runs them.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli.run import JOURNAL_IN_USE
from table_controller.runtime.journal.format import JournalInUseError
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.journal.lock import JournalLock, lock_path
from tests.support.ports import free_port

TABLE = "T07"


def table_controller(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "table_controller", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_flags(journal: Path, metrics_port: int) -> list[str]:
    return [
        sys.executable, "-m", "table_controller", "run",
        "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
        "--journal", str(journal),
        "--events-log", str(journal.with_suffix(".events.jsonl")),
        "--display", "off",
        "--metrics", f"127.0.0.1:{metrics_port}",
        "--log-format", "json",
    ]  # fmt: skip


def without_live_odds() -> dict[str, str]:
    return {**os.environ, "TABLE_CONTROLLER_LIVE_ODDS": "false"}


def health(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
        body: dict[str, Any] = json.load(response)
    return body


def head_seq(journal: Path) -> int:
    with Journal.open_read_only(journal) as reader:
        return reader.head[0]


@contextmanager
def table_service(journal: Path, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A running ``run`` that has burned its shoe's first cards and waits for bets."""
    port = free_port()
    with log.open("ab") as output:
        process = subprocess.Popen(
            run_flags(journal, port),
            stdout=subprocess.DEVNULL,
            stderr=output,
            env=without_live_odds(),
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if health(port)["phase"] == "between_rounds":
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield process, port
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(15)


def journal_with_a_new_shoe(path: Path) -> None:
    """A journal whose table, once running, draws its burn and waits for ``open_betting``."""
    with Journal.open(path, table_id=TABLE) as journal:
        journal.append(
            "input",
            {"command": "new_shoe", "args": {"shoe_id": "S-1"}, "id": "c-1", "operator": "pit"},
            ts_utc="2026-11-29T12:00:00.000Z",
            monotonic_ns=0,
            event_id="command:c-1",
        )


def test_a_second_service_on_a_live_journal_is_refused_and_the_first_plays_on(
    tmp_path: Path,
) -> None:
    journal = tmp_path / f"{TABLE}.journal"
    journal_with_a_new_shoe(journal)
    with table_service(journal, tmp_path / "first.log") as (first, port):
        before = head_seq(journal)
        assert before > 1  # the burn was drawn and recorded

        second = subprocess.run(
            run_flags(journal, free_port()),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=without_live_odds(),
        )
        assert second.returncode == JOURNAL_IN_USE == 4
        assert second.stderr.splitlines() == [
            (
                f"table-controller run: journal {journal} is in use by process {first.pid}"
                " (another table service); not starting"
            )
        ]
        assert head_seq(journal) == before

        body = health(port)
        assert first.poll() is None
        assert body["status"] == "ok", body
        assert body["phase"] == "between_rounds"

        # The read-only tools go on working beside the live table.
        verify = table_controller("journal", "verify", "--json", str(journal))
        assert verify.returncode == 0, verify.stderr
        assert json.loads(verify.stdout)["head"]["seq"] == before
        export = table_controller("journal", "export", str(journal))
        assert export.returncode == 0, export.stderr
        assert len(export.stdout.splitlines()) == before
        replay = table_controller(
            "replay", "--variant", "commission", "--inputs", str(journal), "--json"
        )
        assert replay.returncode == 0, replay.stderr
        assert any('"shoe_id":"S-1"' in line for line in replay.stdout.splitlines())

        first.send_signal(signal.SIGTERM)
        assert first.wait(15) == 0


def test_a_killed_service_leaves_no_lock_that_blocks_its_restart(tmp_path: Path) -> None:
    journal = tmp_path / f"{TABLE}.journal"
    journal_with_a_new_shoe(journal)
    with table_service(journal, tmp_path / "first.log") as (first, _port):
        first.send_signal(signal.SIGKILL)
        assert first.wait(15) == -signal.SIGKILL
    with table_service(journal, tmp_path / "restarted.log") as (restarted, port):
        assert health(port)["status"] == "ok"
        assert lock_path(journal).read_text() == f"{restarted.pid}\n"
        restarted.send_signal(signal.SIGTERM)
        assert restarted.wait(15) == 0


def test_the_lock_names_its_holder_and_is_free_once_released(tmp_path: Path) -> None:
    journal = tmp_path / "t.journal"
    with JournalLock.acquire(journal):
        assert lock_path(journal).read_text() == f"{os.getpid()}\n"
        with pytest.raises(JournalInUseError) as refused:
            JournalLock.acquire(journal)
        assert refused.value.holder_pid == os.getpid()
        assert str(refused.value) == (
            f"journal {journal} is in use by process {os.getpid()} (another table service)"
        )
    with JournalLock.acquire(journal):
        pass


def test_a_holder_that_wrote_no_pid_yet_is_named_as_another_process(tmp_path: Path) -> None:
    journal = tmp_path / "t.journal"
    with JournalLock.acquire(journal):
        lock_path(journal).write_text("")
        with pytest.raises(JournalInUseError, match=re.escape("in use by another process")):
            JournalLock.acquire(journal)


def test_the_read_only_tools_need_no_lock_file(tmp_path: Path) -> None:
    journal = tmp_path / "t.journal"
    journal_with_a_new_shoe(journal)
    assert table_controller("journal", "verify", str(journal)).returncode == 0
    assert table_controller("journal", "export", str(journal)).returncode == 0
    replay = table_controller("replay", "--variant", "commission", "--inputs", str(journal))
    assert replay.returncode == 0, replay.stderr
    assert not lock_path(journal).exists()
