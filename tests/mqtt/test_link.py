# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's link against a real mosquitto: order, outages, birth and will, TLS, logins."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import threading
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import trustme

from table_controller.contract.envelope import envelope
from table_controller.contract.schema.models import MESSAGE_MODELS
from table_controller.mqtt.client.connect import heed_cancel
from table_controller.mqtt.client.subscriber import Received, Subscription
from table_controller.mqtt.outbox import Outbox, OutboxMessage, stamp
from table_controller.mqtt.settings import BrokerEndpoint, MqttSettings, ProtocolName
from table_controller.runtime.clock import utc_now
from tests.mosquitto import Mosquitto
from tests.mqtt.mqtt_test_support import (
    backend,
    card_message,
    decoded,
    drained,
    event_seqs,
    every_seq,
    running_link,
    start_link_process,
    wait_for_line,
)
from tests.support.subscriptions import collect, quiet

pytestmark = pytest.mark.broker

ALL = "baccarat/tables/#"


def statuses(messages: list[Received]) -> list[dict[str, Any]]:
    return decoded(messages, suffix="/status")


@pytest.mark.parametrize("protocol", ["3.1.1", "5"])
async def test_messages_arrive_in_order_with_birth_first(
    broker: Mosquitto, tmp_path: Path, protocol: ProtocolName
) -> None:
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07", protocol=protocol)
    async with Subscription(backend(broker.url()), [ALL]) as sub:
        await sub.wait_subscribed()
        async with running_link(settings, tmp_path / "t.db") as table:
            for n in range(50):
                table.add(card_message("T07", n))
            got = await collect(sub, until=lambda got: len(event_seqs(got)) >= 50)
            await drained(tmp_path / "t.db")
    assert got[0].topic == "baccarat/tables/T07/status"
    birth = json.loads(got[0].payload)
    # a table that never published anything: last_seq 0, and no seq of its own
    assert (birth["online"], birth["session"], birth["last_seq"]) == (True, 1, 0)
    assert "seq" not in birth
    assert event_seqs(got) == list(range(1, 51))
    assert [json.loads(m.payload)["n"] for m in got if "/events/" in m.topic] == list(range(50))


async def test_clean_shutdown_publishes_offline_with_the_same_session(
    broker: Mosquitto, tmp_path: Path
) -> None:
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    async with Subscription(backend(broker.url()), ["baccarat/tables/T07/status"]) as sub:
        await sub.wait_subscribed()
        for _ in range(2):
            async with running_link(settings, tmp_path / "t.db") as table:
                table.add(card_message("T07", 0))
            await asyncio.sleep(0)
        got = await collect(sub, until=lambda got: len(got) >= 4)
    states = [(s["online"], s["session"]) for s in statuses(got)]
    assert states == [(True, 1), (False, 1), (True, 2), (False, 2)]
    # the offline status is retained: a newcomer sees the table is gone
    async with Subscription(backend(broker.url()), ["baccarat/tables/T07/status"]) as late:
        retained = await collect(late, until=lambda got: len(got) >= 1)
    assert retained[0].retain
    assert json.loads(retained[0].payload)["online"] is False


async def test_kill_9_of_the_table_process_gives_its_will(
    broker: Mosquitto, tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    async with Subscription(backend(broker.url()), ["baccarat/tables/T07/status"]) as sub:
        await sub.wait_subscribed()
        first = start_link_process(broker.url("T07"), db, "T07", add=3)
        try:
            await asyncio.to_thread(wait_for_line, first, "connected")
            first.send_signal(signal.SIGKILL)
            first.wait()
        finally:
            first.kill()
            first.communicate()
        second = start_link_process(broker.url("T07"), db, "T07")
        try:
            await asyncio.to_thread(wait_for_line, second, "connected")
            second.send_signal(signal.SIGTERM)  # clean: it publishes offline itself
            out, _ = await asyncio.to_thread(second.communicate, timeout=10)
        finally:
            second.kill()
        assert "stopped" in out
        got = await collect(sub, until=lambda got: len(got) >= 4)
    states = [(s["online"], s["session"], s.get("last_seq")) for s in statuses(got)]
    # the outbox held seq 1-3 when the first will was registered, and nothing came after
    assert states == [(True, 1, 3), (False, 1, 3), (True, 2, 3), (False, 2, 3)]
    for status in statuses(got):
        assert "seq" not in status
        MESSAGE_MODELS["status"].model_validate(status)


async def test_status_carries_last_seq_and_a_backend_deduplicating_by_seq_loses_nothing(
    broker: Mosquitto, tmp_path: Path
) -> None:
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    db = tmp_path / "t.db"
    async with Subscription(backend(broker.url()), [ALL]) as sub:
        await sub.wait_subscribed()
        async with running_link(settings, db) as table:
            for n in range(5):
                table.add(card_message("T07", n))
            got = await collect(sub, until=lambda got: len(event_seqs(got)) >= 5)
            await drained(db)
            table.link.refresh_status()  # the reader's state changed, say
            got += await collect(sub, until=lambda got: len(statuses(got)) >= 1)
            table.add(card_message("T07", 5))
            got += await collect(sub, until=lambda got: len(event_seqs(got)) >= 1)
            await drained(db)
        got += await collect(sub, until=lambda more: len(statuses(more)) >= 1)
    status_seen = [(s["online"], s["session"], s.get("last_seq")) for s in statuses(got)]
    # birth before any message, the refresh after seq 5, the clean stop after seq 6
    assert status_seen == [(True, 1, 0), (True, 1, 5), (False, 1, 6)]
    assert all("seq" not in status for status in statuses(got))
    # a backend that drops every message whose seq it has seen, status included
    seen: set[int] = set()
    kept: list[dict[str, Any]] = []
    for message in decoded(got):
        seq = message.get("seq")
        if seq in seen:
            continue
        if seq is not None:
            seen.add(seq)
        kept.append(message)
    assert [m["seq"] for m in kept if m["type"] == "card"] == list(range(1, 7))
    assert [m["last_seq"] for m in kept if m["type"] == "status"] == [0, 5, 6]


def _deal_in_background(
    db: Path, count: int, interval_s: float, latencies: list[float], stop: threading.Event
) -> threading.Thread:
    """The dealing path: one input every ``interval_s`` on its own connection and thread."""

    def deal() -> None:
        with Outbox.open(db, clock=utc_now) as writer:
            for n in range(count):
                if stop.is_set():
                    return
                started = time.perf_counter()
                writer.add([card_message("T07", n)])
                latencies.append(time.perf_counter() - started)
                time.sleep(interval_s)

    thread = threading.Thread(target=deal, name="dealer")
    thread.start()
    return thread


async def _outage(broker: Mosquitto, tmp_path: Path, *, outage_s: float, count: int) -> None:
    """Messages stream while the broker stops for ``outage_s`` and comes back."""
    db = tmp_path / "t.db"
    Outbox.open(db, clock=utc_now).close()
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    watcher = backend(broker.url())
    latencies: list[float] = []
    stop = threading.Event()
    async with Subscription(watcher, [ALL], client_id="backend-1", persistent=True) as sub:
        await sub.wait_subscribed()
        async with running_link(settings, db) as table:
            dealer = _deal_in_background(db, count, 0.02, latencies, stop)
            try:
                got = await collect(sub, until=lambda got: len(event_seqs(got)) >= 50)
                await asyncio.to_thread(broker.stop)
                outage_started = time.monotonic()
                await asyncio.sleep(outage_s)
                with Outbox.open(db, clock=utc_now) as outbox:
                    depth_during_outage = outbox.depth()
                await asyncio.to_thread(broker.start)
                got += await collect(
                    sub,
                    until=every_seq(range(1, count + 1), already=got),
                    within_s=count * 0.05 + 30,
                )
            finally:
                stop.set()
                await asyncio.to_thread(dealer.join)
            assert table.link.counters.connects >= 2
    assert len(latencies) == count
    seqs = event_seqs(got)
    assert set(seqs) == set(range(1, count + 1)), "a message was lost"
    by_seq: dict[int, bytes] = {}
    for message in got:
        if "/events/" in message.topic:
            seq = json.loads(message.payload)["seq"]
            # a duplicate is only ever the same message again, same seq, same bytes
            assert by_seq.setdefault(seq, message.payload) == message.payload
    assert depth_during_outage > 0, "the outage did not hold anything back"
    # dealing went on during the outage and never waited for the broker
    assert max(latencies) < 0.5, f"an add took {max(latencies):.3f} s"
    assert time.monotonic() - outage_started >= outage_s


async def test_a_broker_outage_mid_stream_loses_nothing(broker: Mosquitto, tmp_path: Path) -> None:
    await _outage(broker, tmp_path, outage_s=3.0, count=400)


@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_a_30_s_broker_outage_mid_shoe_loses_nothing(
    broker: Mosquitto, tmp_path: Path
) -> None:
    await _outage(broker, tmp_path, outage_s=30.0, count=1800)


async def test_tls_with_the_generated_ca_and_a_client_certificate(
    broker: Mosquitto, tmp_path: Path
) -> None:
    tls = broker.tls
    settings = MqttSettings.from_url(
        broker.tls_url,
        table_id="T07",  # the certificate's CN is the login: T07
        ca_file=tls.ca_file,
        cert_file=tls.table_cert,
        key_file=tls.table_key,
    )
    async with Subscription(backend(broker.url()), [ALL]) as sub:
        await sub.wait_subscribed()
        async with running_link(settings, tmp_path / "t.db") as table:
            table.add(card_message("T07", 0), card_message("T07", 1))
            got = await collect(sub, until=lambda got: len(event_seqs(got)) >= 2)
    assert event_seqs(got) == [1, 2]


async def test_tls_without_a_client_certificate_is_refused(
    broker: Mosquitto, tmp_path: Path
) -> None:
    settings = MqttSettings.from_url(broker.tls_url, table_id="T07", ca_file=broker.tls.ca_file)
    await _refused(broker, tmp_path, settings)


async def test_a_wrong_password_is_refused_and_the_outbox_keeps_everything(
    broker: Mosquitto, tmp_path: Path
) -> None:
    settings = MqttSettings.from_url(broker.url("T07", password="wrong"), table_id="T07")
    error = await _refused(broker, tmp_path, settings)
    assert "authori" in error.lower()


async def test_a_tls_client_that_does_not_trust_the_broker_refuses_it(
    broker: Mosquitto, tmp_path: Path
) -> None:
    stranger = trustme.CA()
    ca_file = tmp_path / "other-ca.pem"
    stranger.cert_pem.write_to_path(str(ca_file))
    settings = MqttSettings.from_url(
        broker.tls_url,
        table_id="T07",
        ca_file=ca_file,
        cert_file=broker.tls.table_cert,
        key_file=broker.tls.table_key,
    )
    error = await _refused(broker, tmp_path, settings)
    assert "certificate" in error.lower()


async def _refused(broker: Mosquitto, tmp_path: Path, settings: MqttSettings) -> str:
    db = tmp_path / "t.db"
    async with Subscription(backend(broker.url()), [ALL]) as sub:
        await sub.wait_subscribed()
        async with running_link(settings, db, wait=False) as table:
            table.add(card_message("T07", 0))
            async with asyncio.timeout(8):  # TLS 1.3 refusals show only as a timeout
                while table.link.counters.errors == 0:  # noqa: ASYNC110 - polling a counter
                    await asyncio.sleep(0.05)
            nothing = await quiet(sub, 0.5)
            assert not table.link.connected
            assert table.link.counters.connects == 0
            assert table.link.counters.errors >= 1
            error = table.link.counters.last_error
    assert nothing == []
    with Outbox.open(db, clock=utc_now) as outbox:
        assert outbox.depth() == 1
    assert error is not None
    return str(error)


def test_endpoint_for_tls_builds_a_verifying_context(broker: Mosquitto) -> None:
    endpoint = BrokerEndpoint.from_url(broker.tls_url, ca_file=broker.tls.ca_file)
    context = endpoint.tls_context()
    assert context is not None
    assert context.check_hostname
    assert replace(endpoint, tls=False).tls_context() is None


async def test_rows_handed_over_in_memory_go_out_before_the_file_holds_them(
    broker: Mosquitto, tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    async with Subscription(backend(broker.url()), ["baccarat/tables/T07/events/#"]) as sub:
        await sub.wait_subscribed()
        async with running_link(settings, db) as table:
            staged = stamp(
                [card_message("T07", n) for n in range(40)],
                first_seq=1,
                added_at="2026-11-29T12:00:00.000Z",
            )
            table.link.offer(staged[:25])
            table.link.offer(staged[25:])
            got = await collect(sub, until=lambda got: len(event_seqs(got)) >= 40)
            assert event_seqs(got) == list(range(1, 41)), "in seq order, several in flight"
            assert [m.payload.decode() for m in got] == [row.payload for row in staged]
            assert table.writer.depth() == 0, "the file holds none of them yet"
            async with asyncio.timeout(5):  # the last PUBACKs may still be on their way
                while table.link.depth:  # noqa: ASYNC110 - polling the link's own count
                    await asyncio.sleep(0.01)
            table.writer.insert(staged)
            table.link.stored(40)
            await drained(db)  # acknowledged in the file once it holds them
            assert table.writer.unacked_after(0, limit=100) == ([], 40)


async def test_let_out_leaves_nothing_to_write(broker: Mosquitto, tmp_path: Path) -> None:
    """``TURNS_TO_THE_SOCKET`` is right for the aiomqtt installed (only latency depends on it).

    This test reads aiomqtt's and paho's private state on purpose: the count is an assumption
    about their insides, and this is where a new version would show it changed.
    """
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    async with running_link(settings, tmp_path / "t.db") as table:
        sender = table.link._sender  # the assumption under test
        assert sender is not None
        paho = sender._client._client
        for first_seq in (1, 2):  # the socket idle, then again at once
            (row,) = stamp(
                [card_message("T07", first_seq)],
                first_seq=first_seq,
                added_at="2026-11-29T12:00:00.000Z",
            )
            mid = paho._last_mid  # paho's last message id
            table.link.offer([row])
            assert paho._last_mid == mid, "nothing is published before the turns"
            await table.link.let_out()
            assert paho._last_mid == mid + 1, "the publish was issued"
            assert not paho.want_write(), "and its packet is on the socket"


async def test_the_links_socket_sends_small_packets_at_once(
    broker: Mosquitto, tmp_path: Path
) -> None:
    """Nagle's algorithm is off (``NO_DELAY``), so a prompt never waits for the card's TCP ack."""
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    async with running_link(settings, tmp_path / "t.db") as table:
        sender = table.link._sender
        assert sender is not None
        connection = sender._client._client.socket()  # paho's socket, read on purpose
        assert isinstance(connection, socket.socket)
        assert connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


async def test_a_broker_that_lost_its_persistence_gets_the_retained_rows_again(
    broker: Mosquitto, tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    state_topic = "baccarat/tables/T07/state"
    body = envelope(
        "state", {"phase": "idle"}, table_id="T07", seq=0, ts="2026-11-29T12:00:00.000Z"
    )
    async with running_link(settings, db) as table:
        table.add(OutboxMessage(key="s:1", topic=state_topic, message=body, retain=True))
        table.add(card_message("T07", 1))
        await drained(db)
        assert table.link.counters.republished == 0, "nothing was acknowledged before connecting"
        await asyncio.to_thread(broker.restart, wipe=True)
        async with asyncio.timeout(10):
            while table.link.counters.connects < 2 or not table.link.connected:  # noqa: ASYNC110
                await asyncio.sleep(0.02)
        async with Subscription(backend(broker.url()), [state_topic]) as late:
            retained = await late.get()
    assert table.link.counters.republished == 1
    assert retained.retain
    assert json.loads(retained.payload)["seq"] == 1, "the same row again, same seq"


async def test_acknowledged_rows_past_the_retention_leave_the_outbox(
    broker: Mosquitto, tmp_path: Path
) -> None:
    settings = replace(
        MqttSettings.from_url(broker.url("T07"), table_id="T07"),
        retention=timedelta(0),
        prune_interval_s=0.1,
    )
    db = tmp_path / "t.db"
    async with running_link(settings, db) as table:
        table.add(*(card_message("T07", n) for n in range(20)))
        await drained(db)
        with Outbox.open(db, clock=utc_now) as outbox:
            async with asyncio.timeout(5):
                while len(outbox.rows()) > 1:  # noqa: ASYNC110 - the link's thread prunes
                    await asyncio.sleep(0.05)
            assert [(row.seq, row.key) for row in outbox.rows()] == [(20, "in:19")]
        table.add(card_message("T07", 20))  # numbering goes on after the pruned rows
        await drained(db)
    with Outbox.open(db, clock=utc_now) as outbox:
        assert outbox.last_seq() == 21
        assert outbox.rows()[-1].key == "in:20"


async def test_without_a_retention_nothing_is_pruned(broker: Mosquitto, tmp_path: Path) -> None:
    settings = replace(
        MqttSettings.from_url(broker.url("T07"), table_id="T07"), prune_interval_s=0.1
    )
    db = tmp_path / "t.db"
    async with running_link(settings, db) as table:
        table.add(*(card_message("T07", n) for n in range(5)))
        await drained(db)
        await asyncio.sleep(0.3)
    with Outbox.open(db, clock=utc_now) as outbox:
        assert len(outbox.rows()) == 5


async def test_a_cancel_that_wait_for_swallowed_still_stops_the_task() -> None:
    """The race behind a stop that waited out its grace: the answer and the cancel at once."""
    answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    went_on: list[bool] = []

    async def status_loop() -> None:
        await asyncio.wait_for(answer, timeout=5)  # as aiomqtt's acknowledged calls do
        heed_cancel()
        went_on.append(True)

    task = asyncio.create_task(status_loop())
    await asyncio.sleep(0)  # waiting for the broker's answer
    answer.set_result(None)
    task.cancel()  # in the same turn
    with pytest.raises(asyncio.CancelledError):
        await task
    assert went_on == []
