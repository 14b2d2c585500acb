# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Floor: how long a change at a table takes to show on the floor's page, with N tables dealing.

Bench script (not part of the product). It starts, from the test suite's set-ups and
``load_tables.py``'s: a mosquitto; ``--tables`` virtual tables, each its own
``table-controller run --card-source rng --variant mini`` process and journal (under
``nice``), driven by one backend that plays a round on each table every ``--round-interval``
seconds; an SQLite database with the ingest's schema; ``table-controller floor`` on that
broker and database (its own process, not niced); and one headless Chromium page of the
floor, signed in as a viewer.

Measured on the page itself: each time the page draws a table's tile, the delay from the
``ts`` of the newest message the tile shows (the wall time of the table's input that caused
it, written by the table) to the moment the tile is in the page's DOM (a MutationObserver
reads ``Date.now()``). The table, the broker, the floor and the browser share this machine's
clock. The delays of the ``--minutes`` of play (after every table is online and drawn) give
p50, p99 and the largest; tiles drawn because the floor caught up after a pause of its own are
counted as any other. Also: tiles drawn per second, the floor's CPU share and peak memory, the
load average.

Usage: python bench/bench_floor_latency.py [--tables N] [--minutes M] [--round-interval S]
       [--nice N] [--report FILE]
Exit status 0 when p99 is at most 2 s, 1 otherwise, 2 when a needed program is missing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import trustme

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the test suite's set-ups live in tests/

from bench.load_tables import (  # noqa: E402
    Backend,
    TableView,
    add_table_options,
    client,
    collect,
    drive_tables,
    peak_rss_kb,
    quiet_broker,
    start_tables,
    table_figures,
)
from table_controller.ingest.store import IngestStore  # noqa: E402
from tests.mosquitto import start_broker  # noqa: E402
from tests.support.ports import free_port  # noqa: E402
from tests.support.staff import STAFF, write_register  # noqa: E402

TARGET_P99_S: Final = 2.0
CHROMIUM: Final = Path("/usr/bin/chromium")
VIEWER: Final = "D-104"
#: Collects, in the page, the delay of every tile drawn: (table, seq, ms from its ts).
OBSERVE: Final = """() => {
  window.delays = [];
  const seen = new Set();
  const observer = new MutationObserver((records) => {
    const now = Date.now();
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof HTMLElement) || !node.classList.contains("tile")) continue;
        const ts = node.dataset.ts;
        const key = node.dataset.table + " " + node.dataset.seq;
        if (!ts || seen.has(key)) continue;
        seen.add(key);
        window.delays.push([node.dataset.table, Number(node.dataset.seq), now - Date.parse(ts)]);
      }
    }
  });
  observer.observe(document.getElementById("areas"), { childList: true, subtree: true });
}"""


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(options: argparse.Namespace, workdir: Path) -> dict[str, Any]:  # noqa: PLR0915
    from playwright.async_api import async_playwright  # noqa: PLC0415 - only the bench needs it

    from tests.support.chromium import CHROMIUM_ARGS  # noqa: PLC0415

    broker = start_broker(trustme.CA())
    processes: dict[str, asyncio.subprocess.Process] = {}
    floor: asyncio.subprocess.Process | None = None
    try:
        quiet_broker(broker)
        database = f"sqlite:///{workdir / 'floor.sqlite'}"
        store = await IngestStore.open(database)  # the schema the floor reads
        await store.close()
        register = write_register(workdir / "staff.json")
        ids = [f"L{number:03d}" for number in range(1, options.tables + 1)]
        backend = Backend(tables={table_id: TableView(table_id) for table_id in ids})
        ready = asyncio.Event()
        collector = asyncio.create_task(collect(broker, backend, ready))
        await ready.wait()
        await start_tables(broker, backend, processes, workdir, nice=options.nice)
        port = free_port()
        with (workdir / "floor.log").open("ab") as log:
            floor = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "table_controller", "floor",
                "--database", database, "--broker", broker.url("backend"),
                "--listen", f"127.0.0.1:{port}", "--staff-register", str(register),
                "--log-level", "warning",
                stdout=asyncio.subprocess.DEVNULL, stderr=log, cwd=ROOT,
            )  # fmt: skip
        url = f"http://localhost:{port}/"
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = await browser.new_page(viewport={"width": 1920, "height": 1080})
            for _ in range(200):
                with contextlib.suppress(Exception):
                    await page.goto(url)
                    break
                await asyncio.sleep(0.1)
            await page.fill("#staff-id", VIEWER)
            await page.fill("#pin", STAFF[VIEWER][2])
            await page.click("#sign-in-button")
            await page.wait_for_function("() => document.body.dataset.ready === 'yes'")
            await page.wait_for_function(
                "(n) => document.querySelectorAll('.tile[data-status=online]').length >= n",
                arg=len(ids),
                timeout=60_000,
            )
            await page.evaluate(OBSERVE)
            floor_cpu_before = cpu_seconds(floor.pid)
            load_before = os.getloadavg()
            async with client(broker, "floor-bench-commands") as publisher:
                start_mono = time.monotonic()
                await drive_tables(
                    publisher, backend, interval_s=options.round_interval, minutes=options.minutes
                )
                window = time.monotonic() - start_mono
            await asyncio.sleep(2.0)  # the last changes reach the page
            delays = await page.evaluate("() => window.delays")
            floor_cpu = cpu_seconds(floor.pid) - floor_cpu_before
            load_end = os.getloadavg()
            await browser.close()
        floor_peak = peak_rss_kb(floor.pid)
        collector.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await collector
        seconds = [delay / 1000 for _table, _seq, delay in delays]
        rounds = sum(view.results for view in backend.tables.values())
        p99 = percentile(seconds, 0.99)
        return {
            **table_figures(options),
            "window_s": round(window, 1),
            "rounds": rounds,
            "tiles_drawn": len(seconds),
            "tiles_drawn_per_s": round(len(seconds) / window, 1),
            "delay_p50_s": None if not seconds else round(percentile(seconds, 0.5) or 0, 3),
            "delay_p99_s": None if p99 is None else round(p99, 3),
            "delay_max_s": None if not seconds else round(max(seconds), 3),
            "over_2_s": sum(1 for value in seconds if value > TARGET_P99_S),
            "floor_cpu_share_of_one_core": round(floor_cpu / window, 3),
            "floor_peak_rss_mb": round(floor_peak / 1024, 1),
            "load_average_start": [round(x, 2) for x in load_before],
            "load_average_end": [round(x, 2) for x in load_end],
            "cpus": os.cpu_count(),
        }
    finally:
        for process in [*processes.values(), *([floor] if floor is not None else [])]:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
        for process in [*processes.values(), *([floor] if floor is not None else [])]:
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
        broker.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_table_options(parser, tables=100, minutes=3.0, round_interval=10.0)
    parser.add_argument("--report", type=Path, help="write the figures as JSON here")
    options = parser.parse_args(argv)
    for program in ("mosquitto",):
        if shutil.which(program) is None:
            print(f"{program} is not installed", file=sys.stderr)
            return 2
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} is not installed", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="tc-floor-"))
    try:
        figures = asyncio.run(run(options, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    text = json.dumps(figures, indent=2)
    print(text)
    if options.report is not None:
        options.report.write_text(text + "\n")
    p99 = figures["delay_p99_s"]
    return 0 if p99 is not None and p99 <= TARGET_P99_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
