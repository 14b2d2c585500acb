# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest worker's CPU per stored message, against PostgreSQL's COPY of the same rows.

A benchmark script, not part of the product. One real virtual table plays a shoe (the messages
of ``tests/support/ingest_table.py``: rounds, a void, corrections, every retained topic); its
messages are copied under ``--tables`` table ids, each table's stream opened by its birth
``status``, and merged in a seeded order as independent tables publish them. With ``--signed``
every table has its own device key and every message is signed by it (the status names the
key, which the ingest pins on first use). One PostgreSQL 15 (``tests/support/postgres.py``: in a
temp directory, ``fsync`` off as in the tests) takes, each on a new database, in one run:

* ``worker``: the worker's own path in this process: the messages as its MQTT client hands them
  over (``ingest.broker.Delivery``), in batches of ``MAX_BATCH`` taken by ``--tasks``
  consumers, through ``IngestWorker.handle_batch`` (trust, checks, storage, projections), the
  heap frozen first (``gc.freeze``) as the worker process freezes its own once started. The
  figure is this process's CPU seconds (``time.process_time``) per stored message;
* ``broker`` (unless ``--no-broker``): the whole worker, ``table-controller ingest`` in its own
  process, subscribed over TLS to a mosquitto run from ``deploy/mosquitto/mosquitto.conf``; the
  messages are published at once (QoS 1, the retained topics retained) once it has subscribed,
  and the figure is the worker process's CPU seconds (``/proc/<pid>/stat``) from the first
  publish to the last row, per stored message;
* ``client KIND`` (with ``broker``), for each KIND of ``--clients``: the share of that which is
  an MQTT client's: a bare subscriber (``bare_subscribers.py``; ``worker``, the default, is the
  worker's own connection, ``ingest/broker.py``) with the worker's shared subscriptions,
  acknowledging the messages by hand a batch at a time and storing nothing; its CPU seconds
  from the first publish to the last message;
* ``copy``: the limit: the same rows of ``messages`` (the columns the worker writes) loaded by
  PostgreSQL's ``COPY`` (asyncpg's ``copy_records_to_table``) into a table with no index,
  rows per second of wall time.

Each worker stage must store every message once and quarantine none. It prints messages per
CPU-second of each stage, the COPY rate and the ratios (medians over ``--rounds``).
``--profile FILE`` writes cProfile's statistics (CPU time) of the ``worker`` stage,
``--profile-worker FILE`` those of the ``broker`` stage's worker process.

Run: ``python bench/bench_ingest_cpu.py [--tables 40] [--signed] [--rounds 1] [--no-broker]
[--clients worker,aiomqtt,...] [--only-clients] [--profile F] [--profile-worker F]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg
import trustme
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.bench_fleet import FLOOR_BRIDGE, MOSQUITTO, central_acl
from table_controller.ingest.broker import Delivery
from table_controller.ingest.store import IngestStore, StoreOutcome
from table_controller.ingest.worker import MAX_BATCH, IngestWorker, WorkerSettings
from table_controller.integrity.signing import DeviceKey
from table_controller.mqtt.client.connect import new_client
from table_controller.mqtt.settings import BrokerEndpoint
from tests.deploy.rendered_brokers import Broker, rendered_broker
from tests.support.ingest_table import play_table
from tests.support.postgres import Postgres, postgres_missing, psql, temporary_postgres

#: Runs ``table-controller`` under cProfile (CPU time) and writes its statistics to argv[1].
PROFILED = (
    "import cProfile, sys, time\n"
    "from table_controller.cli import main\n"
    "out = sys.argv.pop(1)\n"
    "profile = cProfile.Profile(time.process_time)\n"
    "try:\n"
    "    profile.runcall(main, sys.argv[1:])\n"
    "finally:\n"
    "    profile.dump_stats(out)\n"
)
#: The bare subscribers of ``--clients`` (``bare_subscribers.py``).
BARE = Path(__file__).resolve().parent / "bare_subscribers.py"
RETAINED = ("status", "state", "roads", "odds", "stats", "limits")
PREFIX = "baccarat/tables"


def table_stream(
    played: list[tuple[str, bytes]], table_id: str, key: DeviceKey | None
) -> list[tuple[str, bytes]]:
    """The table's messages under ``table_id``, its birth status first, signed with ``key``."""
    birth: dict[str, Any] = {
        "schema": "baccarat-table/1", "type": "status", "table_id": table_id, "online": True,
        "session": 1, "last_seq": len(played), "ts": "2026-11-29T12:00:00.000Z",
        "version": "bench", "reader": "connected",
    }  # fmt: skip
    if key is not None:
        birth["public_key"] = key.public_key
    stream = [(f"{PREFIX}/{table_id}/status", birth)]
    for topic, payload in played:
        message = json.loads(payload)
        message["table_id"] = table_id
        stream.append((topic.replace("/V1/", f"/{table_id}/"), message))
    return [
        (topic, compact(message if key is None else key.sign(message))) for topic, message in stream
    ]


def compact(message: dict[str, object]) -> bytes:
    """A message as the table writes it (``contract.envelope.dumps``)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def fleet(played: list[tuple[str, bytes]], tables: int, *, signed: bool) -> list[tuple[str, bytes]]:
    """Every table's stream, merged in a seeded order (each table's own order kept)."""
    pending = []
    for number in range(tables):
        key = DeviceKey.of(Ed25519PrivateKey.generate()) if signed else None
        pending.append(list(reversed(table_stream(played, f"B{number:03d}", key))))
    draw = random.Random(22)  # an order of publication, not a secret
    merged = []
    while pending:
        table = draw.randrange(len(pending))
        merged.append(pending[table].pop())
        if not pending[table]:
            pending.pop(table)
    return merged


def delivered(messages: list[tuple[str, bytes]]) -> list[Delivery]:
    """The messages as the MQTT client hands them to the worker (shared subscription, QoS 1)."""
    return [
        Delivery(topic, payload, qos=1, mid=1 + n % 65535)
        for n, (topic, payload) in enumerate(messages)
    ]


def numbered(messages: list[tuple[str, bytes]]) -> int:
    return sum(not topic.endswith("/status") for topic, _ in messages)


async def new_database(server: Postgres, name: str) -> str:
    await asyncio.to_thread(psql, server, f"CREATE DATABASE {name}")
    return server.url(name)


async def stored_rows(url: str) -> tuple[int, int]:
    connection = await asyncpg.connect(url)
    try:
        count = await connection.fetchval("SELECT count(*) FROM messages")
        rounds = await connection.fetchval("SELECT count(*) FROM rounds")
    finally:
        await connection.close()
    return int(count), int(rounds)


async def worker_stage(
    server: Postgres, name: str, messages: list[tuple[str, bytes]], options: argparse.Namespace
) -> dict[str, float]:
    """The worker's path in this process: CPU seconds per stored message."""
    url = await new_database(server, name)
    store = await IngestStore.open(url)
    endpoint = BrokerEndpoint.from_url("mqtt://127.0.0.1:1")
    worker = IngestWorker(store, WorkerSettings(endpoint=endpoint, client_id=name))
    work = delivered(messages)
    chunks = iter([work[i : i + MAX_BATCH] for i in range(0, len(work), MAX_BATCH)])
    gc.freeze()  # as ``table-controller ingest`` does once it has started (cli/ingest.py)

    async def consumer() -> None:
        for chunk in chunks:
            await worker.handle_batch(chunk)

    profile = cProfile.Profile(time.process_time) if options.profile else None
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        if profile is not None:
            profile.enable()
        await asyncio.gather(*(consumer() for _ in range(options.tasks)))
        if profile is not None:
            profile.disable()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert store.counts[StoreOutcome.STORED] == numbered(messages), store.counts
        assert store.counts[StoreOutcome.QUARANTINED] == 0, store.counts
    finally:
        await store.close()
    if profile is not None:
        profile.dump_stats(options.profile)
    return {"cpu_s": cpu, "wall_s": wall, "rows": (await stored_rows(url))[0]}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def broker_stage(  # noqa: PLR0913, PLR0917 - the stage's parts
    server: Postgres,
    broker: Broker,
    name: str,
    messages: list[tuple[str, bytes]],
    workdir: Path,
    profile: str | None,
) -> dict[str, float]:
    """The whole worker in its own process: its CPU seconds per stored message."""
    url = await new_database(server, name)
    store = await IngestStore.open(url)  # migrated before the worker starts
    await store.close()
    log = workdir / f"{name}.log"
    login = f"mqtts://ingest:{broker.passwords['ingest']}@127.0.0.1:{broker.tls_port}"
    with log.open("ab") as written:
        process = await asyncio.create_subprocess_exec(
            sys.executable, *(["-c", PROFILED, profile] if profile else ["-m", "table_controller"]),
            "ingest", "--broker", login,
            "--ca", str(broker.ca_file), "--database", url, "--client-id", name, "--group", name,
            "--no-gap-repair", "--log-level", "info",
            stdout=asyncio.subprocess.DEVNULL, stderr=written,
        )  # fmt: skip
    expected = numbered(messages)
    try:
        deadline = time.monotonic() + 60
        while "ingest_connected" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            await asyncio.sleep(0.1)
        await asyncio.sleep(11.0)  # past the retained window: the shared subscription alone
        publisher = new_client(
            broker.endpoint(FLOOR_BRIDGE), identifier=f"{name}-pub", persistent=False
        )
        async with publisher:
            wall, cpu = time.perf_counter(), cpu_seconds(process.pid)
            for topic, payload in messages:
                retain = topic.rsplit("/", 1)[1] in RETAINED
                await publisher.publish(topic, payload, qos=1, retain=retain)
        deadline = time.monotonic() + 300
        while (count := (await stored_rows(url))[0]) < expected:
            assert time.monotonic() < deadline, f"{count} of {expected} stored"
            await asyncio.sleep(0.05)
        wall, cpu = time.perf_counter() - wall, cpu_seconds(process.pid) - cpu
    finally:
        process.terminate()
        await process.wait()
    return {"cpu_s": cpu, "wall_s": wall, "rows": count}


async def client_stage(
    broker: Broker, kind: str, name: str, messages: list[tuple[str, bytes]]
) -> dict[str, float]:
    """A bare subscriber of ``kind`` alone, acknowledging the messages: its CPU seconds."""
    login = f"mqtts://ingest:{broker.passwords['ingest']}@127.0.0.1:{broker.tls_port}"
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(BARE), kind, login, str(broker.ca_file), name, str(len(messages)),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    try:
        ready = (await asyncio.wait_for(process.stdout.readline(), 60)).split()
        publisher = new_client(
            broker.endpoint(FLOOR_BRIDGE), identifier=f"{name}-pub", persistent=False
        )
        async with publisher:
            wall = time.perf_counter()
            for topic, payload in messages:
                retain = topic.rsplit("/", 1)[1] in RETAINED
                await publisher.publish(topic, payload, qos=1, retain=retain)
        done = (await asyncio.wait_for(process.stdout.readline(), 300)).split()
        wall = time.perf_counter() - wall
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
    assert ready[0] == b"ready", ready
    assert done[0] == b"done", done
    return {"cpu_s": float(done[1]) - float(ready[1]), "wall_s": wall}


async def copy_stage(server: Postgres, name: str, messages: list[tuple[str, bytes]]) -> float:
    """The limit: the same rows by COPY into a table with no index; rows per second."""
    url = await new_database(server, name)
    now = datetime.now(UTC)
    records = []
    for topic, payload in messages:
        if topic.endswith("/status"):
            continue
        data = json.loads(payload)
        ts = datetime.fromisoformat(data["ts"]) if data.get("ts") else None
        records.append(
            (
                data["table_id"], data["seq"], topic, data["type"], ts, data.get("shoe_id"),
                data.get("round_id"), payload.decode(), now, None,
            )
        )  # fmt: skip
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(
            "CREATE TABLE copied (table_id varchar(64) NOT NULL, seq bigint NOT NULL,"
            " topic text NOT NULL, type varchar(64) NOT NULL, ts timestamptz,"
            " shoe_id varchar(64), round_id varchar(64), payload text NOT NULL,"
            " received_at timestamptz NOT NULL, verified boolean)"
        )
        wall = time.perf_counter()
        await connection.copy_records_to_table("copied", records=records)
        wall = time.perf_counter() - wall
        assert await connection.fetchval("SELECT count(*) FROM copied") == len(records)
    finally:
        await connection.close()
    return len(records) / wall


def broker_parts(stack: ExitStack, tables: int) -> Broker:
    """A mosquitto from the shipped configuration, the floor bridge allowed every bench table."""
    acl = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tc-bench-acl-"))) / "acl"
    acl.write_text(central_acl([f"B{number:03d}" for number in range(tables)]))
    broker = stack.enter_context(
        rendered_broker(
            MOSQUITTO / "mosquitto.conf", acl, ("ingest", FLOOR_BRIDGE), ca=trustme.CA()
        )
    )
    broker.start()
    return broker


def rate(figures: dict[str, float], count: int) -> float:
    return count / figures["cpu_s"]


async def one_round(  # noqa: PLR0913 - the round's parts
    round_no: int,
    *,
    server: Postgres,
    broker: Broker | None,
    messages: list[tuple[str, bytes]],
    workdir: Path,
    options: argparse.Namespace,
) -> dict[str, float]:
    """Each stage once: messages per CPU-second by stage, and the COPY rate (``copy``)."""
    count = numbered(messages)
    figures: dict[str, float] = {}
    if not options.only_clients:
        stage = await worker_stage(server, f"worker_{round_no}", messages, options)
        figures["worker"] = rate(stage, count)
        print(
            f"  round {round_no + 1} worker: {rate(stage, count):8.0f} messages per CPU-s"
            f" ({1e6 * stage['cpu_s'] / count:.1f} us each; wall {stage['wall_s']:.1f} s)"
        )
    if broker is not None and not options.only_clients:
        stage = await broker_stage(
            server, broker, f"broker_{round_no}", messages, workdir, options.profile_worker
        )
        figures["broker"] = rate(stage, count)
        print(
            f"  round {round_no + 1} broker: {rate(stage, count):8.0f} messages per CPU-s of the"
            f" worker process ({1e6 * stage['cpu_s'] / count:.1f} us each;"
            f" wall {stage['wall_s']:.1f} s)"
        )
    for client in options.clients.split(","):
        if broker is None:
            break
        name = f"client_{client.replace('+', '_')}_{round_no}"
        stage = await client_stage(broker, client, name, messages)
        figures[f"client {client}"] = len(messages) / stage["cpu_s"]
        print(
            f"  round {round_no + 1} client {client}: {len(messages) / stage['cpu_s']:8.0f}"
            f" messages per CPU-s of a bare subscriber"
            f" ({1e6 * stage['cpu_s'] / len(messages):.1f} us each)"
        )
    if not options.only_clients:
        figures["copy"] = await copy_stage(server, f"copy_{round_no}", messages)
        print(f"  round {round_no + 1} copy:   {figures['copy']:8.0f} rows per s")
    return figures


async def main_async(options: argparse.Namespace) -> int:
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="tc-bench-ingest-cpu-"))
    workdir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        if options.workdir is None:
            stack.callback(shutil.rmtree, workdir, ignore_errors=True)
        played = await play_table(workdir)
        messages = fleet(played.messages, options.tables, signed=options.signed)
        kind = "signed" if options.signed else "unsigned"
        print(
            f"{len(messages)} {kind} messages ({numbered(messages)} with a seq):"
            f" {options.tables} tables"
        )
        server = stack.enter_context(temporary_postgres("tc-bench-ingest-cpu-postgres-"))
        broker = None if options.no_broker else broker_parts(stack, options.tables)
        results: dict[str, list[float]] = {}
        for round_no in range(options.rounds):
            figures = await one_round(
                round_no,
                server=server,
                broker=broker,
                messages=messages,
                workdir=workdir,
                options=options,
            )
            for stage, figure in figures.items():
                results.setdefault(stage, []).append(figure)
    copy = statistics.median(results.pop("copy")) if "copy" in results else None
    if copy is not None:
        print(f"COPY into a table with no index: {copy:.0f} rows/s (median of {options.rounds})")
    for stage, rates in results.items():
        median: float = statistics.median(rates)
        ratio = "" if copy is None else f"; COPY / {stage}: {copy / median:.2f}"
        print(
            f"{stage}: {median:.0f} {kind} messages per CPU-s ({1e6 / median:.1f} us each){ratio}"
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--tasks", type=int, default=4, help="consumers, as the worker's")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--signed", action="store_true")
    parser.add_argument("--no-broker", action="store_true", help="skip the whole-worker stage")
    parser.add_argument(
        "--clients",
        default="worker",
        help="bare subscribers, comma-separated (bare_subscribers.py's kinds; default: the"
        " worker's client)",
    )
    parser.add_argument(
        "--only-clients", action="store_true", help="only the bare subscribers' stages"
    )
    parser.add_argument("--workdir", type=Path, help="the workers' logs here (default: temp)")
    parser.add_argument("--profile", help="cProfile statistics of the worker stage, here")
    parser.add_argument("--profile-worker", help="cProfile statistics of the broker stage, here")
    options = parser.parse_args()
    if (missing := postgres_missing()) is not None:
        print(f"PostgreSQL cannot run here: {missing}", file=sys.stderr)
        return 2
    return asyncio.run(main_async(options))


if __name__ == "__main__":
    raise SystemExit(main())
