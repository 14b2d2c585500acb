# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""SIGHUP to a running table: the staff register is read again; it never stops the table."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from tests.support.staff import write_register
from tests.support.table_process import table_run
from tests.support.waiting import until


def logged(log: Path, words: str) -> bool:
    return log.exists() and words in log.read_text(errors="replace")


@pytest.mark.parametrize("with_register", [True, False], ids=["register", "no register"])
async def test_sighup_reloads_the_register_and_never_stops_the_table(
    tmp_path: Path, *, with_register: bool
) -> None:
    log = tmp_path / "run.log"
    env = dict(os.environ)
    if with_register:
        env["TABLE_CONTROLLER_STAFF_REGISTER"] = str(write_register(tmp_path / "staff.json"))
    async with table_run(
        log,
        "--table-id", "H1", "--card-source", "rng", "--journal", str(tmp_path / "H1.journal"),
        "--display", "off", "--events-log", str(tmp_path / "events.jsonl"),
        env=env,
    ) as process:  # fmt: skip
        await until(lambda: logged(log, "table service starting"), timeout=30)
        words = "staff register loaded" if with_register else "no staff register to reload"
        async with asyncio.timeout(10):
            while not logged(log, words):  # one sent before the service takes it is ignored
                process.send_signal(signal.SIGHUP)
                await asyncio.sleep(0.2)
        await asyncio.sleep(0.3)
        assert process.returncode is None
    assert process.returncode == 0
