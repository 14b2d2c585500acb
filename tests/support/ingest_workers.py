# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The real ingest in a test: worker processes, a real table dealing, what the database holds.

Test support. :func:`ingest_process` runs one worker (SIGTERM at the end, its stderr in a log
file); :func:`virtual_table` runs ``table-controller run --card-source rng`` (table ``V1``,
``commission``, its journal in the test's directory); :func:`deal_shoe` deals rounds with
``open_betting``/``close_betting`` through a :class:`~tests.support.backend.Backend` until the
shoe is over; :func:`wait_stored` waits until the database holds every ``seq`` the backend saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Final

import aiomqtt

from table_controller.ingest.store import IngestStore
from table_controller.mqtt.client.connect import new_client
from table_controller.mqtt.client.subscriber import Subscription
from table_controller.mqtt.outbox import Outbox
from table_controller.mqtt.settings import BrokerEndpoint
from table_controller.runtime.clock import utc_now
from tests.mosquitto import Mosquitto
from tests.support.backend import Backend
from tests.support.ingest_table import replayed_rounds
from tests.support.table_process import device_key_file, stop, table_run

TABLE: Final = "V1"
ROOT: Final = f"baccarat/tables/{TABLE}"
#: The operator the ingest's ``resend`` carries and the table lets ask (login ``backend``).
RESENDERS_ENV: Final = {"TABLE_CONTROLLER_RESENDERS": json.dumps({"ingest": ["backend"]})}


@contextlib.asynccontextmanager
async def ingest_process(
    log: Path, broker: Mosquitto, database: str, *args: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``table-controller ingest`` on ``broker`` (login ``backend``) into ``database``."""
    with log.open("ab") as written:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "table_controller", "ingest",
            "--broker", broker.url("backend"), "--database", database, *args,
            stdout=asyncio.subprocess.DEVNULL, stderr=written,
        )  # fmt: skip
    try:
        yield process
    finally:
        await stop(process)


@contextlib.asynccontextmanager
async def virtual_table(
    directory: Path, broker: Mosquitto, env: Mapping[str, str] | None = None, *args: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Table ``V1`` (``commission``, RNG cards) on ``broker``, its journal in ``directory``."""
    async with table_run(
        directory / "run.log",
        "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
        "--broker", broker.url("backend"), "--journal", str(directory / "V1.journal"),
        "--display", "off", *args,
        env={**os.environ, **(env or {})},
    ) as process:  # fmt: skip
        yield process


async def device_key(directory: Path) -> tuple[dict[str, str], str]:
    """A device key in ``directory``: the environment that makes a table sign, its public key.

    Made by the product's own ``keys init`` (:func:`~tests.support.table_process.device_key_file`).
    """
    key, shown = await device_key_file(directory)
    return {"TABLE_CONTROLLER_DEVICE_KEY": str(key)}, str(shown["public_key"])


class CommandingBackend(Backend):
    """A :class:`Backend` whose commands go out on one connection kept open.

    A shoe of commands then takes seconds, not a connection per command.
    """

    def __init__(
        self,
        broker: Mosquitto,
        feed: Subscription,
        client: aiomqtt.Client,
        *,
        secret: bytes | None = None,
    ) -> None:
        super().__init__(broker, feed, ROOT, secret=secret)
        self.client = client

    async def publish_command(self, payload: str) -> None:
        await self.client.publish(f"{self.root}/commands", payload, qos=1)


@contextlib.asynccontextmanager
async def observing(
    broker: Mosquitto, *, secret: bytes | None = None
) -> AsyncIterator[CommandingBackend]:
    """A backend that hears everything of table ``V1`` (its subscription in place) and commands.

    With ``secret``, its commands are signed with it (the table's ``command_secret``).
    """
    endpoint = BrokerEndpoint.from_url(broker.url("backend"))
    async with Subscription(endpoint, [f"{ROOT}/#"], client_id="observer") as feed:
        await feed.wait_subscribed()
        async with new_client(endpoint, identifier="commander", persistent=False) as client:
            yield CommandingBackend(broker, feed, client, secret=secret)


@contextlib.asynccontextmanager
async def connected_ingest(
    log: Path, broker: Mosquitto, database: str, *args: str
) -> AsyncIterator[CommandingBackend]:
    """A backend observing the broker, and an ingest worker (``args``) connected to it."""
    async with observing(broker) as backend, ingest_process(log, broker, database, *args):
        await wait_logged(log, "ingest_connected")
        yield backend


async def deal_shoe(backend: Backend, shoe_id: str, rounds: int | None = None) -> int:
    """A new shoe, then rounds until it is over (or ``rounds`` of them); how many were dealt."""
    assert (await backend.command("new_shoe", shoe_id=shoe_id))["ok"]
    await backend.until_event("burn", shoe_id=shoe_id, done=True)
    dealt = 0
    while rounds is None or dealt < rounds:
        opened = await backend.command("open_betting")
        if not opened["ok"]:
            assert opened["error"] == "wrong_phase", opened
            break
        assert (await backend.command("close_betting"))["ok"]
        dealt += 1
        await backend.until_result(f"{shoe_id}-{dealt}")
    return dealt


async def deal_and_store(backend: Backend, database: str, rounds: int) -> dict[int, bytes]:
    """The table online, ``rounds`` rounds of shoe ``S-1``, each message heard and stored.

    Returns what the backend heard, by ``seq``.
    """
    await backend.wait_online()
    await deal_shoe(backend, "S-1", rounds=rounds)
    await drain(backend)
    seen = seen_messages(backend)
    await wait_stored(database, set(seen))
    return seen


def seen_messages(backend: Backend) -> dict[int, bytes]:
    """Every message with a ``seq`` the backend received, by ``seq`` (the first copy)."""
    seen: dict[int, bytes] = {}
    for message in backend.received:
        with contextlib.suppress(ValueError):
            body = json.loads(message.payload)
            if isinstance(body, dict) and isinstance(body.get("seq"), int):
                seen.setdefault(body["seq"], message.payload)
    return seen


async def drain(backend: Backend, quiet_s: float = 0.5) -> None:
    """Receive until the backend heard nothing for ``quiet_s``."""
    with contextlib.suppress(TimeoutError):
        while True:
            async with asyncio.timeout(quiet_s):
                backend.received.append(await backend.feed.get())


async def query(database: str, sql: str, **parameters: object) -> list[tuple[object, ...]]:
    """The rows of one SQL query on the ingest's database."""
    store = await IngestStore.open(database)
    try:
        return await store.execute(sql, **parameters)
    finally:
        await store.close()


async def stored(database: str, table: str = TABLE) -> dict[int, str]:
    """The payload of every ``seq`` the database holds for ``table``."""
    store = await IngestStore.open(database)
    try:
        rows = await store.execute(
            "SELECT seq, payload FROM messages WHERE table_id = :t ORDER BY seq", t=table
        )
    finally:
        await store.close()
    return {int(str(seq)): str(payload) for seq, payload in rows}


async def wait_stored(database: str, seqs: set[int], timeout_s: float = 60.0) -> dict[int, str]:
    """Wait until the database holds at least ``seqs``; what it holds then.

    A worker may be well behind the table on a loaded machine: the wait is long, and a failure
    says what is still missing.
    """
    held: dict[int, str] = {}
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not seqs <= held.keys():
        missing = sorted(seqs - held.keys())
        assert asyncio.get_running_loop().time() < deadline, f"not stored: {missing[:50]}"
        await asyncio.sleep(0.2)
        held = await stored(database)
    return held


async def wait_quarantined(
    database: str, count: int, timeout_s: float = 60.0
) -> list[tuple[object, ...]]:
    """Wait until the database's quarantine holds ``count`` messages or more; its rows then.

    Each row: ``table_id``, ``seq``, ``type``, ``reason``, ordered by ``seq`` (statuses first).
    """
    sql = (
        "SELECT table_id, seq, type, reason FROM quarantine"
        " ORDER BY seq NULLS FIRST, received_at, sha256"
    )
    deadline = asyncio.get_running_loop().time() + timeout_s
    while len(rows := await query(database, sql)) < count:
        assert asyncio.get_running_loop().time() < deadline, f"quarantined: {rows}"
        await asyncio.sleep(0.2)
    return rows


async def wait_logged(log: Path, event: str, count: int = 1, timeout_s: float = 15.0) -> None:
    """Wait until ``log`` (a worker's JSON log lines) holds ``event`` ``count`` times."""
    async with asyncio.timeout(timeout_s):
        while _logged(log, event) < count:  # noqa: ASYNC110 - polling another process's log
            await asyncio.sleep(0.05)


def _logged(log: Path, event: str) -> int:
    return log.read_text(encoding="utf-8").count(f'"event": "{event}"')


def closing_counts(log: Path) -> dict[str, int]:
    """The counters of a stopped worker's closing line (``table-controller ingest: N stored``)."""
    lines = log.read_text(encoding="utf-8").splitlines()
    closing = [line for line in lines if line.startswith("table-controller ingest: ")][-1]
    counts = {}
    for part in closing.removeprefix("table-controller ingest: ").split(", "):
        number, name = part.split(" ", 1)
        counts[name] = int(number)
    return counts


async def assert_rounds_are_the_journal_replayed(database: str, journal: Path) -> None:
    """Every round's row (status, winner, cards, deciding ``seq``) is the journal replayed."""
    expected = await replayed_rounds(journal)
    store = await IngestStore.open(database)
    try:
        rows = await store.execute(
            "SELECT round_id, status, winner, player_cards, banker_cards, seq FROM rounds"
        )
        assert await store.gaps(TABLE) == []
    finally:
        await store.close()
    assert {row[0]: row[1:] for row in rows} == {
        round_id: (
            want["status"], want["winner"], want["player_cards"], want["banker_cards"], want["seq"]
        )
        for round_id, want in expected.items()
    }  # fmt: skip


def published_rows(journal: Path) -> dict[int, str]:
    """Every message a stopped table published, by ``seq``, from its outbox (none pruned)."""
    with Outbox.open(journal, clock=utc_now) as outbox:
        rows = outbox.rows()
    assert [row.seq for row in rows] == list(range(1, len(rows) + 1))
    return {row.seq: row.payload for row in rows}
