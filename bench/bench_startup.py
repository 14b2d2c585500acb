# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Start-up of ``table-controller run`` against the length of its journal.

Bench script (not part of the product). A table replays its whole journal at every start
(``TableService.recover``), so its start-up grows with the journal. For each size this script
writes a journal of N whole shoes: seeded 8-deck shoes dealt through the real procedure, with
the commands and cards a dealer gives (``tests/support/dealing.py``), recorded with the
journal's own ``append``. It then starts ``table-controller run`` on that journal against a
real mosquitto, spawn to the table's birth (``status`` online, which follows the replay):

* the first start finds the outbox empty, so every message of the journal is planned,
  encoded and stored (a table whose outbox was lost, and every start before the outbox sink
  dropped the rows it already holds);
* the restarts after it find the outbox complete: only the procedure's replay is left.

The baseline in the same run is the start of a table with a fresh journal. Printed per size:
journal rows, first start, restart median, what the replay adds to a restart per 1,000 rows,
and the restart against the target (under 1.5 s to ready).

Usage: python bench/bench_startup.py [--shoes 1 5 20] [--restarts 3] [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

from table_controller.mqtt.client.subscriber import Subscription
from table_controller.mqtt.settings import BrokerEndpoint
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import RecordRejected, input_from_record, input_to_record
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal.format import INPUT_ROW
from table_controller.runtime.journal.journal import Journal

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the latency bench's helpers and the tests' broker set-up

from bench.bench_mqtt_latency import (  # noqa: E402
    TARGET_START_S,
    BenchError,
    Feed,
    collect,
    new_virtual_shoe,
    spawn_service,
    started_broker,
    stop_service,
    wait_birth,
)
from tests.mosquitto import Mosquitto  # noqa: E402
from tests.support.dealing import next_records, seeded_shoe  # noqa: E402

TABLE_ID: Final = "T07"
#: Sizes measured when none are given: a shoe, about a day of one table, and some days.
DEFAULT_SHOES: Final = (1, 8, 24)
#: A first start of a long journal stores every message; on a loaded machine that takes long.
BIRTH_TIMEOUT_S: Final = 120.0


@dataclass(frozen=True, slots=True, kw_only=True)
class SizeResult:
    shoes: int
    rows: int
    first_s: float
    restarts_s: tuple[float, ...]


def dealt_records(shoes: int, seed: int) -> Iterator[dict[str, object]]:
    """The input records of ``shoes`` whole shoes, as the service journals them."""
    procedure = TableProcedure(VARIANTS["commission"], table_id=TABLE_ID)
    counter = itertools.count(1)
    for number in range(1, shoes + 1):
        shoe = iter(seeded_shoe(seed + number))
        pending: list[dict[str, object]] = [
            {"command": "new_shoe", "args": {"shoe_id": f"S-{seed}-{number}"},
             "id": f"c-{next(counter)}", "operator": "pit"},
        ]  # fmt: skip
        while pending:
            for record in pending:
                event = input_from_record(
                    record, default_at=0.0, default_command_id="", default_operator=""
                )
                if isinstance(event, RecordRejected):
                    raise BenchError(f"a record the procedure refuses: {event.reason}")
                procedure.handle(event)
                yield input_to_record(event)
            pending = next_records(procedure.snapshot(), shoe, counter)


def write_journal(path: Path, shoes: int, seed: int) -> int:
    """A journal of ``shoes`` shoes; returns its number of rows."""
    started = datetime(2026, 11, 1, 12, tzinfo=UTC)
    with contextlib.closing(Journal.open(path, table_id=TABLE_ID)) as journal:
        for number, record in enumerate(dealt_records(shoes, seed), start=1):
            moment = started + timedelta(seconds=number)
            command = record.get("id")
            journal.append(
                INPUT_ROW,
                record,
                ts_utc=moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                monotonic_ns=number * 1_000_000_000,
                event_id=None if command is None else f"command:{command}",
            )
        return journal.head[0]


async def start_once(workdir: Path, broker: Mosquitto, feed: Feed, journal: Path) -> float:
    """Spawn ``run`` on ``journal``, wait for its birth, stop it; seconds to birth."""
    link = workdir / f"shoe-{journal.stem}"
    virtual, _port = new_virtual_shoe(link, 1)
    async with virtual:
        process, spawned = await spawn_service(workdir, broker, link, journal)
        try:
            birth = await wait_birth(feed, spawned, process, BIRTH_TIMEOUT_S)
        except BaseException:
            # Not born: it may not handle SIGTERM yet, and the reason it was not is the news.
            if process.returncode is None:
                process.kill()
                await process.wait()
            raise
        await stop_service(process)
    return (birth - spawned) / 1e9


async def measure(args: argparse.Namespace, workdir: Path) -> tuple[list[float], list[SizeResult]]:
    with started_broker(log_all=False) as broker:
        feed = Feed()
        endpoint = BrokerEndpoint.from_url(broker.url("backend"))
        async with Subscription(endpoint, [f"baccarat/tables/{TABLE_ID}/status"]) as subscription:
            await subscription.wait_subscribed()
            collector = asyncio.create_task(collect(subscription, feed))
            try:
                fresh = [
                    await start_once(workdir, broker, feed, workdir / f"fresh-{n}.journal")
                    for n in range(args.restarts)
                ]
                results: list[SizeResult] = []
                for shoes in args.shoes:
                    journal = workdir / f"shoes-{shoes}.journal"
                    rows = await asyncio.to_thread(write_journal, journal, shoes, args.seed)
                    first = await start_once(workdir, broker, feed, journal)
                    restarts = tuple(
                        [await start_once(workdir, broker, feed, journal)
                         for _ in range(args.restarts)]
                    )  # fmt: skip
                    results.append(SizeResult(shoes=shoes, rows=rows, first_s=first,
                                              restarts_s=restarts))  # fmt: skip
                    print(f"  {shoes} shoe(s) measured", file=sys.stderr, flush=True)
            finally:
                collector.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await collector
    return fresh, results


def report(fresh: list[float], results: list[SizeResult]) -> None:
    base = statistics.median(fresh)
    print(f"fresh journal: spawn -> birth median {base:.3f} s (of {len(fresh)})")
    print(
        "| shoes | journal rows | first start (outbox empty) | restart, median | restart / "
        "fresh | replay per 1,000 rows | restart < 1.5 s |"
    )
    print("|---|---|---|---|---|---|---|")
    for result in results:
        restart = statistics.median(result.restarts_s)
        per_thousand = (restart - base) / result.rows * 1000
        met = "met" if restart < TARGET_START_S else "missed"
        print(
            f"| {result.shoes} | {result.rows:,} | {result.first_s:.2f} s | {restart:.2f} s | "
            f"{restart / base:.1f}x | {per_thousand:.3f} s | {met} |"
        )
    slope = statistics.median((statistics.median(r.restarts_s) - base) / r.rows for r in results)
    if slope > 0:
        rows_at_target = (TARGET_START_S - base) / slope
        print(f"a restart reaches {TARGET_START_S} s at about {rows_at_target:,.0f} journal rows")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, nargs="+", default=list(DEFAULT_SHOES))
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--seed", type=int, default=9000)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-startup-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        fresh, results = asyncio.run(measure(args, workdir))
        report(fresh, results)
    except BenchError as error:
        print(f"bench failed: {error}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
