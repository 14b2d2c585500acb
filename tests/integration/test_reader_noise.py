# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Noise on the shoe's line: every garbled frame counted, the log kept to a few lines.

``table-controller run`` reads a real pseudo-terminal; the test writes 100 KB of noise on its
other end (the characters frames are made of, so that it breaks into thousands of garbled
lines), then one good frame, and waits for that frame's acknowledgement: every byte before it
was read. The metrics count every rejected frame; the log writes a few ``shoe line rejected``
lines and says how many similar lines it suppressed, and the two add up to the count.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from drivers.srp.frames import FrameType
from table_controller.runtime.logs import REPEATS_PER_WINDOW
from tests.drivers.driver_test_support import PtyShoe, shoe
from tests.support.ports import free_port
from tests.support.table_process import scrape, table_run, wait_for_health

pytestmark = pytest.mark.usefixtures("no_leaks")

#: What the noise is made of: a frame's characters and line ends.
NOISE_ALPHABET = b"$*\r\n,SH0123456789ABCDEF"
NOISE_BYTES = 100_000
#: More log lines than this for the whole run would be the flood this test is about.
MOST_LOG_LINES = 200


def logged(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_noise_on_the_line_is_counted_and_its_log_lines_are_rate_limited(
    tmp_path: Path,
) -> None:
    line = PtyShoe(tmp_path)
    line.plug()
    metrics = f"http://127.0.0.1:{free_port()}"
    log = tmp_path / "run.log"
    noise = bytes(random.Random(7).choices(NOISE_ALPHABET, k=NOISE_BYTES))
    try:
        async with aiohttp.ClientSession() as http:
            async with table_run(
                log,
                "--table-id", "T1", "--port", str(line.path), "--display", "off",
                "--journal", str(tmp_path / "T1.journal"), "--log-format", "json",
                "--events-log", str(tmp_path / "events.jsonl"),
                "--metrics", metrics.removeprefix("http://"),
            ) as process:  # fmt: skip
                await wait_for_health(http, metrics)
                await line.send_all(noise + b"\r\n" + shoe(0, FrameType.HELLO, "BT", "1", "S9"))
                await line.wait_received(b",ACK,0*", limit_s=60.0)  # all the noise was read
                families = await scrape(http, metrics)
            assert process.returncode == 0, log.read_text()
    finally:
        line.unplug()
    (rejected,) = (
        sample.value
        for sample in families["table_rejected_frames"].samples
        if sample.name == "table_rejected_frames_total"
    )
    lines = logged(log)
    written = [entry for entry in lines if entry["event"] == "shoe line rejected"]
    summaries = [entry for entry in lines if entry.get("similar_to") == "shoe line rejected"]
    suppressed = sum(entry["suppressed"] for entry in summaries)
    assert rejected > 1000  # a flood of garbled frames
    assert len(lines) <= MOST_LOG_LINES, f"{len(lines)} log lines"
    assert REPEATS_PER_WINDOW <= len(written) < rejected
    assert summaries
    assert all(e["event"] == f"suppressed {e['suppressed']} similar lines" for e in summaries)
    assert len(written) + suppressed == rejected  # every one counted, none lost
