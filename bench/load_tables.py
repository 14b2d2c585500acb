# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Load: many tables (separate ``table-controller run`` processes) against one mosquitto.

Bench script (not part of the product, decides nothing about the game). It starts a mosquitto
(the test suite's set-up, ``tests/mosquitto.py``, with per-packet logging off and ``$SYS``
published every second), then ``--tables`` virtual tables, each its own
``table-controller run --card-source rng --variant mini`` process with its own journal (run
under ``nice`` so the machine's other work is not starved), and one Python backend: a
persistent QoS 1 subscriber to every table that also drives them, each table playing one
round every ``--round-interval`` seconds (``open_betting``, ``close_betting``; ``new_shoe``
when a shoe is over).

Measured over the ``--minutes`` of play (after every table is online):

* rounds played and messages received by the backend, per second;
* the broker-side rate, from mosquitto's own ``$SYS/broker/messages/received`` and
  ``.../sent`` counters (difference over the window) and its ``load/.../1min`` averages;
* completeness: after the tables are stopped (SIGTERM: each drains its outbox first), every
  table's ``seq`` from 1 to the last its outbox assigned must have reached the backend; any
  ``seq`` missing, or a duplicate whose payload differs, is reported and fails the run;
* the load average of the machine at the start and the end, and the tables' peak memory.

Usage: python bench/load_tables.py [--tables N] [--minutes M] [--round-interval S]
       [--nice N] [--workdir DIR] [--report FILE] [--keep]
Exit status 0 when no message was lost, 1 otherwise.
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
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import aiomqtt
import trustme

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the test suite's broker set-up lives in tests/

from table_controller.contract.outgoing import DEFAULT_TOPIC_PREFIX  # noqa: E402
from tests.mosquitto import PASSWORDS, Mosquitto, start_broker  # noqa: E402
from tests.reliability.harness import outbox_last_seq  # noqa: E402
from tests.wakeups import Wakeups  # noqa: E402

STEP_TIMEOUT_S: Final = 60.0
SYS_TOPICS: Final = (
    "$SYS/broker/messages/received",
    "$SYS/broker/messages/sent",
    "$SYS/broker/publish/messages/received",
    "$SYS/broker/publish/messages/sent",
    "$SYS/broker/load/messages/received/1min",
    "$SYS/broker/load/messages/sent/1min",
    "$SYS/broker/clients/connected",
)


class LoadError(RuntimeError):
    """A table did not do what the backend waited for."""


@dataclass
class TableView:
    """What the backend knows of one table."""

    table_id: str
    seqs: set[int] = field(default_factory=set)
    payloads: dict[int, bytes] = field(default_factory=dict)
    duplicates: int = 0
    unmarked_duplicates: int = 0
    online: bool = False
    state: dict[str, Any] | None = None
    state_seq: int = 0
    replies: dict[str, dict[str, Any]] = field(default_factory=dict)
    results: int = 0
    rounds_started: int = 0


@dataclass
class Backend:
    """Every message of every table, sorted in as it arrives; waiters re-test on each one."""

    tables: dict[str, TableView]
    received: int = 0
    sys: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    _wakeups: Wakeups = field(default_factory=Wakeups)

    def take(self, topic: str, payload: bytes) -> None:
        if topic.startswith("$SYS/"):
            with contextlib.suppress(ValueError):
                self.sys.setdefault(topic, []).append((time.monotonic(), float(payload)))
            return
        self.received += 1
        parts = topic.split("/")
        view = self.tables.get(parts[2])
        if view is None or parts[-1] == "commands":
            return
        body = json.loads(payload)
        if parts[-1] == "status":
            view.online = bool(body.get("online"))
        else:
            _sort_in(view, "/".join(parts[3:]), body, payload)
        self._wakeups.wake()

    async def until(self, test: Callable[[], bool], what: str) -> None:
        try:
            await self._wakeups.until(test, STEP_TIMEOUT_S)
        except TimeoutError:
            raise LoadError(f"timed out waiting for {what}") from None


def _sort_in(view: TableView, suffix: str, body: dict[str, Any], payload: bytes) -> None:
    """One message with a ``seq``: a duplicate is counted, a new one read."""
    seq = int(body["seq"])
    if seq in view.seqs:
        view.duplicates += 1
        # Only a hash is kept of old payloads, to bound memory over ten minutes.
        if view.payloads.get(seq) != _digest(payload):
            view.unmarked_duplicates += 1
        return
    view.seqs.add(seq)
    view.payloads[seq] = _digest(payload)
    if suffix == "state" and seq > view.state_seq:
        view.state, view.state_seq = body, seq
    elif suffix == "commands/replies":
        view.replies[str(body.get("id"))] = body
    elif suffix == "events/round_result":
        view.results += 1


def _digest(payload: bytes) -> bytes:
    import hashlib  # noqa: PLC0415 - only here

    return hashlib.blake2b(payload, digest_size=8).digest()


def quiet_broker(broker: Mosquitto) -> None:
    """Restart the broker without per-packet logging, with ``$SYS`` every second and readable."""
    broker.stop()
    config = broker.config_path.read_text()
    config = config.replace("log_type all\n", "log_type error\nlog_type warning\nsys_interval 1\n")
    broker.config_path.write_text(config)
    acl = broker.directory / "acl"
    acl.write_text(acl.read_text().replace("user backend\n", "user backend\ntopic read $SYS/#\n"))
    broker.start()


def client(broker: Mosquitto, name: str) -> aiomqtt.Client:
    return aiomqtt.Client(
        broker.host,
        broker.port,
        username="backend",
        password=PASSWORDS["backend"],
        identifier=f"{name}-{uuid.uuid4().hex[:8]}",
        max_queued_outgoing_messages=100000,
    )


async def collect(broker: Mosquitto, backend: Backend, ready: asyncio.Event) -> None:
    async with aiomqtt.Client(
        broker.host,
        broker.port,
        username="backend",
        password=PASSWORDS["backend"],
        identifier="load-backend",
        clean_session=False,
    ) as subscriber:
        await subscriber.subscribe(f"{DEFAULT_TOPIC_PREFIX}/+/#", qos=1)
        await subscriber.subscribe("$SYS/broker/#", qos=0)
        ready.set()
        async for message in subscriber.messages:
            payload = message.payload
            backend.take(
                message.topic.value,
                payload if isinstance(payload, bytes) else str(payload).encode(),
            )


class Publisher(Protocol):
    """What :func:`command` uses of a client: an ``aiomqtt.Client``, or a wrapper of one."""

    async def publish(self, topic: str, payload: str, qos: int = ...) -> None: ...


async def command(
    publisher: Publisher, backend: Backend, view: TableView, name: str, **args: object
) -> dict[str, Any]:
    command_id = uuid.uuid4().hex
    body = {"id": command_id, "command": name, "operator": "backend", "args": args}
    await publisher.publish(
        f"{DEFAULT_TOPIC_PREFIX}/{view.table_id}/commands", json.dumps(body), qos=1
    )
    await backend.until(lambda: command_id in view.replies, f"{view.table_id} {name}")
    reply = view.replies.pop(command_id)
    if not reply.get("ok"):
        raise LoadError(f"{view.table_id} refused {name}: {reply}")
    return reply


async def drive(  # noqa: PLR0913 - keyword-only pacing options
    publisher: Publisher,
    backend: Backend,
    view: TableView,
    *,
    interval_s: float,
    offset_s: float,
    stop_at: float,
) -> None:
    """One table: a new shoe when needed, a round every ``interval_s`` until ``stop_at``.

    The first round waits ``offset_s``: real tables are not in step. Each step follows the
    table's latest ``state``: between rounds it opens and closes the betting, an open betting
    (its close lost, say in a broker restart) it closes, and while the table burns or deals
    (the RNG card source does both) it waits for the next state.
    """
    loop = asyncio.get_running_loop()
    next_round = loop.time() + offset_s
    shoes = 0
    while loop.time() < stop_at:
        phase = (view.state or {}).get("phase")
        seen = view.state_seq
        if phase in {None, "no_shoe", "shoe_over"}:
            shoes += 1
            shoe_id = f"{view.table_id}-{shoes}"
            seen = (await command(publisher, backend, view, "new_shoe", shoe_id=shoe_id))["seq"]
        elif phase == "between_rounds":
            await asyncio.sleep(max(0.0, next_round - loop.time()))
            next_round += interval_s
            await command(publisher, backend, view, "open_betting")
            seen = (await command(publisher, backend, view, "close_betting"))["seq"]
            view.rounds_started += 1
        elif phase == "betting":
            seen = (await command(publisher, backend, view, "close_betting"))["seq"]
        await backend.until(
            lambda: view.state_seq > int(seen),  # noqa: B023 - awaited in this iteration
            f"{view.table_id} state after {phase}",
        )


async def drive_tables(
    publisher: Publisher, backend: Backend, *, interval_s: float, minutes: float
) -> None:
    """Every table of ``backend`` (:func:`drive`) for ``minutes``, their rounds spread out.

    Table ``i`` of ``n`` starts ``interval_s * i / n`` seconds in, so the rounds of all the
    tables fall evenly over each interval.
    """
    stop_at = asyncio.get_running_loop().time() + minutes * 60
    async with asyncio.TaskGroup() as group:
        for index, view in enumerate(backend.tables.values()):
            group.create_task(
                drive(
                    publisher,
                    backend,
                    view,
                    interval_s=interval_s,
                    offset_s=interval_s * index / len(backend.tables),
                    stop_at=stop_at,
                )
            )


def add_table_options(
    parser: argparse.ArgumentParser, *, tables: int, minutes: float, round_interval: float
) -> None:
    """The options of a run of virtual tables (:func:`start_tables`, :func:`drive_tables`)."""
    parser.add_argument("--tables", type=int, default=tables)
    parser.add_argument("--minutes", type=float, default=minutes)
    parser.add_argument(
        "--round-interval",
        type=float,
        default=round_interval,
        help="seconds between a table's rounds",
    )
    parser.add_argument("--nice", type=int, default=10, help="niceness of the table processes")


def table_figures(options: argparse.Namespace) -> dict[str, Any]:
    """The options of :func:`add_table_options`, as a report names them."""
    return {
        "tables": options.tables,
        "minutes": options.minutes,
        "round_interval_s": options.round_interval,
        "nice": options.nice,
    }


def peak_rss_kb(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def sys_window(series: list[tuple[float, float]], start: float, end: float) -> float | None:
    """The rate per second of a ``$SYS`` counter between two moments, from its samples."""
    inside = [(at, value) for at, value in series if start <= at <= end]
    if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
        return None
    return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])


async def start_tables(
    broker: Mosquitto,
    backend: Backend,
    processes: dict[str, asyncio.subprocess.Process],
    workdir: Path,
    *,
    nice: int,
) -> None:
    """One virtual ``mini`` table per table of ``backend``, each its own process and journal.

    Each process goes into ``processes`` as it starts (so the caller stops every one it has);
    returns once every table is online.
    """
    for table_id in backend.tables:
        with (workdir / f"{table_id}.log").open("ab") as log:
            processes[table_id] = await asyncio.create_subprocess_exec(
                "nice", "-n", str(nice),
                sys.executable, "-m", "table_controller", "run",
                "--table-id", table_id, "--variant", "mini", "--card-source", "rng",
                "--broker", broker.url("backend"),
                "--journal", str(workdir / f"{table_id}.journal"),
                "--display", "off", "--log-level", "warning",
                stdout=asyncio.subprocess.DEVNULL, stderr=log, cwd=ROOT,
            )  # fmt: skip
    await backend.until(
        lambda: all(view.online for view in backend.tables.values()), "every table online"
    )


async def run(options: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    broker = start_broker(trustme.CA())
    processes: dict[str, asyncio.subprocess.Process] = {}
    try:
        quiet_broker(broker)
        ids = [f"L{number:03d}" for number in range(1, options.tables + 1)]
        backend = Backend(tables={table_id: TableView(table_id) for table_id in ids})
        ready = asyncio.Event()
        collector = asyncio.create_task(collect(broker, backend, ready))
        await ready.wait()
        load_before = os.getloadavg()
        spawn_started = time.monotonic()
        await start_tables(broker, backend, processes, workdir, nice=options.nice)
        # The birth goes out before the command subscription: give each table a moment.
        await asyncio.sleep(1.0)
        spawn_s = time.monotonic() - spawn_started
        async with client(broker, "load-commands") as publisher:
            start_mono = time.monotonic()
            received_before = backend.received
            await drive_tables(
                publisher, backend, interval_s=options.round_interval, minutes=options.minutes
            )
            end_mono = time.monotonic()
            received_during = backend.received - received_before
            load_end = os.getloadavg()
        peaks = {table_id: peak_rss_kb(process.pid) for table_id, process in processes.items()}
        for process in processes.values():
            process.send_signal(signal.SIGTERM)
        statuses = [await asyncio.wait_for(p.wait(), 60) for p in processes.values()]
        last = {table_id: outbox_last_seq(workdir / f"{table_id}.journal") for table_id in ids}
        with contextlib.suppress(LoadError):
            await backend.until(
                lambda: all(len(backend.tables[t].seqs) >= last[t] for t in ids),
                "every message at the backend",
            )
        collector.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await collector
        window = end_mono - start_mono
        missing = {
            table_id: [s for s in range(1, last[table_id] + 1) if s not in view.seqs][:20]
            for table_id, view in backend.tables.items()
        }
        rates = {
            topic.removeprefix("$SYS/broker/"): sys_window(
                backend.sys.get(topic, []), start_mono, end_mono
            )
            for topic in SYS_TOPICS[:4]
        }
        averages = {
            topic.removeprefix("$SYS/broker/"): _mean_inside(
                backend.sys.get(topic, []), start_mono, end_mono
            )
            for topic in SYS_TOPICS[4:]
        }
        rounds = sum(view.results for view in backend.tables.values())
        return {
            **table_figures(options),
            "window_s": round(window, 1),
            "spawn_to_all_online_s": round(spawn_s, 1),
            "rounds": rounds,
            "rounds_per_s": round(rounds / window, 2),
            "backend_messages": received_during,
            "backend_messages_per_s": round(received_during / window, 1),
            "table_messages": sum(last.values()),
            "broker_rates_per_s": {k: None if v is None else round(v, 1) for k, v in rates.items()},
            "broker_1min_averages_per_minute": {
                k: None if v is None else round(v, 1) for k, v in averages.items()
            },
            "missing": sum(len(v) for v in missing.values()),
            "missing_examples": {k: v for k, v in missing.items() if v},
            "duplicates": sum(view.duplicates for view in backend.tables.values()),
            "unmarked_duplicates": sum(v.unmarked_duplicates for v in backend.tables.values()),
            "exit_statuses": sorted(set(statuses)),
            "peak_rss_mb_max": round(max(peaks.values(), default=0) / 1024, 1),
            "peak_rss_mb_median": round(sorted(peaks.values())[len(peaks) // 2] / 1024, 1),
            "load_average_start": [round(x, 2) for x in load_before],
            "load_average_end": [round(x, 2) for x in load_end],
            "cpus": os.cpu_count(),
        }
    finally:
        for process in processes.values():
            if process.returncode is None:
                process.kill()
                await process.wait()
        broker.close()


def _mean_inside(series: list[tuple[float, float]], start: float, end: float) -> float | None:
    values = [value for at, value in series if start <= at <= end]
    return sum(values) / len(values) if values else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_table_options(parser, tables=50, minutes=10.0, round_interval=5.0)
    parser.add_argument("--workdir", type=Path, help="journals and logs here (default: a temp dir)")
    parser.add_argument("--report", type=Path, help="write the figures as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    options = parser.parse_args(argv)
    if shutil.which("mosquitto") is None:
        print("mosquitto is not installed", file=sys.stderr)
        return 2
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="tc-load-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        figures = asyncio.run(run(options, workdir))
    finally:
        if options.workdir is None and not options.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    text = json.dumps(figures, indent=2)
    print(text)
    if options.report is not None:
        options.report.write_text(text + "\n")
    lost = figures["missing"] or figures["unmarked_duplicates"] or figures["exit_statuses"] != [0]
    return 1 if lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
