# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The wall clock jumps back and forth during play.

Through the real ``table-controller run`` (the virtual shoe on a pseudo-terminal, a real
mosquitto, a backend), run under libfaketime (Debian package ``faketime``): the service's
wall clock (``time.time``, ``datetime.now``) reads an offset from a file the test rewrites
while the table plays (an hour back, a day forward, back to true time), with
``FAKETIME_DONT_FAKE_MONOTONIC=1`` so that the monotonic clock runs on untouched, as it does
when an NTP step or an operator moves a real machine's clock.

Stated outcome: nothing depends on the wall clock. The journal's ``ts_utc`` follows the jumps
(so they really happened), but its ``seq`` and monotonic times only go up, its hash chain
verifies, every card is recorded and reported exactly once, the backend has every ``seq``
with no unmarked duplicate, and ``replay`` prints exactly what the backend received. The
timers do not fire early or late: the reader is never reported offline (its 3 s liveness
timer would fire at a day's jump if it read the wall clock) and the MQTT link never
reconnects (one session).
"""

from __future__ import annotations

import itertools
import json
import shutil
from datetime import datetime
from pathlib import Path
from typing import Final

import pytest

from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.shuffle import seeded_order
from tests.mosquitto import Mosquitto
from tests.reliability import harness
from tests.support.installed import not_installed

pytestmark = pytest.mark.broker

LIBFAKETIME: Final = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
SHOE_ID: Final = "W-1"
#: Offsets written at the start of rounds 2, 3 and 4 (libfaketime's relative syntax).
JUMPS: Final = {2: "-1h", 3: "+1d", 4: "+0"}


def libfaketime() -> Path:
    found = LIBFAKETIME if LIBFAKETIME.exists() else None
    if found is None and shutil.which("faketime") is not None:
        candidates = sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1"))
        found = candidates[0] if candidates else None
    if found is None:
        not_installed("libfaketime is not installed (apt-get install faketime)")
    return found


def journal_rows(journal: Path) -> list[tuple[int, str, int, str]]:
    everything = "SELECT seq, ts_utc, monotonic_ns, payload FROM events ORDER BY seq"
    rows = harness.journal_query(journal, everything)
    return [(int(seq), str(ts), int(ns), str(payload)) for seq, ts, ns, payload in rows]


def parse_ts(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.mark.timeout(120)
async def test_wall_clock_jumps_change_nothing(tmp_path: Path, broker: Mosquitto) -> None:
    offset = tmp_path / "faketime-offset"
    offset.write_text("+0\n")
    env = {
        "LD_PRELOAD": str(libfaketime()),
        "FAKETIME_TIMESTAMP_FILE": str(offset),
        "FAKETIME_NO_CACHE": "1",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }
    link = tmp_path / "shoe"
    journal = tmp_path / "T07.journal"
    args = harness.run_args(journal=journal, port=link, broker_url=broker.url("T07"))
    jumped: list[int] = []
    async with (
        harness.backend(broker) as feed,
        harness.mqtt_table(broker, feed, link) as hand,
        harness.service(args, tmp_path / "run.log", env=env) as table,
    ):
        await hand.online()
        hand.shoe.shoe = Shoe(cards=seeded_order(1, 3), cut_depth=36)
        await hand.command("new_shoe", shoe_id=SHOE_ID)
        for _ in range(1000):
            state = await hand.barrier()
            prompt = state.get("prompt") or {}
            round_no = state.get("round_no")
            # Each jump in the middle of a round: after its first card.
            if round_no in JUMPS and state["cards"]["player"] and round_no not in jumped:
                offset.write_text(JUMPS[round_no] + "\n")
                jumped.append(round_no)
            if prompt.get("action") == "shoe_over":
                break
            await hand.step()
        assert await table.stop() == 0, table.log_tail()
        await harness.everything_received(feed, journal)
    assert jumped == list(JUMPS), "the shoe ended before every jump"
    rows = journal_rows(journal)
    stamps = [parse_ts(ts) for _, ts, _, _ in rows]
    steps = [later - earlier for earlier, later in itertools.pairwise(stamps)]
    assert min(steps).total_seconds() < -3000  # the hour back is in the journal
    assert max(steps).total_seconds() > 80000  # and the day forward
    assert [seq for seq, _, _, _ in rows] == list(range(1, len(rows) + 1))
    monotonic = [mono for _, _, mono, _ in rows]
    assert monotonic == sorted(monotonic)
    readers = [json.loads(payload).get("reader") for _, _, _, payload in rows]
    assert "offline" not in readers
    sessions = {body["session"] for table_id, body in feed.statuses if table_id == "T07"}
    assert sessions == {1}, "the MQTT link reconnected"
    await harness.check_each_card_kept_once(
        feed, journal, harness.dealt_cards(hand.shoe.dealt), SHOE_ID
    )
