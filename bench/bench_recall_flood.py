# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a flood of ``recall`` commands costs a table's journal file.

Bench script (not part of the product). A virtual table (``--card-source rng``, no betting
phase, ``table-controller run`` against a real mosquitto) deals ``--rounds`` rounds; then a
backend publishes ``--recalls`` recalls of 50 rounds on one connection, first all from one
operator, then each from an operator of its own (no operator's limit is reached), and waits
for every reply. Printed for each flood: the replies (answered, refused by code), the seconds
to the last reply, and what the journal file grew by: the journal's payloads, the outbox's
payloads and rows, and the file with its write-ahead log.

Usage: python bench/bench_recall_flood.py [--rounds 50] [--recalls 600] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the tests' broker set-up and backend

from bench.bench_mqtt_latency import started_broker  # noqa: E402
from table_controller.mqtt.client.connect import new_client  # noqa: E402
from tests.support.backend import Backend, listening  # noqa: E402
from tests.support.table_process import table_run  # noqa: E402

TABLE: Final = "T07"
TOPICS: Final = f"baccarat/tables/{TABLE}"
#: Seconds without a reply after which the replies still missing are counted as none.
QUIET_S: Final = 15.0


def sizes(journal: Path) -> dict[str, int]:
    """The journal's and the outbox's payload bytes, the outbox's rows, the files' bytes."""
    with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
        (events,) = db.execute("SELECT coalesce(sum(length(payload)), 0) FROM events").fetchone()
        outbox, rows = db.execute(
            "SELECT coalesce(sum(length(payload)), 0), count(*) FROM outbox"
        ).fetchone()
    files = sum(path.stat().st_size for path in journal.parent.glob(f"{journal.name}*"))
    return {"journal payloads": events, "outbox payloads": outbox, "outbox rows": rows,
            "file + WAL": files}  # fmt: skip


async def flood(backend: Backend, count: int, *, one_operator: bool) -> tuple[Counter[str], float]:
    """Publish ``count`` recalls and wait for the replies; them by outcome, the last's seconds."""
    tag = "one" if one_operator else "many"
    ids = {f"{tag}-{n}" for n in range(count)}
    started = time.monotonic()
    async with new_client(backend.endpoint, identifier=f"flood-{tag}", persistent=False) as client:
        for n in range(count):
            operator = "pit-12" if one_operator else f"desk-{n}"
            body = {"id": f"{tag}-{n}", "command": "recall", "operator": operator,
                    "args": {"rounds": 50}}  # fmt: skip
            await client.publish(f"{TOPICS}/commands", json.dumps(body), qos=1)
    outcomes: Counter[str] = Counter()
    last = time.monotonic()
    while ids:
        try:
            async with asyncio.timeout(QUIET_S):
                message = await backend.feed.get()
        except TimeoutError:  # the ingress dropped the rest (a queue full): no reply comes
            outcomes["no reply"] = len(ids)
            break
        if message.topic != f"{TOPICS}/commands/replies":
            continue
        reply = json.loads(message.payload)
        if reply["id"] in ids:
            ids.discard(reply["id"])
            last = time.monotonic()
            outcomes["answered" if reply["ok"] else reply["error"]] += 1
    return outcomes, last - started


async def bench(workdir: Path, rounds: int, recalls: int) -> None:
    journal = workdir / f"{TABLE}.journal"
    with started_broker(log_all=False) as broker:
        async with listening(broker, TOPICS, "bench-recall") as backend, table_run(
            workdir / "run.log",
            "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
            "--no-betting-phase", "--broker", broker.url("backend"), "--journal", str(journal),
            "--display", "off", env=dict(os.environ),
        ):  # fmt: skip
            await backend.wait_online()
            assert (await backend.command("new_shoe", shoe_id="S-B"))["ok"]
            await backend.until_event("burn", done=True)
            for round_no in range(1, rounds + 1):
                assert (await backend.command("deal"))["ok"]
                await backend.until_result(f"S-B-{round_no}")
            await asyncio.sleep(1)  # the last acknowledgements reach the outbox
            for one_operator in (True, False):
                before = sizes(journal)
                outcomes, seconds = await flood(backend, recalls, one_operator=one_operator)
                await asyncio.sleep(1)
                after = sizes(journal)
                who = "one operator" if one_operator else "an operator each"
                print(f"{recalls} recalls from {who} after {rounds} rounds: "
                      f"{dict(outcomes)}, last reply after {seconds:.2f} s")  # fmt: skip
                for name, value in after.items():
                    print(f"  {name:16} {before[name]:>12,} -> {value:>12,}"
                          f"  (+{value - before[name]:,})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--recalls", type=int, default=600)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        workdir = args.workdir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        workdir.mkdir(parents=True, exist_ok=True)
        asyncio.run(bench(workdir, args.rounds, args.recalls))


if __name__ == "__main__":
    main()
