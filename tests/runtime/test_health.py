# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The health rules (pure) and the HTTP server of /health, /health/live and /metrics.

The server is tested over a real TCP socket on 127.0.0.1 with a real registry.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from dataclasses import replace

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from table_controller.runtime.health import (
    OUTBOX_DEPTH_DEGRADED,
    HealthServer,
    Status,
    assess,
    health_document,
)
from table_controller.runtime.metrics import TableMetrics, Vitals
from tests.runtime.vitals import BROKER
from tests.runtime.vitals import HEALTHY as HEALTHY_TABLE

pytestmark = pytest.mark.usefixtures("no_leaks")

HEALTHY = replace(HEALTHY_TABLE, broker=BROKER)
BROKER_DOWN = replace(
    BROKER, connected=False, last_error="MqttError: Operation timed out", errors=1
)


# --- the rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("vitals", "status", "problems"),
    [
        (HEALTHY, Status.OK, ()),
        (replace(HEALTHY, broker=None), Status.OK, ()),
        (replace(HEALTHY, reader_state="offline"), Status.DEGRADED, ("shoe reader offline",)),
        (replace(HEALTHY, reader_state="fault"), Status.DEGRADED, ("shoe reader fault",)),
        (
            replace(HEALTHY, broker=BROKER_DOWN),
            Status.DEGRADED,
            ("broker not connected: MqttError: Operation timed out",),
        ),
        (
            replace(HEALTHY, broker=replace(BROKER, outbox_depth=OUTBOX_DEPTH_DEGRADED + 1)),
            Status.DEGRADED,
            (f"{OUTBOX_DEPTH_DEGRADED + 1} messages wait for the broker",),
        ),
        (
            replace(HEALTHY, broker=replace(BROKER, outbox_depth=OUTBOX_DEPTH_DEGRADED)),
            Status.OK,
            (),
        ),
        (
            replace(HEALTHY, journal_ok=False),
            Status.FAILING,
            ("journal refuses writes: the table is held",),
        ),
        (
            replace(
                HEALTHY, journal_ok=False, journal_cause="database or disk is full (SQLITE_FULL)"
            ),
            Status.FAILING,
            ("journal refuses writes (database or disk is full (SQLITE_FULL)): the table is held",),
        ),
        (
            replace(HEALTHY, phase="faulted"),
            Status.FAILING,
            ("table faulted: a supervisor's void_shoe releases it",),
        ),
        (  # the most severe problem first; every problem listed
            replace(HEALTHY, reader_state="offline", journal_ok=False, broker=BROKER_DOWN),
            Status.FAILING,
            (
                "journal refuses writes: the table is held",
                "shoe reader offline",
                "broker not connected: MqttError: Operation timed out",
            ),
        ),
    ],
)
def test_status_rules(vitals: Vitals, status: Status, problems: tuple[str, ...]) -> None:
    assessment = assess(vitals)
    assert assessment.status is status
    assert assessment.problems == problems


def test_the_document_reports_each_part() -> None:
    document = health_document(replace(HEALTHY, broker=BROKER_DOWN, reader_state="offline"))
    assert document == {
        "status": "degraded",
        "problems": [
            "shoe reader offline",
            "broker not connected: MqttError: Operation timed out",
        ],
        "table_id": "T07",
        "version": "0.1.0",
        "uptime_s": 12.5,
        "phase": "between_rounds",
        "reader": {"state": "offline", "connected": False},
        "broker": {
            "connected": False,
            "last_error": "MqttError: Operation timed out",
            "reconnects": 0,
            "published": 120,
        },
        "journal": {"ok": True},
        "outbox": {"depth": 0},
        "inputs_handled": 40,
        "input_queue_depth": 0,
        "rejected_frames": 0,
    }
    refusing = replace(HEALTHY, journal_ok=False, journal_cause="database or disk is full")
    assert health_document(refusing)["journal"] == {
        "ok": False,
        "cause": "database or disk is full",
    }
    without_broker = health_document(replace(HEALTHY, broker=None))
    assert without_broker["broker"] is None
    assert without_broker["outbox"] is None


# --- the server ----------------------------------------------------------------------------


class Table:
    """Vitals the test changes between requests."""

    def __init__(self) -> None:
        self.now = HEALTHY

    def vitals(self) -> Vitals:
        return self.now


@pytest.fixture
async def served() -> AsyncIterator[tuple[Table, TableMetrics, HealthServer]]:
    table = Table()
    metrics = TableMetrics(table.vitals, table_id="T07", version="0.1.0")
    async with HealthServer(table.vitals, metrics.registry, host="127.0.0.1", port=0) as server:
        yield table, metrics, server


async def get(url: str) -> tuple[int, str, str]:
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        return response.status, response.headers["Content-Type"], await response.text()


async def test_health_is_200_when_ok_or_degraded_and_503_when_failing(
    served: tuple[Table, TableMetrics, HealthServer],
) -> None:
    table, _, server = served
    assert server.port != 0
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{server.url}/health") as response:
            assert response.status == 200
            assert response.headers["Cache-Control"] == "no-store"
            assert (await response.json())["status"] == "ok"
        table.now = replace(HEALTHY, broker=BROKER_DOWN)
        async with http.get(f"{server.url}/health") as response:
            assert response.status == 200
            body = await response.json()
            assert body["status"] == "degraded"
            assert body["broker"]["connected"] is False
        table.now = replace(HEALTHY, journal_ok=False)
        async with http.get(f"{server.url}/health") as response:
            assert response.status == 503
            assert (await response.json())["status"] == "failing"
        async with http.get(f"{server.url}/health/live") as response:  # still alive
            assert response.status == 200
            assert await response.json() == {"status": "alive"}


async def test_metrics_are_the_prometheus_exposition_of_the_registry(
    served: tuple[Table, TableMetrics, HealthServer],
) -> None:
    table, metrics, server = served
    metrics.rounds.inc(3)
    table.now = replace(HEALTHY, broker=replace(BROKER, outbox_depth=9))
    status, content_type, text = await get(f"{server.url}/metrics")
    assert status == 200
    assert content_type.startswith("text/plain")
    assert "version=" in content_type
    values = {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.labels
    }
    assert values["table_rounds_total"] == 3
    assert values["table_outbox_depth"] == 9
    assert values["table_broker_connected"] == 1


async def test_an_unknown_path_is_404(served: tuple[Table, TableMetrics, HealthServer]) -> None:
    _, _, server = served
    status, _, _ = await get(f"{server.url}/")
    assert status == 404


async def test_an_address_in_use_is_refused_and_nothing_is_left_open() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        table = Table()
        metrics = TableMetrics(table.vitals, table_id="T07", version="0.1.0")
        server = HealthServer(table.vitals, metrics.registry, host="127.0.0.1", port=port)
        with pytest.raises(OSError, match="in use"):
            await server.start()
        await server.stop()  # nothing started: nothing to stop


async def test_stop_ends_serving_and_may_be_repeated() -> None:
    table = Table()
    metrics = TableMetrics(table.vitals, table_id="T07", version="0.1.0")
    server = HealthServer(table.vitals, metrics.registry, host="127.0.0.1", port=0)
    await server.start()
    await server.start()  # already serving: no second socket
    url = server.url
    await server.stop()
    await server.stop()
    with pytest.raises(aiohttp.ClientConnectionError):
        await get(f"{url}/health/live")
