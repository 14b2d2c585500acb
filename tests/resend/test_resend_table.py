# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``resend`` at a real table: ``table-controller run`` over a real mosquitto, a signing key.

A backend deals rounds, then asks for a range again: every message comes back byte for byte
(same ``seq``, same ``sig``), never retained; a stranger, a range too wide and a request over
the minute's limit are refused; after the outbox is pruned, the pruned ``seq`` come back as
``gone``. A big resend running while rounds are dealt leaves the live cards' delay as it is
without one.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from table_controller.mqtt.client.subscriber import Received, Subscription, publish_once
from table_controller.mqtt.outbox import Outbox
from table_controller.mqtt.settings import BrokerEndpoint
from table_controller.runtime.clock import utc_now
from tests.mosquitto import Mosquitto
from tests.support.backend import Backend, listening
from tests.support.ports import free_port
from tests.support.table_process import device_key_file, table_run

pytestmark = pytest.mark.broker

TABLE = "R1"
ROOT = f"baccarat/tables/{TABLE}"
SHOE = "S-R"
RESENDER = "ingest-1"


@asynccontextmanager
async def resending_table(
    tmp_path: Path, broker: Mosquitto, *, metrics_port: int | None = None, **settings: object
) -> AsyncIterator[None]:
    """A virtual table (no betting phase) whose ``ingest-1`` may resend, with a device key."""
    metrics = () if metrics_port is None else ("--metrics", f"127.0.0.1:{metrics_port}")
    key = tmp_path / "device.key"
    if not key.exists():
        await device_key_file(tmp_path)
    env = {
        **os.environ,
        "TABLE_CONTROLLER_DEVICE_KEY": str(key),
        "TABLE_CONTROLLER_RESENDERS": json.dumps({RESENDER: ["backend"]}),
        **{f"TABLE_CONTROLLER_{name.upper()}": json.dumps(value)
           for name, value in settings.items()},
    }
    async with table_run(
        tmp_path / "run.log",
        "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
        "--no-betting-phase", "--broker", broker.url("backend"),
        "--journal", str(tmp_path / f"{TABLE}.journal"), "--display", "off", *metrics,
        env=env,
    ):  # fmt: skip
        yield


async def scrape(port: int) -> dict[str, float]:
    """The table's ``/metrics``: each sample without labels, by name."""
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as got:
        text = await got.text()
    return {sample.name: sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples
            if not sample.labels}


def first_deliveries(received: list[Received]) -> dict[int, Received]:
    """Each ``seq`` as it was first heard (``status`` has none)."""
    first: dict[int, Received] = {}
    for message in received:
        body = json.loads(message.payload)
        if "seq" in body:
            first.setdefault(body["seq"], message)
    return first


def copies_after(received: list[Received], start: int) -> list[Received]:
    """Messages heard from index ``start`` on, but ``status``."""
    return [m for m in received[start:] if not m.topic.endswith("/status")]


async def deal_rounds(backend: Backend, first: int, count: int) -> None:
    for round_no in range(first, first + count):
        assert (await backend.command("deal"))["ok"]
        await backend.until_result(f"{SHOE}-{round_no}")


async def start_shoe(backend: Backend) -> None:
    assert (await backend.command("new_shoe", shoe_id=SHOE))["ok"]
    await backend.until_event("burn", done=True)


async def test_a_resend_gives_back_the_stored_bytes_never_retained_and_names_what_is_gone(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with listening(broker, ROOT, "backend-resend") as backend:
        metrics_port = free_port()
        async with resending_table(tmp_path, broker, metrics_port=metrics_port,
                                   resend_requests_per_minute=3):
            await backend.wait_online()
            await start_shoe(backend)
            await deal_rounds(backend, 1, 3)
            first = first_deliveries(backend.received)
            last = max(first)
            assert sorted(first) == list(range(1, last + 1))
            assert all("sig" in json.loads(m.payload) for m in first.values())
            stranger = await backend.command("resend", from_seq=1, to_seq=last)
            assert (stranger["ok"], stranger["error"]) == (False, "not_authorised")

            heard_from = len(backend.received)
            reply = await backend.command("resend", operator=RESENDER, from_seq=1, to_seq=last)
            assert reply["ok"], reply
            assert (reply["resent"], reply["gone"]) == (last, [])
            assert reply["last_seq"] > last  # the stranger's refusal came after
            again = copies_after(backend.received, heard_from)
            by_seq = {json.loads(m.payload).get("seq"): m for m in again}
            assert set(range(1, last + 1)) <= set(by_seq), [
                (seq, first[seq].topic) for seq in range(1, last + 1) if seq not in by_seq]
            for seq in range(1, last + 1):  # byte for byte: the same seq, the same signature
                assert (by_seq[seq].topic, by_seq[seq].payload) == (first[seq].topic,
                                                                    first[seq].payload)
                assert not by_seq[seq].retain
            await the_retained_state_is_the_newest(broker, backend)

            # The same id again: the same answer, nothing republished, no request counted.
            heard_from = len(backend.received)
            repeated = await backend.send({"id": reply["id"], "command": "resend",
                                           "operator": RESENDER,
                                           "args": {"from_seq": 1, "to_seq": last}})
            assert {k: v for k, v in repeated.items() if k not in {"seq", "ts", "sig"}} == {
                k: v for k, v in reply.items() if k not in {"seq", "ts", "sig"}}
            copies = [json.loads(m.payload).get("seq") for m in
                      copies_after(backend.received, heard_from)]
            assert not [seq for seq in copies if seq is not None and seq <= last], copies
            scraped = await scrape(metrics_port)
            assert scraped["table_resend_requests_total"] == 1  # not the refused, nor the repeat
            assert scraped["table_resent_messages_total"] == last
            assert scraped["table_resends_running"] == 0

            too_wide = await backend.command("resend", operator=RESENDER, from_seq=1,
                                             to_seq=20_000)
            assert (too_wide["ok"], too_wide["error"]) == (False, "bad_range")
            backwards = await backend.command("resend", operator=RESENDER, from_seq=5, to_seq=4)
            assert (backwards["ok"], backwards["error"]) == (False, "bad_range")
            for _ in range(2):  # three a minute: the first one and these two
                assert (await backend.command("resend", operator=RESENDER, from_seq=1,
                                              to_seq=1))["ok"]
            limited = await backend.command("resend", operator=RESENDER, from_seq=1, to_seq=1)
            assert (limited["ok"], limited["error"]) == (False, "rate_limited")
        newest_before = prune_everything_acked(tmp_path / f"{TABLE}.journal")
        async with resending_table(tmp_path, broker):
            await backend.wait_online(1)
            reply = await backend.command("resend", operator=RESENDER, from_seq=1,
                                          to_seq=newest_before + 2)
            assert reply["ok"], reply
            assert reply["gone"] == list(range(1, newest_before))  # the newest row stays
            held = min(newest_before + 2, reply["last_seq"]) - newest_before + 1
            assert reply["resent"] == held
            ahead = reply["last_seq"] + 100  # not given yet: neither resent nor gone
            early = await backend.command("resend", operator=RESENDER, from_seq=ahead,
                                          to_seq=ahead + 5)
            assert (early["ok"], early["resent"], early["gone"]) == (True, 0, [])


async def the_retained_state_is_the_newest(broker: Mosquitto, backend: Backend) -> None:
    """A new subscriber's retained ``state`` is the newest one, not a resent older one."""
    states = [m for m in backend.received if m.topic == f"{ROOT}/state"]
    newest = max(states, key=lambda m: json.loads(m.payload)["seq"])
    endpoint = BrokerEndpoint.from_url(broker.url("backend"))
    async with Subscription(endpoint, [f"{ROOT}/state"], client_id="late-reader") as late:
        async with asyncio.timeout(10):
            retained = await late.get()
    assert retained.retain
    assert retained.payload == newest.payload


def prune_everything_acked(journal: Path) -> int:
    """Prune the stopped table's outbox as its retention would, a year on; its newest seq."""
    with Outbox.open(journal, clock=utc_now) as outbox:
        assert outbox.depth() == 0
        assert outbox.prune_acked(acked_before=utc_now() + timedelta(days=365)) > 0
        rows = outbox.rows()
    assert len(rows) == 1
    return rows[0].seq


def card_delays(received: list[Received], arrived: Mapping[int, float],
                seqs: range) -> list[float]:
    """Seconds from each live card's ``ts`` (the table's clock) to its arrival here."""
    delays = []
    for message in received:
        body = json.loads(message.payload)
        if message.topic.endswith("/events/card") and body["seq"] in seqs:
            stamped = datetime.fromisoformat(body["ts"]).timestamp()
            delays.append(arrived[id(message)] - stamped)
    return delays


class TimedFeed:
    """The backend's feed, noting when each message arrived (wall clock, as the table's ts)."""

    def __init__(self, feed: Subscription) -> None:
        self._feed = feed
        self.arrived: dict[int, float] = {}

    async def get(self) -> Received:
        message = await self._feed.get()
        self.arrived[id(message)] = time.time()
        return message


async def test_a_big_resend_while_cards_are_dealt_does_not_delay_them(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with listening(broker, ROOT, "backend-pace") as backend:
        timed = TimedFeed(backend.feed)
        backend.feed = timed  # type: ignore[assignment]
        async with resending_table(tmp_path, broker, resend_messages_per_second=150):
            await backend.wait_online()
            await start_shoe(backend)
            await deal_rounds(backend, 1, 20)
            filled = max(first_deliveries(backend.received))
            quiet_from = filled + 1
            await deal_rounds(backend, 21, 12)  # without a resend
            busy_from = max(first_deliveries(backend.received)) + 1
            resend = {"id": "big", "command": "resend", "operator": RESENDER,
                      "args": {"from_seq": 1, "to_seq": filled}}
            await publish_once(backend.endpoint, f"{ROOT}/commands", json.dumps(resend))
            await deal_rounds(backend, 33, 12)  # while it runs
            busy_to = max(first_deliveries(backend.received))
            reply = await until_reply(backend, "big")
    assert reply["ok"], reply
    assert reply["resent"] == filled
    assert reply_index(backend, "big") > last_index(backend, busy_to)  # it overlapped the deal
    quiet = card_delays(backend.received, timed.arrived, range(quiet_from, busy_from))
    busy = card_delays(backend.received, timed.arrived, range(busy_from, busy_to + 1))
    assert len(quiet) >= 40
    assert len(busy) >= 40
    # Live cards go out as promptly with a resend running as without (a shared machine's
    # noise allowed for): the median within twice the quiet one plus 5 ms, every card
    # within a quarter of a second.
    assert statistics.median(busy) <= 2 * statistics.median(quiet) + 0.005, (quiet, busy)
    assert max(busy) < 0.25, busy


async def until_reply(backend: Backend, command_id: str) -> dict[str, Any]:
    async with asyncio.timeout(60):
        while True:
            for message in backend.received:
                if message.topic.endswith("/commands/replies"):
                    reply: dict[str, Any] = json.loads(message.payload)
                    if reply["id"] == command_id:
                        return reply
            backend.received.append(await backend.feed.get())


def reply_index(backend: Backend, command_id: str) -> int:
    return next(i for i, m in enumerate(backend.received)
                if m.topic.endswith("/commands/replies")
                and json.loads(m.payload)["id"] == command_id)


def last_index(backend: Backend, seq: int) -> int:
    return next(i for i, m in enumerate(backend.received)
                if json.loads(m.payload).get("seq") == seq)



def replies_to(backend: Backend, command_id: str) -> list[dict[str, Any]]:
    """Every reply to ``command_id`` heard so far, in order."""
    bodies = (json.loads(m.payload) for m in backend.received
              if m.topic.endswith("/commands/replies"))
    return [body for body in bodies if body["id"] == command_id]


def without_envelope(reply: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in reply.items() if name not in {"seq", "ts", "sig"}}


async def test_a_resend_going_out_keeps_its_id_from_other_commands(
    tmp_path: Path, broker: Mosquitto
) -> None:
    """Two messages a second: a resend of ten goes out for seconds, its id its own all along."""
    async with (
        listening(broker, ROOT, "backend-resend-id") as backend,
        resending_table(tmp_path, broker, resend_messages_per_second=2),
    ):
        await backend.wait_online()
        await start_shoe(backend)
        resend = {"id": "r-1", "command": "resend", "operator": RESENDER,
                  "args": {"from_seq": 1, "to_seq": 10}}
        heard_from = len(backend.received)
        await backend.publish_command(json.dumps(resend))
        async with asyncio.timeout(15):  # taken: its first copy is out
            while not copies_after(backend.received, heard_from):
                backend.received.append(await backend.feed.get())
        recall = {"id": "r-1", "command": "recall", "operator": RESENDER, "args": {}}
        assert (await backend.send(recall))["error"] == "id_reused"
        wider = {**resend, "args": {"from_seq": 1, "to_seq": 11}}
        assert (await backend.send(wider))["error"] == "id_reused"
        await backend.publish_command(json.dumps(resend))  # the same: its one reply follows
        async with asyncio.timeout(30):
            while not any("resent" in reply for reply in replies_to(backend, "r-1")):
                backend.received.append(await backend.feed.get())
        done = replies_to(backend, "r-1")[-1]
        assert (done["ok"], done["resent"]) == (True, 10), done
        again = await backend.send(resend)  # answered: the same reply, nothing resent again
        assert without_envelope(again) == without_envelope(done)
        assert (await backend.send(recall))["error"] == "id_reused"
    assert [(r["ok"], r.get("error"), "resent" in r) for r in replies_to(backend, "r-1")] == [
        (False, "id_reused", False),  # the recall
        (False, "id_reused", False),  # the wider range
        (True, None, True),  # the resend, once, however often it was asked meanwhile
        (True, None, True),  # asked again once answered
        (False, "id_reused", False),  # the recall again
    ]
