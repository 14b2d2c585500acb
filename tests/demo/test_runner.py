# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo run in this process: every descriptor, task and child is gone when it returns."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from table_controller.demo.runner import DemoSettings, display_url, run_demo, run_flags
from table_controller.mqtt import ProtocolName

pytestmark = pytest.mark.usefixtures("no_leaks")

SETTINGS = DemoSettings(
    table_id="T05",
    variant="lucky",
    decks=8,
    reshuffle_every_round=False,
    topic_prefix="casino/tables",
    broker_url=None,
    display=None,
    journal=None,
    speed=50,
    rounds=2,
    seed=1,
)


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8080/"),
        ("0.0.0.0", "http://127.0.0.1:8080/"),
        ("::1", "http://[::1]:8080/"),
    ],
)
def test_the_display_url_is_one_a_browser_opens(host: str, url: str) -> None:
    assert display_url(host, 8080) == url


def test_the_table_service_gets_the_demo_s_settings_and_the_ones_passed_on() -> None:
    flags = run_flags(
        replace(SETTINGS, run_flags=("--log-level", "debug")),
        port=Path("/tmp/x/shoe"),
        journal=Path("/tmp/x/T05.journal"),
        broker_url="mqtt://127.0.0.1:1883",
    )

    def value(flag: str) -> str:
        return flags[flags.index(flag) + 1]

    assert value("--table-id") == "T05"
    assert value("--variant") == "lucky"
    assert value("--port") == "/tmp/x/shoe"
    assert value("--journal") == "/tmp/x/T05.journal"
    assert value("--broker") == "mqtt://127.0.0.1:1883"
    assert value("--display") == "off"
    assert value("--topic-prefix") == "casino/tables"
    assert value("--protocol") == "srp"
    assert value("--card-source") == "reader"
    assert "--betting-phase" in flags
    assert flags[-2:] == ["--log-level", "debug"]


@pytest.mark.parametrize("protocol", ["3.1.1", "5"])
async def test_a_short_demo_in_this_process_leaves_nothing_behind(protocol: ProtocolName) -> None:
    out: list[str] = []
    err: list[str] = []
    settings = replace(SETTINGS, mqtt_protocol=protocol)  # the backend's, on the demo's broker
    status = await run_demo(settings, out=out.append, err=err.append)
    assert status == 0, err
    results = [line for line in out if re.match(r"T05 T05-S0001-\d+  (BANKER|PLAYER|TIE) ", line)]
    assert len(results) == 2
    assert out[-1].startswith("T05 OFFLINE")
    assert err == ["table-controller demo: 2 results, 0 duplicates, 0 gaps"]
    assert_removed(out)


def assert_removed(out: list[str]) -> None:
    """The temporary directory named in the header is gone."""
    workdir = re.search(r"(/\S*/table-controller-demo-[^/\s]+)/", "\n".join(out))
    assert workdir is not None
    assert not Path(workdir[1]).exists()
