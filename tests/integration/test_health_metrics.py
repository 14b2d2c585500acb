# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller run --metrics``: a technician's scrape and probe of a dealing table.

The real command runs as a subprocess against a virtual shoe on a pseudo-terminal and a real
mosquitto; the test deals two rounds, scrapes ``/metrics`` (parsed as Prometheus would), reads
``/health``, then stops the broker and sees the table degraded, not failing.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client.metrics_core import Metric

from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.device import ShoeDevice
from simulators.virtual_shoe.server import PtyPort, VirtualShoe
from simulators.virtual_shoe.shuffle import seeded_order
from tests.integration.running_table import Table, running_table
from tests.mosquitto import Mosquitto
from tests.support.ports import free_port
from tests.support.table_process import scrape, wait_for_display

SEED = 23

pytestmark = pytest.mark.usefixtures("no_leaks")


async def health(http: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, Any]]:
    async with http.get(f"{url}/health") as response:
        body: dict[str, Any] = await response.json()
        return response.status, body


async def health_until(
    http: aiohttp.ClientSession, url: str, what: str, test: Callable[[dict[str, Any]], bool]
) -> tuple[int, dict[str, Any]]:
    async with asyncio.timeout(10):
        while True:
            status, body = await health(http, url)
            if test(body):
                return status, body
            await asyncio.sleep(0.05)
    raise AssertionError(what)  # pragma: no cover - the timeout raises first


def value(families: Mapping[str, Metric], family: str, sample: str | None = None) -> float:
    wanted = sample or family
    found = [s.value for s in families[family].samples if s.name == wanted and not s.labels]
    assert len(found) == 1, (wanted, families[family].samples)
    return float(found[0])


@pytest.mark.broker
@pytest.mark.timeout(60)
async def test_a_technician_scrapes_and_probes_a_dealing_table(
    tmp_path: Path, broker: Mosquitto
) -> None:
    display_port, metrics_port = free_port(), free_port()
    display = f"http://127.0.0.1:{display_port}"
    metrics = f"http://127.0.0.1:{metrics_port}"
    async with (
        VirtualShoe(
            shoe=Shoe(cards=seeded_order(8, SEED), cut_depth=None),
            session=ShoeDevice(),
            port=PtyPort(link=tmp_path / "shoe"),
        ) as shoe,
        running_table(
            tmp_path,
            display_port,
            "--broker", broker.url("T07"),
            "--metrics", f"127.0.0.1:{metrics_port}",
        ) as process,
        aiohttp.ClientSession() as http,
    ):  # fmt: skip
        await wait_for_display(http, display)
        status, body = await health_until(
            http,
            metrics,
            "reader and broker connected",
            lambda body: body["reader"]["connected"] and body["broker"]["connected"],
        )
        assert (status, body["status"], body["problems"]) == (200, "ok", [])
        assert body["table_id"] == "T07"
        assert body["journal"] == {"ok": True}
        assert body["version"]

        table = Table(url=display, http=http, shoe=shoe)
        assert (await table.command("new_shoe", shoe_id="S-1"))["ok"]
        while await table.action() == "burn":
            await table.deal()
        for _ in range(2):
            await table.open_and_close()
            assert (await table.deal_round())["prompt"]["action"] == "result"

        families = await scrape(http, metrics)
        assert value(families, "table_cards", "table_cards_total") == shoe.draws
        assert value(families, "table_rounds", "table_rounds_total") == 2
        timed = value(
            families, "table_card_to_prompt_seconds", "table_card_to_prompt_seconds_count"
        )
        assert timed > 0
        seconds = value(
            families, "table_card_to_prompt_seconds", "table_card_to_prompt_seconds_sum"
        )
        assert 0 < seconds / timed < 1
        assert value(families, "table_reader_connected") == 1
        assert value(families, "table_broker_connected") == 1
        assert value(families, "table_journal_ok") == 1
        info = families["table_info"].samples[0].labels
        assert info["table_id"] == "T07"

        broker.stop()
        status, body = await health_until(
            http, metrics, "broker gone", lambda body: not body["broker"]["connected"]
        )
        assert (status, body["status"]) == (200, "degraded")
        assert any(problem.startswith("broker not connected") for problem in body["problems"])
        assert body["reader"]["connected"]
        families = await scrape(http, metrics)
        assert value(families, "table_broker_connected") == 0

        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 15) == 0
