# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fleet: virtual tables on a pit broker bridged to a central broker, ingest workers, faults.

Bench script (not part of the product). It sets up, from the shipped files and the test
suite's set-ups:

* PostgreSQL 15 in a temp directory (``tests/support/postgres.py``);
* a central broker (``deploy/mosquitto/mosquitto.conf`` + ``acl.example``, the floor bridge's
  block listing this run's tables) and a pit broker (``pit.conf`` + ``pit-acl.example``)
  bridged to it over TLS, localised by ``tests/deploy/rendered_brokers.py``;
* ``--tables`` virtual tables on the pit broker over TLS, each its own
  ``table-controller run --card-source rng --variant commission`` process with its own
  journal, allowing ``resend`` from the ingest (under ``nice``, as ``load_tables.py``);
* ``--workers`` ``table-controller ingest`` workers on the central broker over TLS, one
  shared subscription, into the one database;
* a driver on the pit broker (as the floor's ``monitor`` and ``pit`` logins) that plays a
  round on each table every ``--round-interval`` seconds (``load_tables.py``'s ``drive``).

During the ``--minutes`` of play, at fixed shares of it: the central broker is stopped for
``--central-outage`` seconds (SIGTERM, then started again); the pit broker is restarted, and
with it its bridge (the driver pauses its commands meanwhile); one worker is killed with
SIGKILL and started again 5 s later under its client id; and one table's messages are dropped
at the central broker for ``--drop`` seconds: the bridge's write permission for that table's
root is removed from the central broker's ACL and the broker reloaded (SIGHUP), then put back.
The central broker acknowledges those messages to the bridge and discards them, as a broker
that lost them would; the workers see the gap in what they stored and ask the table with
``resend``.

Afterwards (play stopped, every table's messages stored or ``--settle`` seconds passed, then
the tables stopped with SIGTERM): every ``seq`` from 1 to the last each table's outbox gave is
in PostgreSQL exactly once with the bytes the table published, and every round's row (and its
settlements) equals the table's own journal replayed with ``table-controller replay``. The
figures: messages stored per second during play, delay from a message's ``ts`` (the table
made it) to its row's ``received_at`` (the worker's transaction), p50 and p99 (all messages,
and those made outside the fault windows: the central outage until the bridge and every
worker are connected again, the pit restart until every table and the bridge are connected
again, the worker's kill until 5 s after its restart, the drop and three times
``--gap-wait``; and where the slowest 1 % of those were made), how long after the drop ended
the messages made during it were stored (they come only through ``resend``), each worker's
CPU and peak memory, and the catch-up rate: what was left to store when play ended, stored
while the tables sat idle, per second up to the moment 95 % of it was in. ``--table-cpus``
and ``--worker-cpus`` keep the tables and the workers on CPUs of their own (``taskset``).

Usage: python bench/bench_fleet.py [--tables N] [--minutes M] [--round-interval S]
       [--central-outage S] [--drop S] [--gap-wait S] [--workers N] [--report FILE]
Exit status 0 when every check held, 1 otherwise, 2 when a needed program is missing.
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
from collections.abc import Coroutine, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiomqtt
import trustme

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the set-ups of the test suite live in tests/

from bench import fleet_checks  # noqa: E402
from bench.load_tables import Backend, LoadError, TableView, drive  # noqa: E402
from table_controller.contract.outgoing import DEFAULT_TOPIC_PREFIX  # noqa: E402
from table_controller.ingest.store import IngestStore  # noqa: E402
from table_controller.mqtt.client.connect import new_client  # noqa: E402
from table_controller.mqtt.client.subscriber import Subscription  # noqa: E402
from tests.deploy.rendered_brokers import Broker, rendered_broker  # noqa: E402
from tests.support.postgres import (  # noqa: E402
    Postgres,
    postgres_missing,
    temporary_postgres,
)

MOSQUITTO: Final = ROOT / "deploy" / "mosquitto"
FLOOR_BRIDGE: Final = "bridge-floor1"
VARIANT: Final = "commission"
#: When each fault starts, as a share of the play.
CENTRAL_OUTAGE_AT: Final = 0.15
PIT_RESTART_AT: Final = 0.40
WORKER_KILL_AT: Final = 0.55
DROP_AT: Final = 0.70
WORKER_DOWN_S: Final = 5.0
SAMPLE_EVERY_S: Final = 1.0
#: The longest wait for the bridge and the workers to connect to the central broker again.
RECONNECT_PATIENCE_S: Final = 120.0
#: Tables started at once (each start imports the whole service: a hundred at once starve
#: a small machine), and the minutes without a new birth before the start is given up.
SPAWN_BATCH: Final = 10
BIRTH_PATIENCE: Final = 3


def pinned(cpus: str | None) -> list[str]:
    """The command's prefix that keeps a process on ``cpus`` (``taskset``); none: anywhere."""
    return ["taskset", "-c", cpus] if cpus else []


def table_ids(count: int) -> list[str]:
    return [f"F{number:03d}" for number in range(1, count + 1)]


def central_acl(tables: list[str]) -> str:
    """The shipped ACL with the floor bridge's block listing this run's tables."""
    lines = (MOSQUITTO / "acl.example").read_text(encoding="utf-8").splitlines()
    start = lines.index(f"user {FLOOR_BRIDGE}") + 1
    end = start
    while lines[end].startswith("topic ") and "/tables/" in lines[end]:
        end += 1
    floor = []
    for table_id in tables:
        floor += [
            f"topic write {DEFAULT_TOPIC_PREFIX}/{table_id}/#",
            f"topic read {DEFAULT_TOPIC_PREFIX}/{table_id}/commands",
        ]
    return "\n".join(lines[:start] + floor + lines[end:]) + "\n"


@dataclass
class Worker:
    """One ingest worker: its process (restarted under the same client id) and its figures."""

    name: str
    command: list[str]
    log: Path
    process: asyncio.subprocess.Process | None = None
    cpu_s_done: float = 0.0
    alive_s: float = 0.0
    peak_rss_kb: int = 0
    exit_statuses: list[int] = field(default_factory=list)
    _last_cpu_s: float = 0.0

    async def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                *self.command, stdout=asyncio.subprocess.DEVNULL, stderr=log, cwd=ROOT
            )
        self._last_cpu_s = 0.0

    def sample(self, seconds: float) -> None:
        """Add the CPU time used since the last sample; keep the peak resident memory."""
        if self.process is None or self.process.returncode is not None:
            return
        pid = self.process.pid
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu_s = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            self.cpu_s_done += max(0.0, cpu_s - self._last_cpu_s)
            self._last_cpu_s = cpu_s
            self.alive_s += seconds
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_rss_kb = max(self.peak_rss_kb, int(line.split()[1]))

    async def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.exit_statuses.append(await self.process.wait())

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.exit_statuses.append(await asyncio.wait_for(self.process.wait(), 30))
            except TimeoutError:
                self.process.kill()
                self.exit_statuses.append(await self.process.wait())

    def figures(self) -> dict[str, Any]:
        return {
            "cpu_percent_of_one_core": round(100 * self.cpu_s_done / self.alive_s, 1)
            if self.alive_s
            else None,
            "cpu_s": round(self.cpu_s_done, 1),
            "peak_rss_mb": round(self.peak_rss_kb / 1024, 1),
            "exit_statuses": self.exit_statuses,
        }


class Commands:
    """The driver's commands, on the pit broker as its supervisors' login ``pit``.

    While the gate is shut (the pit broker restarting) a command waits; the bench closes the
    connection before the restart and connects again after it.
    """

    def __init__(self, pit: Broker) -> None:
        self.pit = pit
        self.gate = asyncio.Event()
        self.gate.set()
        self._client: aiomqtt.Client | None = None
        self.sent = 0

    async def connect(self) -> None:
        client = new_client(self.pit.endpoint("pit"), identifier="fleet-commands", persistent=False)
        await client.__aenter__()
        self._client = client

    async def close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(aiomqtt.MqttError, RuntimeError):
                await self._client.__aexit__(None, None, None)
            self._client = None

    async def publish(self, topic: str, payload: str, qos: int = 1) -> None:
        await self.gate.wait()
        assert self._client is not None
        self.sent += 1
        await self._client.publish(topic, payload, qos=qos)


@dataclass
class Fleet:
    options: argparse.Namespace
    workdir: Path
    central: Broker
    pit: Broker
    postgres: Postgres
    ids: list[str]
    tables: dict[str, asyncio.subprocess.Process] = field(default_factory=dict)
    workers: list[Worker] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    faults: list[fleet_checks.Window] = field(default_factory=list)
    stalled: list[str] = field(default_factory=list)
    #: When the central broker dropped the victim's messages.
    dropped: fleet_checks.Window | None = None

    @property
    def victim(self) -> str:
        """The table whose messages the central broker drops for a while."""
        return self.ids[len(self.ids) // 2]

    @property
    def database(self) -> str:
        return self.postgres.url()

    def note(self, what: str) -> None:
        self.events.append({"at": round(time.time(), 1), "what": what})
        print(f"{time.strftime('%H:%M:%S')} {what}", file=sys.stderr, flush=True)

    async def start_tables(self, ids: list[str]) -> None:
        resenders = json.dumps({"ingest": ["ingest"]})
        for table_id in ids:
            env = os.environ | {
                "PYTHONPATH": str(ROOT),
                "TABLE_CONTROLLER_BROKER": (
                    f"mqtts://{table_id}:{self.pit.passwords[table_id]}"
                    f"@127.0.0.1:{self.pit.tls_port}"
                ),
                "TABLE_CONTROLLER_MQTT_CA_FILE": str(self.pit.ca_file),
                "TABLE_CONTROLLER_RESENDERS": resenders,
            }
            with (self.workdir / f"{table_id}.log").open("ab") as log:
                self.tables[table_id] = await asyncio.create_subprocess_exec(
                    *pinned(self.options.table_cpus), "nice", "-n", str(self.options.nice),
                    sys.executable, "-m", "table_controller", "run",
                    "--table-id", table_id, "--variant", VARIANT, "--card-source", "rng",
                    "--journal", str(self.journal(table_id)),
                    "--display", "off", "--log-level", "warning",
                    stdout=asyncio.subprocess.DEVNULL, stderr=log, cwd=ROOT, env=env,
                )  # fmt: skip

    def journal(self, table_id: str) -> Path:
        return self.workdir / f"{table_id}.journal"

    async def start_workers(self) -> None:
        broker = (
            f"mqtts://ingest:{self.central.passwords['ingest']}@127.0.0.1:{self.central.tls_port}"
        )
        for number in range(1, self.options.workers + 1):
            name = f"ingest-w{number}"
            worker = Worker(
                name=name,
                command=[
                    *pinned(self.options.worker_cpus),
                    sys.executable,
                    "-m",
                    "table_controller",
                    "ingest",
                    "--broker",
                    broker,
                    "--ca",
                    str(self.central.ca_file),
                    "--database",
                    self.database,
                    "--client-id",
                    name,
                    "--gap-wait",
                    str(self.options.gap_wait),
                    "--log-level",
                    "warning",
                ],
                log=self.workdir / f"{name}.log",
            )
            await worker.start()
            self.workers.append(worker)

    async def sample_workers(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            for worker in self.workers:
                worker.sample(SAMPLE_EVERY_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), SAMPLE_EVERY_S)

    # --- the faults ----------------------------------------------------------------------

    @staticmethod
    def connections(broker: Broker, clients: list[str]) -> dict[str, int]:
        """How many times each of ``clients`` has connected to ``broker`` (its log)."""
        log = broker.log()
        return {name: log.count(f" as {name} ") for name in clients}

    async def connected_again(self, broker: Broker, before: dict[str, int]) -> None:
        """Wait until each client of ``before`` has connected to ``broker`` again (2 min)."""
        deadline = time.monotonic() + RECONNECT_PATIENCE_S
        while time.monotonic() < deadline:
            now = self.connections(broker, list(before))
            if all(now[name] > count for name, count in before.items()):
                return
            await asyncio.sleep(0.5)

    async def central_outage(self) -> None:
        """The central broker stopped, then started; the fault lasts until its clients are back.

        The bridge retries with backoff (``restart_timeout 2 30`` in ``pit.conf``) and so do the
        workers; a restarted mosquitto keeps no shared subscription, so what reaches it before
        the workers have subscribed again is lost and comes back only through ``resend``.
        """
        started = time.time()
        before = self.connections(
            self.central, [FLOOR_BRIDGE, *(worker.name for worker in self.workers)]
        )
        self.note(f"central broker stopped for {self.options.central_outage} s")
        await asyncio.to_thread(self.central.stop)
        await asyncio.sleep(self.options.central_outage)
        await asyncio.to_thread(self.central.start)
        self.note("central broker started")
        await self.connected_again(self.central, before)
        self.note("the bridge and every worker are connected to the central broker again")
        self.faults.append(fleet_checks.Window(started, time.time()))

    async def pit_restart(self, commands: Commands) -> None:
        """The pit broker restarted; the fault lasts until every table and the bridge are back.

        A table publishes what it made meanwhile once it has connected again (its own backoff).
        """
        started = time.time()
        tables = self.connections(self.pit, [f"table-{table_id}" for table_id in self.ids])
        bridge = self.connections(self.central, [FLOOR_BRIDGE])
        commands.gate.clear()
        await asyncio.sleep(1.0)  # the commands already sent get through
        await commands.close()
        self.note("pit broker (and its bridge) restarting")
        await asyncio.to_thread(self.pit.stop)
        await asyncio.to_thread(self.pit.start)
        await commands.connect()
        commands.gate.set()
        self.note("pit broker back")
        await self.connected_again(self.pit, tables)
        await self.connected_again(self.central, bridge)
        self.note("every table and the bridge are connected again")
        self.faults.append(fleet_checks.Window(started, time.time()))

    async def worker_kill(self) -> None:
        started = time.time()
        worker = self.workers[0]
        self.note(f"{worker.name} killed (SIGKILL)")
        await worker.kill()
        await asyncio.sleep(WORKER_DOWN_S)
        await worker.start()
        self.note(f"{worker.name} started again")
        self.faults.append(fleet_checks.Window(started, time.time() + 5.0))

    async def drop_one_table(self) -> None:
        """The central broker discards one table's messages for a while (ACL, SIGHUP)."""
        started = time.time()
        victim = self.victim
        acl = self.central.directory / "acl"
        full = acl.read_text()
        acl.write_text(full.replace(f"topic write {DEFAULT_TOPIC_PREFIX}/{victim}/#\n", ""))
        self.reload_central()
        self.note(f"central broker drops {victim}'s messages for {self.options.drop} s")
        await asyncio.sleep(self.options.drop)
        acl.write_text(full)
        self.reload_central()
        self.dropped = fleet_checks.Window(started, time.time())
        self.note(f"central broker takes {victim}'s messages again")
        # Its repair waits for the workers' --gap-wait, then for the table's resend.
        self.faults.append(fleet_checks.Window(started, time.time() + 3 * self.options.gap_wait))

    def reload_central(self) -> None:
        assert self.central.process is not None
        self.central.process.send_signal(signal.SIGHUP)


async def feed(
    subscription: Subscription, backend: Backend, at_pit: dict[tuple[str, int], float]
) -> None:
    """Hand the pit broker's messages to the driver; note when each ``seq`` first came."""
    async for message in subscription:
        backend.take(message.topic, message.payload)
        with contextlib.suppress(ValueError, KeyError, TypeError, IndexError):
            key = (message.topic.split("/")[2], int(json.loads(message.payload)["seq"]))
            at_pit.setdefault(key, time.time())


async def play(fleet: Fleet, backend: Backend, commands: Commands) -> fleet_checks.Window:
    """Drive every table for the play's length while the faults happen; the play's window."""
    options = fleet.options
    seconds = options.minutes * 60
    loop = asyncio.get_running_loop()
    start_wall, stop_at = time.time(), loop.time() + seconds

    async def keep_driving(index: int, view: TableView) -> None:
        try:
            await drive(
                commands,
                backend,
                view,
                interval_s=options.round_interval,
                offset_s=options.round_interval * index / len(fleet.ids),
                stop_at=stop_at,
            )
        except LoadError as error:
            fleet.note(f"driver of {view.table_id} stopped: {error}")
            fleet.stalled.append(view.table_id)

    async def at(share: float, fault: Coroutine[None, None, None]) -> None:
        await asyncio.sleep(max(0.0, start_wall + share * seconds - time.time()))
        await fault

    async with asyncio.TaskGroup() as group:
        for index, view in enumerate(backend.tables.values()):
            group.create_task(keep_driving(index, view))
        group.create_task(at(CENTRAL_OUTAGE_AT, fleet.central_outage()))
        group.create_task(at(PIT_RESTART_AT, fleet.pit_restart(commands)))
        group.create_task(at(WORKER_KILL_AT, fleet.worker_kill()))
        group.create_task(at(DROP_AT, fleet.drop_one_table()))
    return fleet_checks.Window(start_wall, time.time())


async def all_online(backend: Backend, views: list[TableView]) -> None:
    """Wait for these tables' births, as long as one more comes online every few minutes."""
    online, idle = 0, 0
    while True:
        try:
            await backend.until(lambda: all(v.online for v in views), "tables online")
        except LoadError:
            now = sum(view.online for view in views)
            idle = 0 if now > online else idle + 1
            if idle >= BIRTH_PATIENCE:
                raise
            online = now
        else:
            return


async def until_stored(fleet: Fleet, store: IngestStore, seconds: float) -> bool:
    """Wait until the database holds as many messages of each table as its outbox gave."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        counts = await fleet_checks.stored_counts(store)
        behind = {
            table_id: last - counts.get(table_id, 0)
            for table_id in fleet.ids
            if (last := fleet_checks.outbox(fleet.journal(table_id))[0]) > counts.get(table_id, 0)
        }
        if not behind:
            return True
        await asyncio.sleep(2.0)
    fleet.note(f"not every message stored after {seconds} s")
    return False


async def run(fleet: Fleet) -> dict[str, Any]:
    options = fleet.options
    views = {table_id: TableView(table_id) for table_id in fleet.ids}
    backend = Backend(tables=views)
    stop_sampling = asyncio.Event()
    commands = Commands(fleet.pit)
    store = await IngestStore.open(fleet.database)  # migrates before the workers start
    try:
        await fleet.start_workers()
        sampler = asyncio.create_task(fleet.sample_workers(stop_sampling))
        async with Subscription(
            fleet.pit.endpoint("monitor"),
            [f"{DEFAULT_TOPIC_PREFIX}/+/#"],
            client_id="fleet-driver",
            persistent=True,
            backoff_max_s=1.0,
        ) as subscription:
            await subscription.wait_subscribed()
            at_pit: dict[tuple[str, int], float] = {}
            feeder = asyncio.create_task(feed(subscription, backend, at_pit))
            spawn = time.monotonic()
            for batch in range(0, len(fleet.ids), SPAWN_BATCH):
                ids = fleet.ids[batch : batch + SPAWN_BATCH]
                await fleet.start_tables(ids)
                await all_online(backend, [views[table_id] for table_id in ids])
            await asyncio.sleep(1.0)  # each table subscribes to its commands after its birth
            fleet.note(f"{len(fleet.ids)} tables online in {time.monotonic() - spawn:.1f} s")
            await commands.connect()
            window = await play(fleet, backend, commands)
            fleet.note("play over; waiting for every message to be stored")
            complete = await until_stored(fleet, store, options.settle)
            for process in fleet.tables.values():
                process.send_signal(signal.SIGTERM)
            statuses = [await asyncio.wait_for(p.wait(), 120) for p in fleet.tables.values()]
            complete = await until_stored(fleet, store, 60) and complete
            await commands.close()
            feeder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await feeder
        stop_sampling.set()
        await sampler
        for worker in fleet.workers:
            await worker.stop()
        fleet.note("checking every seq and every round against the journals")
        journals = {table_id: fleet.journal(table_id) for table_id in fleet.ids}
        seqs = await fleet_checks.check_seqs(store, journals)
        rounds, mismatches = await fleet_checks.check_rounds(store, journals)
        figures = await fleet_checks.delays_and_rate(store, window, fleet.faults, at_pit)
        repairs = await fleet_checks.gap_repair_figures(store, fleet.victim)
        if fleet.dropped is not None:
            repairs |= await fleet_checks.repair_after_drop(store, fleet.victim, fleet.dropped)
    finally:
        await store.close()
    return {
        "tables": len(fleet.ids),
        "workers": options.workers,
        "minutes": options.minutes,
        "round_interval_s": options.round_interval,
        "play_s": round(window.end - window.start, 1),
        "all_stored_before_stop": complete,
        "messages_stored": seqs.messages,
        "every_seq_once": seqs.ok,
        "missing": seqs.missing,
        "extra": seqs.extra,
        "different_bytes": seqs.different,
        "rounds_stored": rounds,
        "round_mismatches": mismatches[:20],
        "round_mismatch_count": len(mismatches),
        **figures,
        "dropped_table": fleet.victim,
        **repairs,
        "workers_figures": {worker.name: worker.figures() for worker in fleet.workers},
        "table_exit_statuses": sorted(set(statuses)),
        "commands_sent": commands.sent,
        "tables_whose_driver_stalled": fleet.stalled,
        "events": fleet.events,
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }


@contextlib.contextmanager
def fleet_parts(options: argparse.Namespace, workdir: Path) -> Iterator[Fleet]:
    """PostgreSQL, the central broker and the pit broker bridged to it; stopped at the end."""
    ids = table_ids(options.tables)
    with ExitStack() as stack:
        postgres = stack.enter_context(temporary_postgres("tc-fleet-postgres-"))
        acl = workdir / "central-acl"
        acl.write_text(central_acl(ids))
        central = stack.enter_context(
            rendered_broker(
                MOSQUITTO / "mosquitto.conf",
                acl,
                ("backend", "ingest", "monitor", "pit", FLOOR_BRIDGE),
                ca=trustme.CA(),
            )
        )
        central.start()
        bridge = {
            "address central.casino.example:8883": f"address 127.0.0.1:{central.tls_port}",
            "remote_password REPLACE-WITH-THE-BRIDGE-PASSWORD": (
                f"remote_password {central.passwords[FLOOR_BRIDGE]}"
            ),
            "bridge_cafile /etc/mosquitto/certs/central-ca.crt": f"bridge_cafile {central.ca_file}",
        }
        pit = stack.enter_context(
            rendered_broker(
                MOSQUITTO / "pit.conf",
                MOSQUITTO / "pit-acl.example",
                (*ids, "monitor", "pit"),
                ca=trustme.CA(),
                replacements=bridge,
            )
        )
        pit.start()
        fleet = Fleet(options, workdir, central, pit, postgres, ids)
        try:
            yield fleet
        finally:
            for process in [*fleet.tables.values(), *(w.process for w in fleet.workers)]:
                if process is not None and process.returncode is None:
                    process.kill()
            for name, broker in (("central", central), ("pit", pit)):
                shutil.copy(broker.directory / "mosquitto.log", workdir / f"{name}-broker.log")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--round-interval", type=float, default=10.0, help="s between rounds")
    parser.add_argument("--central-outage", type=float, default=30.0, help="seconds")
    parser.add_argument("--drop", type=float, default=20.0, help="s of one table dropped")
    parser.add_argument("--gap-wait", type=float, default=10.0, help="the workers' --gap-wait")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--settle", type=float, default=300.0, help="s to wait for the rows")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the table processes")
    parser.add_argument("--table-cpus", help="the tables on these CPUs (taskset -c), e.g. 1")
    parser.add_argument("--worker-cpus", help="the ingest workers on these CPUs, e.g. 0")
    parser.add_argument("--workdir", type=Path, help="journals and logs here (default: temp)")
    parser.add_argument("--report", type=Path, help="write the figures as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir")
    options = parser.parse_args(argv)
    for program in ("mosquitto", "mosquitto_passwd"):
        if shutil.which(program) is None:
            print(f"{program} is not installed", file=sys.stderr)
            return 2
    if (missing := postgres_missing()) is not None:
        print(missing, file=sys.stderr)
        return 2
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="tc-fleet-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"command: {' '.join(sys.argv)}; work directory {workdir}", file=sys.stderr)
    try:
        with fleet_parts(options, workdir) as fleet:
            figures = asyncio.run(run(fleet))
    finally:
        if options.workdir is None and not options.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    text = json.dumps(figures, indent=2, default=str)
    print(text)
    if options.report is not None:
        options.report.write_text(text + "\n")
    passed = (
        figures["every_seq_once"]
        and figures["round_mismatch_count"] == 0
        and figures["table_exit_statuses"] == [0]
    )
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
