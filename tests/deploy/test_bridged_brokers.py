# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A pit broker bridged to a central broker, both from the shipped configurations.

The central broker runs ``deploy/mosquitto/mosquitto.conf`` with ``acl.example``; the pit
broker runs ``pit.conf`` with ``pit-acl.example``, its bridge pointed at the central broker's
TLS listener, checking it against the central broker's own CA (another ``trustme`` CA than
the pit's) with the bridge's login made by ``create-passwords.sh`` on the central side. Only
files, listeners, the bridge's address, CA file and password, and its reconnection delay are
localised (tests/deploy/rendered_brokers.py). Refusals are shown next to a positive control:
a denied publish looks like a success to the publisher.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import aiomqtt
import pytest
import trustme

from table_controller.mqtt.client.connect import new_client
from table_controller.mqtt.client.subscriber import Received, Subscription, publish_once
from tests.deploy.conftest import MOSQUITTO_DIR
from tests.deploy.rendered_brokers import Broker, rendered_broker
from tests.support.subscriptions import collect, quiet

pytestmark = pytest.mark.broker

ROOT = "baccarat/tables"
CENTRAL_LOGINS = ("T07", "T08", "backend", "ingest", "monitor", "pit", "bridge-floor1")
#: T09 has a login on the pit broker but is not among the floor's tables at the central one.
PIT_LOGINS = ("T07", "T08", "T09", "monitor", "pit")
BRIDGE_STATE = "baccarat/bridges/floor1/state"
#: Reconnecting takes the bridge up to its restart_timeout, and the subscriber its backoff.
RECONNECT_S = 20.0


@dataclass
class Floor:
    central: Broker
    pit: Broker


@contextmanager
def bridged_floor(**pit_lines: str) -> Iterator[Floor]:
    """A started central broker and a started pit broker bridged to it.

    ``pit_lines`` replaces more lines of ``pit.conf`` (its original line -> the test's).
    """
    with rendered_broker(
        MOSQUITTO_DIR / "mosquitto.conf",
        MOSQUITTO_DIR / "acl.example",
        CENTRAL_LOGINS,
        ca=trustme.CA(),
    ) as central:
        central.start()
        bridge = {
            "address central.casino.example:8883": f"address 127.0.0.1:{central.tls_port}",
            "remote_password REPLACE-WITH-THE-BRIDGE-PASSWORD": (
                f"remote_password {central.passwords['bridge-floor1']}"
            ),
            "bridge_cafile /etc/mosquitto/certs/central-ca.crt": (
                f"bridge_cafile {central.ca_file}"
            ),
            # Production backs off up to 30 s; the outage tests would wait that long.
            "restart_timeout 2 30": "restart_timeout 1",
            **pit_lines,
        }
        with rendered_broker(
            MOSQUITTO_DIR / "pit.conf",
            MOSQUITTO_DIR / "pit-acl.example",
            PIT_LOGINS,
            ca=trustme.CA(),
            replacements=bridge,
        ) as pit:
            pit.start()
            yield Floor(central=central, pit=pit)


@pytest.fixture(scope="module")
def floor() -> Iterator[Floor]:
    with bridged_floor() as running:
        yield running


def arrived(topic: str, payload: bytes | None = None) -> Callable[[list[Received]], bool]:
    return lambda got: any(
        m.topic == topic and (payload is None or m.payload == payload) for m in got
    )


async def bridge_up(floor: Floor) -> None:
    """Wait until the central broker holds the bridge's retained state "1"."""
    async with Subscription(floor.central.endpoint("monitor"), [BRIDGE_STATE]) as monitor:
        await collect(monitor, until=arrived(BRIDGE_STATE, b"1"), within_s=RECONNECT_S)


async def test_a_tables_messages_on_the_pit_reach_the_central_broker_with_qos_1(
    floor: Floor,
) -> None:
    await bridge_up(floor)
    result = f"{ROOT}/T07/events/round_result"
    status = f"{ROOT}/T07/status"
    async with Subscription(floor.central.endpoint("backend"), [f"{ROOT}/#"]) as backend:
        await backend.wait_subscribed()
        table = floor.pit.endpoint("T07")
        await publish_once(table, status, b'{"online": true}', retain=True)
        await publish_once(table, result, b'{"seq": 1}')
        got = await collect(backend, until=arrived(result))
        got += await quiet(backend, 0.3)
    assert [(m.topic, m.payload, m.qos) for m in got] == [
        (status, b'{"online": true}', 1),
        (result, b'{"seq": 1}', 1),
    ]
    # The retained status stays retained across the bridge: a late subscriber gets it.
    async with Subscription(floor.central.endpoint("monitor"), [status]) as late:
        [first] = await collect(late, until=arrived(status))
    assert first.retain
    assert first.payload == b'{"online": true}'


async def test_a_command_on_the_central_broker_reaches_the_table_on_the_pit(
    floor: Floor,
) -> None:
    await bridge_up(floor)
    commands = f"{ROOT}/T07/commands"
    replies = f"{ROOT}/T07/commands/replies"
    async with (
        Subscription(floor.pit.endpoint("T07"), [commands]) as table,
        Subscription(floor.central.endpoint("backend"), [replies]) as backend,
    ):
        await table.wait_subscribed()
        await backend.wait_subscribed()
        await publish_once(floor.central.endpoint("backend"), commands, b"close_betting")
        await publish_once(floor.central.endpoint("ingest"), commands, b"resend")
        await publish_once(floor.central.endpoint("backend"), f"{ROOT}/T08/commands", b"T08's")
        got = await collect(table, until=lambda got: len(got) >= 2)
        got += await quiet(table, 0.3)
        await publish_once(floor.pit.endpoint("T07"), replies, b"done")
        reply = await collect(backend, until=arrived(replies))
    assert [(m.payload, m.qos) for m in got] == [(b"close_betting", 1), (b"resend", 1)]
    assert [m.payload for m in reply] == [b"done"]


async def test_a_command_given_on_the_pit_reaches_the_table_once(floor: Floor) -> None:
    """The bridge carries it to the central broker too, where no login reads it back."""
    await bridge_up(floor)
    commands = f"{ROOT}/T08/commands"
    async with Subscription(floor.pit.endpoint("T08"), [commands]) as table:
        await table.wait_subscribed()
        await publish_once(floor.pit.endpoint("pit"), commands, b"open_betting")
        got = await collect(table, until=arrived(commands))
        got += await quiet(table, 0.5)
    assert [m.payload for m in got] == [b"open_betting"]


async def test_what_the_pit_published_while_the_central_broker_was_down_arrives_after(
    floor: Floor,
) -> None:
    """The bridge's persistent session queues on the pit and delivers in order once back."""
    await bridge_up(floor)
    results = f"{ROOT}/T07/events/round_result"
    backend = floor.central.endpoint("backend")
    async with Subscription(backend, [results], client_id="ingest-1", persistent=True) as away:
        await away.wait_subscribed()
    floor.central.stop()
    try:
        # The pit's own copy of the bridge's state says it is down.
        async with Subscription(floor.pit.endpoint("monitor"), [BRIDGE_STATE]) as pit_monitor:
            await collect(pit_monitor, until=arrived(BRIDGE_STATE, b"0"))
        table = floor.pit.endpoint("T07")
        async with new_client(table, identifier="table-T07", persistent=True) as client:
            for n in range(50):
                await client.publish(results, str(n).encode(), qos=1)
        await asyncio.sleep(3)
    finally:
        floor.central.start()
    async with Subscription(
        backend, [results], client_id="ingest-1", persistent=True, backoff_max_s=0.5
    ) as back:
        got = await collect(back, until=lambda got: len(got) >= 50, within_s=RECONNECT_S)
        got += await quiet(back, 0.3)
    assert [int(m.payload) for m in got] == list(range(50))
    assert {m.qos for m in got} == {1}


async def test_beyond_the_pits_queue_limit_the_newest_messages_are_dropped_and_logged() -> None:
    """The queue-limits failure: what the tables' outboxes and ``resend`` must make up for."""
    limit = 20
    with bridged_floor(**{"max_queued_messages 500000": f"max_queued_messages {limit}"}) as floor:
        await bridge_up(floor)
        results = f"{ROOT}/T07/events/round_result"
        backend = floor.central.endpoint("backend")
        async with Subscription(backend, [results], client_id="ingest-2", persistent=True) as s:
            await s.wait_subscribed()
        floor.central.stop()
        try:
            table = floor.pit.endpoint("T07")
            async with new_client(table, identifier="table-T07", persistent=True) as client:
                for n in range(limit + 10):
                    await client.publish(results, str(n).encode(), qos=1)
        finally:
            floor.central.start()
        async with Subscription(
            backend, [results], client_id="ingest-2", persistent=True, backoff_max_s=0.5
        ) as back:
            got = await collect(back, until=lambda got: len(got) >= limit, within_s=RECONNECT_S)
            got += await quiet(back, 1.0)
        log = floor.pit.log()
    assert [int(m.payload) for m in got] == list(range(limit))
    assert "Outgoing messages are being dropped for client bridge-floor1.local." in log


@pytest.fixture
def other_ca_file() -> Iterator[Path]:
    """A CA certificate that signed neither broker, in a directory mosquitto can read."""
    directory = Path(tempfile.mkdtemp(prefix="tc-deploy-other-ca-"))
    directory.chmod(0o755)
    other_ca = directory / "other-ca.crt"
    trustme.CA().cert_pem.write_to_path(str(other_ca))
    other_ca.chmod(0o644)
    yield other_ca
    shutil.rmtree(directory, ignore_errors=True)


async def test_the_bridge_refuses_a_central_broker_its_ca_did_not_sign(
    other_ca_file: Path,
) -> None:
    """TLS on the bridge checks the certificate: another CA's broker gets nothing."""
    central_ca = "bridge_cafile /etc/mosquitto/certs/central-ca.crt"
    with bridged_floor(**{central_ca: f"bridge_cafile {other_ca_file}"}) as floor:
        results = f"{ROOT}/T07/events/round_result"
        async with Subscription(floor.central.endpoint("backend"), [results]) as backend:
            await backend.wait_subscribed()
            await publish_once(floor.pit.endpoint("T07"), results, b"kept on the pit")
            assert await quiet(backend, 2.5) == []
        pit_log, central_log = floor.pit.log(), floor.central.log()
    assert "certificate verify failed" in pit_log
    assert "New bridge connected" not in central_log


async def test_the_central_broker_sees_the_bridge_go_down_and_come_back(floor: Floor) -> None:
    """The bridge's will: "0" retained at the central broker while the pit broker is away."""
    await bridge_up(floor)
    async with Subscription(
        floor.central.endpoint("monitor"), [BRIDGE_STATE], backoff_max_s=0.5
    ) as monitor:
        await monitor.wait_subscribed()
        floor.pit.stop()
        try:
            # mosquitto sends the will when the pit's connection closes: at once on a clean
            # stop, after 1.5 keepalive intervals on a cut link.
            await collect(monitor, until=arrived(BRIDGE_STATE, b"0"), within_s=RECONNECT_S)
        finally:
            floor.pit.start()
        await collect(monitor, until=arrived(BRIDGE_STATE, b"1"), within_s=RECONNECT_S)


async def test_a_table_cannot_write_another_tables_topics_on_either_broker(
    floor: Floor,
) -> None:
    await bridge_up(floor)
    own = f"{ROOT}/T07/events/round_result"
    async with (
        Subscription(floor.central.endpoint("backend"), [f"{ROOT}/#"]) as central_backend,
        Subscription(floor.pit.endpoint("monitor"), [f"{ROOT}/#"]) as pit_monitor,
    ):
        await central_backend.wait_subscribed()
        await pit_monitor.wait_subscribed()
        on_pit = floor.pit.endpoint("T07")
        await publish_once(on_pit, f"{ROOT}/T08/events/round_result", b"forged on the pit")
        await publish_once(on_pit, f"{ROOT}/T08/status", b"forged", retain=True)
        # T09 writes its own root on the pit, but it is not a table of floor 1 at the centre.
        await publish_once(floor.pit.endpoint("T09"), f"{ROOT}/T09/status", b"not of floor 1")
        on_central = floor.central.endpoint("T07")
        await publish_once(on_central, f"{ROOT}/T08/events/round_result", b"forged centrally")
        await publish_once(on_pit, own, b"T07's own")  # the positive control
        at_centre = await collect(central_backend, until=arrived(own))
        at_centre += await quiet(central_backend, 0.5)
        at_pit = await collect(pit_monitor, until=arrived(own))
        at_pit += await quiet(pit_monitor, 0.3)
    # What is left of the earlier tests: T07's retained status.
    leftover = f"{ROOT}/T07/status"
    at_centre = [m for m in at_centre if not (m.retain and m.topic == leftover)]
    at_pit = [m for m in at_pit if not (m.retain and m.topic == leftover)]
    assert [(m.topic, m.payload) for m in at_centre] == [(own, b"T07's own")]
    assert [(m.topic, m.payload) for m in at_pit] == [
        (f"{ROOT}/T09/status", b"not of floor 1"),
        (own, b"T07's own"),
    ]


async def test_a_table_with_the_wrong_password_is_refused_by_the_pit(floor: Floor) -> None:
    with pytest.raises(ConnectionError, match=r"(?i)not authori"):
        await publish_once(
            floor.pit.endpoint("T07", password="not-the-password"), f"{ROOT}/T07/status", b"x"
        )
    with pytest.raises(aiomqtt.MqttError):
        async with new_client(
            floor.pit.endpoint("bridge-floor1", password="a bridge has no login on the pit"),
            identifier="impostor",
            persistent=False,
        ):
            pass
