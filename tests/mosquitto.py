# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real mosquitto for the tests: generated configuration, users, ACL and a TLS listener.

Test support. The broker runs from a temp directory made 0o755 with files 0o644, because
mosquitto started as root switches to the user ``mosquitto`` before it reads them; the
persistence directory is world-writable for the same reason. Ports are picked by binding port 0
(``listener 0`` would be a unix socket). ``stop``/``start`` keep the ports, so a restart looks
to the clients like the same broker coming back; ``wipe=True`` also forgets its persisted
sessions.

ACL: ``backend`` may read and write everything under ``baccarat/``; every table login (user
name = table id, or the CN of its certificate on the TLS listener) may write under its own
``baccarat/tables/<id>/`` and read its own ``commands`` topic; the supervisor login ``pit`` may
publish to every table's ``commands`` and read the replies; ``intruder`` has a password but no
ACL rule at all, so the broker drops its publishes.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trustme

from tests.support.ports import free_port

#: The logins of every test broker, with their passwords.
PASSWORDS: Final = {
    "backend": "backend-secret",
    "T07": "t07-secret",
    "T08": "t08-secret",
    "pit": "pit-secret",
    "intruder": "intruder-secret",
}
TABLE_CERT_CN: Final = "T07"
START_TIMEOUT_S: Final = 5.0

ACL: Final = """\
# The backend reads every table and may give commands.
user backend
topic readwrite baccarat/#

# The supervisors' login: commands to any table, and the replies.
user pit
topic write baccarat/tables/+/commands
topic read baccarat/tables/+/commands/replies

# The user intruder has no rule: everything is denied.

# Every table (user name = table id) publishes under its own root and reads its commands.
pattern write baccarat/tables/%u/#
pattern read baccarat/tables/%u/commands
"""


class BrokerUnavailableError(RuntimeError):
    """mosquitto is not installed, or did not start (its log is in the message)."""


def port_open(port: int) -> bool:
    """Whether something accepts connections on ``port`` of 127.0.0.1."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


@dataclass(frozen=True, slots=True, kw_only=True)
class TlsFiles:
    ca_file: Path
    table_cert: Path
    table_key: Path


class Mosquitto:
    """One broker process and its directory; use :func:`start_broker` to make one."""

    def __init__(self, directory: Path, ca: trustme.CA) -> None:
        self.directory = directory
        self.host = "127.0.0.1"
        self.port = free_port()
        self.tls_port = free_port()
        self.log_path = directory / "mosquitto.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.tls = self._write_tls(ca)
        self._write_users()
        (directory / "acl").write_text(ACL)
        self.data_dir = directory / "data"
        self.data_dir.mkdir()
        self.data_dir.chmod(0o777)
        self._write_config()
        for path in directory.iterdir():
            if path.is_file():
                path.chmod(0o644)

    def _write_tls(self, ca: trustme.CA) -> TlsFiles:
        ca_file = self.directory / "ca.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        server = ca.issue_cert("127.0.0.1", "localhost")
        server.cert_chain_pems[0].write_to_path(str(self.directory / "server.crt"))
        server.private_key_pem.write_to_path(str(self.directory / "server.key"))
        table = ca.issue_cert("t07.test", common_name=TABLE_CERT_CN)
        table_cert = self.directory / "table.crt"
        table_key = self.directory / "table.key"
        table.cert_chain_pems[0].write_to_path(str(table_cert))
        table.private_key_pem.write_to_path(str(table_key))
        return TlsFiles(ca_file=ca_file, table_cert=table_cert, table_key=table_key)

    def _write_users(self) -> None:
        (self.directory / "passwd").write_text(_password_file())

    def _write_config(self) -> None:
        directory = self.directory
        self.config_path = directory / "mosquitto.conf"
        self.config_path.write_text(
            f"""\
per_listener_settings false
allow_anonymous false
password_file {directory}/passwd
acl_file {directory}/acl
persistence true
persistence_location {self.data_dir}/
# A backend away for a while must not lose what queued for it (the default keeps 1000).
max_queued_messages 100000
log_dest stderr
log_type all
listener {self.port} {self.host}
listener {self.tls_port} {self.host}
cafile {self.tls.ca_file}
certfile {directory}/server.crt
keyfile {directory}/server.key
require_certificate true
use_identity_as_username true
"""
        )

    def url(self, user: str = "backend", *, password: str | None = None) -> str:
        secret = PASSWORDS[user] if password is None else password
        return f"mqtt://{user}:{secret}@{self.host}:{self.port}"

    @property
    def tls_url(self) -> str:
        return f"mqtts://{self.host}:{self.tls_port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the broker and return once its plain port accepts connections."""
        assert not self.running
        log = self.log_path.open("ab")
        try:
            self.process = subprocess.Popen(
                ["mosquitto", "-c", str(self.config_path)], stdout=log, stderr=log
            )
        finally:
            log.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrokerUnavailableError(f"mosquitto exited:\n{self.log()[-2000:]}")
            if port_open(self.port) and port_open(self.tls_port):
                return
            time.sleep(0.02)
        self.stop()
        raise BrokerUnavailableError(f"mosquitto did not listen in time:\n{self.log()[-2000:]}")

    def stop(self) -> None:
        """SIGTERM and wait: mosquitto saves its persistent sessions first."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        """SIGKILL: a crash; what it did not save is gone."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.process = None

    def restart(self, *, wipe: bool = False) -> None:
        self.stop()
        if wipe:
            for path in self.data_dir.iterdir():
                path.unlink()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


@functools.cache
def _password_file() -> str:
    """The password file of :data:`PASSWORDS`, hashed by ``mosquitto_passwd`` once per process.

    Every broker takes the same logins: a call per login per broker would cost a test a
    tenth of a second.
    """
    with tempfile.TemporaryDirectory() as directory:
        passwd = Path(directory) / "passwd"
        create = ["-c"]
        for user, password in PASSWORDS.items():
            subprocess.run(
                ["mosquitto_passwd", *create, "-b", str(passwd), user, password],
                check=True,
                capture_output=True,
            )
            create = []
        return passwd.read_text()


def mosquitto_missing() -> str | None:
    """Why the broker tests cannot run here, or ``None`` when they can."""
    for program in ("mosquitto", "mosquitto_passwd"):
        if shutil.which(program) is None:
            return f"{program} is not installed (apt-get install mosquitto)"
    return None


def start_broker(ca: trustme.CA) -> Mosquitto:
    """A started broker in a fresh 0o755 directory under the system temp directory.

    A ``tmp_path`` will not do: pytest makes its parents 0o700, and the broker, no longer
    root, could not reach its files. One retry covers a port taken between probe and bind.
    """
    for attempt in range(2):
        directory = Path(tempfile.mkdtemp(prefix="tc-mosquitto-"))
        directory.chmod(0o755)
        broker = Mosquitto(directory, ca)
        try:
            broker.start()
        except BrokerUnavailableError:
            log = broker.log()
            broker.close()
            if attempt == 0 and "Address already in use" in log:
                continue
            raise
        return broker
    raise AssertionError("unreachable")


def is_ci() -> bool:
    return bool(os.environ.get("CI"))
