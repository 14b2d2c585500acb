# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The production broker configuration, run by a real mosquitto, enforces logins and the ACL.

``deploy/mosquitto/mosquitto.conf`` is used line for line; only what differs between the
casino's broker host and this test is moved: the files (certificates, password file, ACL,
persistence) into a scratch directory and the two listeners onto free ports of 127.0.0.1.
The logins come from ``create-passwords.sh``, the ACL is ``acl.example`` as shipped, and the
clients are the project's own (``table_controller.publishing.mqtt_*``) over TLS, checking the
broker's certificate. Every refusal is shown next to a positive control: with mosquitto a
denied publish looks like a success to the publisher (STACK.md pitfall 2).
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import aiomqtt
import pytest
import trustme

from table_controller.publishing.authorisation import AuthorisationPolicy, acl_rules
from table_controller.publishing.mqtt_settings import BrokerEndpoint
from table_controller.publishing.mqtt_subscriber import Received, Subscription, publish_once
from tests.deploy.conftest import EXAMPLE_TOML, MOSQUITTO_DIR, require_program
from tests.mosquitto import port_open
from tests.support.ports import free_port
from tests.support.subscriptions import collect, quiet

pytestmark = pytest.mark.broker

CONF = MOSQUITTO_DIR / "mosquitto.conf"
ACL = MOSQUITTO_DIR / "acl.example"
CREATE_PASSWORDS = MOSQUITTO_DIR / "create-passwords.sh"
LOGINS = ("T07", "T08", "backend", "monitor", "pit")
ROOT = "baccarat/tables"
START_TIMEOUT_S = 5.0
#: More than mosquitto's default max_queued_messages (1000), which the config raises.
BACKLOG = 1500


@dataclass
class Broker:
    directory: Path
    conf: Path
    tls_port: int
    plain_port: int
    ca_file: Path
    passwords: dict[str, str]
    process: subprocess.Popen[bytes] | None = None

    def endpoint(self, login: str | None, *, password: str | None = None) -> BrokerEndpoint:
        if login is None:
            return BrokerEndpoint.from_url(
                f"mqtts://127.0.0.1:{self.tls_port}", ca_file=self.ca_file
            )
        secret = self.passwords[login] if password is None else password
        return BrokerEndpoint.from_url(
            f"mqtts://{login}:{secret}@127.0.0.1:{self.tls_port}", ca_file=self.ca_file
        )

    def log(self) -> str:
        path = self.directory / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def start(self) -> None:
        with (self.directory / "mosquitto.log").open("ab") as log:
            self.process = subprocess.Popen(
                ["mosquitto", "-c", str(self.conf)], stdout=log, stderr=log
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"mosquitto refused the configuration:\n{self.log()[-3000:]}")
            if all(port_open(port) for port in (self.tls_port, self.plain_port)):
                return
            time.sleep(0.02)
        pytest.fail(f"mosquitto did not listen in time:\n{self.log()[-3000:]}")

    def stop(self) -> None:
        """SIGTERM: mosquitto saves its sessions and queues before it exits."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


def localised(conf: str, replacements: dict[str, str]) -> str:
    """The shipped configuration with each named line replaced; each must occur once."""
    lines = conf.splitlines()
    for original, replacement in replacements.items():
        found = [n for n, line in enumerate(lines) if line == original]
        assert len(found) == 1, f"the production config should have the line {original!r} once"
        lines[found[0]] = replacement
    return "\n".join(lines) + "\n"


def create_logins(passwd: Path) -> dict[str, str]:
    done = subprocess.run(
        ["bash", str(CREATE_PASSWORDS), str(passwd), *LOGINS],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    printed = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert set(printed) == set(LOGINS)
    assert all(re.fullmatch(r"[0-9a-f]{32}", password) for password in printed.values())
    stored = passwd.read_text()
    assert not any(password in stored for password in printed.values())  # hashes only
    return printed


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    require_program("mosquitto", "mosquitto")
    require_program("mosquitto_passwd", "mosquitto")
    # Not tmp_path: mosquitto started as root reads its files as user mosquitto, and pytest's
    # temporary directories are 0700 (STACK.md pitfall 6).
    directory = Path(tempfile.mkdtemp(prefix="tc-deploy-mosquitto-"))
    directory.chmod(0o755)
    try:
        ca = trustme.CA()
        ca_file = directory / "ca.crt"
        ca.cert_pem.write_to_path(str(ca_file))
        server = ca.issue_cert("127.0.0.1", "localhost")
        server.cert_chain_pems[0].write_to_path(str(directory / "server.crt"))
        server.private_key_pem.write_to_path(str(directory / "server.key"))
        passwords = create_logins(directory / "passwd")
        shutil.copy(ACL, directory / "acl")
        data = directory / "data"
        data.mkdir()
        data.chmod(0o777)
        for path in (
            ca_file,
            directory / "server.crt",
            directory / "server.key",
            directory / "acl",
        ):
            path.chmod(0o644)
        tls_port, plain_port = free_port(), free_port()
        conf = directory / "mosquitto.conf"
        conf.write_text(
            localised(
                CONF.read_text(encoding="utf-8"),
                {
                    "password_file /etc/mosquitto/passwd": f"password_file {directory}/passwd",
                    "acl_file /etc/mosquitto/acl": f"acl_file {directory}/acl",
                    "persistence_location /var/lib/mosquitto/": f"persistence_location {data}/",
                    "listener 8883": f"listener {tls_port} 127.0.0.1",
                    "cafile /etc/mosquitto/certs/ca.crt": f"cafile {ca_file}",
                    "certfile /etc/mosquitto/certs/server.crt": f"certfile {directory}/server.crt",
                    "keyfile /etc/mosquitto/certs/server.key": f"keyfile {directory}/server.key",
                    "listener 1883 127.0.0.1": f"listener {plain_port} 127.0.0.1",
                },
            )
        )
        conf.chmod(0o644)
        running = Broker(
            directory=directory,
            conf=conf,
            tls_port=tls_port,
            plain_port=plain_port,
            ca_file=ca_file,
            passwords=passwords,
        )
        running.start()
        try:
            yield running
        finally:
            running.stop()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


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
    assert "not authorised" in broker.log()  # at log level notice: the operator sees it
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
