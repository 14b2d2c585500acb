# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The production broker configuration, run by a real mosquitto, enforces logins and the ACL.

``deploy/mosquitto/mosquitto.conf`` is used line for line, localised by
``tests/deploy/rendered_brokers.py``; the logins come from ``create-passwords.sh``, the ACL is
``acl.example`` as shipped, and the clients are the project's own
(``table_controller.mqtt.client``) over TLS, checking the broker's certificate. Every
refusal is shown next to a positive control: with mosquitto a denied publish looks like a
success to the publisher.
"""

from __future__ import annotations

import asyncio
import re
import tomllib
from collections.abc import Callable, Iterator

import aiomqtt
import pytest
import trustme

from table_controller.ingress.authorisation import AuthorisationPolicy, acl_rules
from table_controller.mqtt.client.subscriber import Received, Subscription, publish_once
from table_controller.mqtt.settings import BrokerEndpoint
from tests.deploy.conftest import EXAMPLE_TOML, MOSQUITTO_DIR
from tests.deploy.rendered_brokers import Broker, rendered_broker
from tests.support.subscriptions import collect, quiet
from tests.support.waiting import until

pytestmark = pytest.mark.broker

CONF = MOSQUITTO_DIR / "mosquitto.conf"
ACL = MOSQUITTO_DIR / "acl.example"
LOGINS = ("T07", "T08", "backend", "monitor", "pit")
ROOT = "baccarat/tables"
#: More than mosquitto's default max_queued_messages (1000), which the config raises.
BACKLOG = 1500


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    with rendered_broker(CONF, ACL, LOGINS, ca=trustme.CA()) as running:
        running.start()
        yield running


def arrived(topic: str) -> Callable[[list[Received]], bool]:
    return lambda got: any(message.topic == topic for message in got)


async def test_tables_publish_under_their_own_root_only(broker: Broker) -> None:
    result = f"{ROOT}/T07/events/result"
    async with (
        Subscription(broker.endpoint("backend"), [f"{ROOT}/#"]) as backend,
        Subscription(broker.endpoint("monitor"), [f"{ROOT}/#"]) as monitor,
    ):
        await backend.wait_subscribed()
        await monitor.wait_subscribed()
        table = broker.endpoint("T07")
        await publish_once(table, f"{ROOT}/T08/events/result", b"forged by T07")  # denied
        await publish_once(table, f"{ROOT}/T07x/status", b"a root T07 is a prefix of")  # denied
        await publish_once(table, "casino/announcements", b"outside the tables")  # denied
        await publish_once(table, result, b"T07's own result")  # the positive control
        got = await collect(backend, until=arrived(result))
        seen_by_monitor = await collect(monitor, until=arrived(result))
        got += await quiet(backend, 0.3)
    assert [(m.topic, m.payload) for m in got] == [(result, b"T07's own result")]
    assert [m.topic for m in seen_by_monitor] == [result]


async def test_only_the_backend_and_supervisors_reach_a_tables_commands(broker: Broker) -> None:
    commands = f"{ROOT}/T07/commands"
    async with Subscription(broker.endpoint("T07"), [commands]) as table:
        await table.wait_subscribed()
        for login in ("monitor", "T08", "pit", "backend"):
            await publish_once(broker.endpoint(login), commands, f"from {login}".encode())
        got = await collect(table, until=lambda got: len(got) >= 2)
        got += await quiet(table, 0.3)
    assert [m.payload for m in got] == [b"from pit", b"from backend"]


async def test_no_reader_but_the_table_sees_a_command_and_its_pin(broker: Broker) -> None:
    """A ``sign_in`` carries a PIN: backends and monitors read the replies, not the commands."""
    commands = f"{ROOT}/T07/commands"
    replies = f"{ROOT}/T07/commands/replies"
    sign_in = b'{"id": "s-1", "command": "sign_in", "args": {"staff_id": "D-1", "pin": "4821"}}'
    async with (
        Subscription(broker.endpoint("backend"), [f"{ROOT}/#"]) as backend,
        Subscription(broker.endpoint("monitor"), [f"{ROOT}/#"]) as monitor,
        Subscription(broker.endpoint("T07"), [commands]) as table,
    ):
        for subscription in (backend, monitor, table):
            await subscription.wait_subscribed()
        await publish_once(broker.endpoint("backend"), commands, sign_in)
        await publish_once(broker.endpoint("T07"), replies, b'{"id": "s-1", "ok": true}')
        assert [m.payload for m in await collect(table, until=arrived(commands))] == [sign_in]
        for reader in (backend, monitor):
            got = await collect(reader, until=arrived(replies))
            got += await quiet(reader, 0.3)
            assert [m.topic for m in got] == [replies]


async def test_a_table_reads_its_own_commands_and_nothing_of_another_table(broker: Broker) -> None:
    own_commands = f"{ROOT}/T08/commands"
    async with Subscription(broker.endpoint("T08"), [f"{ROOT}/T07/#", own_commands]) as spy:
        await spy.wait_subscribed()
        await publish_once(broker.endpoint("T07"), f"{ROOT}/T07/events/card", b"a card")
        await publish_once(broker.endpoint("backend"), own_commands, b"close_betting")
        got = await collect(spy, until=arrived(own_commands))
        got += await quiet(spy, 0.3)
    assert [m.topic for m in got] == [own_commands]


async def test_supervisors_read_the_replies_and_no_results(broker: Broker) -> None:
    replies = f"{ROOT}/T07/commands/replies"
    async with Subscription(broker.endpoint("pit"), [f"{ROOT}/T07/#"]) as pit:
        await pit.wait_subscribed()
        table = broker.endpoint("T07")
        await publish_once(table, f"{ROOT}/T07/events/result", b"a result")
        await publish_once(table, replies, b"a reply")
        got = await collect(pit, until=arrived(replies))
        got += await quiet(pit, 0.3)
    assert [m.topic for m in got] == [replies]


@pytest.mark.parametrize(
    ("login", "password"),
    [("backend", "not-the-password"), ("stranger", "whatever"), (None, None)],
    ids=["wrong password", "unknown login", "anonymous"],
)
async def test_logins_without_the_right_password_are_refused(
    broker: Broker, login: str | None, password: str | None
) -> None:
    endpoint = broker.endpoint(login, password=password) if login else broker.endpoint(None)
    if login == "stranger":
        endpoint = BrokerEndpoint.from_url(
            f"mqtts://stranger:{password}@127.0.0.1:{broker.tls_port}", ca_file=broker.ca_file
        )
    with pytest.raises(ConnectionError, match=r"(?i)not authori"):
        await publish_once(endpoint, f"{ROOT}/T07/commands", b"{}")
    # at log level notice, the operator sees it; mosquitto may write it after its refusal
    await until(lambda: "not authorised" in broker.log())
    await publish_once(broker.endpoint("backend"), f"{ROOT}/T07/commands", b"{}")  # control


async def test_the_tls_listener_speaks_only_tls_and_plain_mqtt_is_local(broker: Broker) -> None:
    plain_to_tls = BrokerEndpoint.from_url(
        f"mqtt://backend:{broker.passwords['backend']}@127.0.0.1:{broker.tls_port}"
    )
    # mosquitto waits for a TLS handshake that never comes: no CONNACK, ever.
    with pytest.raises((ConnectionError, TimeoutError)):
        async with asyncio.timeout(1.5):
            await publish_once(plain_to_tls, f"{ROOT}/T07/commands", b"{}")
    local = BrokerEndpoint.from_url(
        f"mqtt://backend:{broker.passwords['backend']}@127.0.0.1:{broker.plain_port}"
    )
    await publish_once(local, f"{ROOT}/T07/commands", b"{}")
    conf = CONF.read_text(encoding="utf-8")
    plain_listeners = re.findall(r"(?m)^listener (\d+)(.*)$", conf)
    assert ("1883", " 127.0.0.1") in plain_listeners  # the plain listener is loopback only
    assert ("8883", "") in plain_listeners


async def test_a_backlog_beyond_the_default_queue_survives_a_broker_restart(broker: Broker) -> None:
    """A persistent backend away while a table publishes gets everything, restart or not."""
    results = f"{ROOT}/T07/events/result"
    backend = broker.endpoint("backend")
    async with Subscription(backend, [results], client_id="backend-1", persistent=True) as away:
        await away.wait_subscribed()
    table = broker.endpoint("T07")
    async with aiomqtt.Client(
        table.host,
        table.port,
        username=table.username,
        password=table.password,
        identifier="table-T07",
        tls_context=table.tls_context(),
    ) as client:
        for n in range(BACKLOG):
            await client.publish(results, str(n).encode(), qos=1)
    broker.stop()
    broker.start()
    async with Subscription(backend, [results], client_id="backend-1", persistent=True) as back:
        got = await collect(back, until=lambda got: len(got) >= BACKLOG, within_s=30)
        got += await quiet(back, 0.3)
    assert [int(m.payload) for m in got] == list(range(BACKLOG))


def test_the_example_acls_supervisor_block_is_what_acl_rules_writes() -> None:
    """For the supervisors and topic prefix of the example table configuration."""
    table = tomllib.loads(EXAMPLE_TOML.read_text(encoding="utf-8"))
    supervisors = {operator: frozenset(logins) for operator, logins in table["supervisors"].items()}
    policy = AuthorisationPolicy(supervisors=supervisors)
    generated = acl_rules(policy, topic_prefix=table["topic_prefix"])
    example = ACL.read_text(encoding="utf-8")
    assert generated in example
