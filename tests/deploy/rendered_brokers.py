# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A shipped mosquitto configuration run by a real broker, localised for a test.

The configuration is used line for line; only what differs between the broker's host and the
test is moved: the files (certificates made by a ``trustme`` CA, the password file, the ACL,
persistence) into a scratch directory and the two listeners onto free ports of 127.0.0.1.
The logins come from ``create-passwords.sh``, the ACL is the shipped example.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme

from table_controller.mqtt.settings import BrokerEndpoint
from tests.deploy.conftest import MOSQUITTO_DIR, require_program
from tests.mosquitto import port_open
from tests.support.ports import free_port

CREATE_PASSWORDS = MOSQUITTO_DIR / "create-passwords.sh"
START_TIMEOUT_S = 5.0


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


def localised(conf: str, replacements: Mapping[str, str]) -> str:
    """The shipped configuration with each named line replaced; each must occur once."""
    lines = conf.splitlines()
    for original, replacement in replacements.items():
        found = [n for n, line in enumerate(lines) if line == original]
        assert len(found) == 1, f"the production config should have the line {original!r} once"
        lines[found[0]] = replacement
    return "\n".join(lines) + "\n"


def create_logins(passwd: Path, logins: Sequence[str]) -> dict[str, str]:
    done = subprocess.run(
        ["bash", str(CREATE_PASSWORDS), str(passwd), *logins],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    printed = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert set(printed) == set(logins)
    assert all(re.fullmatch(r"[0-9a-f]{32}", password) for password in printed.values())
    stored = passwd.read_text()
    assert not any(password in stored for password in printed.values())  # hashes only
    return printed


@contextmanager
def rendered_broker(
    conf: Path,
    acl: Path,
    logins: Sequence[str],
    *,
    ca: trustme.CA,
    replacements: Mapping[str, str] | None = None,
) -> Iterator[Broker]:
    """The configuration ``conf`` with the ACL ``acl``, localised, not yet started.

    ``replacements`` moves more lines (a bridge's address, say) on top of the files and
    listeners every shipped configuration has. The directory is removed at the end.
    """
    require_program("mosquitto", "mosquitto")
    require_program("mosquitto_passwd", "mosquitto")
    # Not tmp_path: mosquitto started as root reads its files as user mosquitto, and pytest's
    # temporary directories are 0700.
    directory = Path(tempfile.mkdtemp(prefix="tc-deploy-mosquitto-"))
    directory.chmod(0o755)
    broker: Broker | None = None
    try:
        ca_file = directory / "ca.crt"
        ca.cert_pem.write_to_path(str(ca_file))
        server = ca.issue_cert("127.0.0.1", "localhost")
        server.cert_chain_pems[0].write_to_path(str(directory / "server.crt"))
        server.private_key_pem.write_to_path(str(directory / "server.key"))
        passwords = create_logins(directory / "passwd", logins)
        shutil.copy(acl, directory / "acl")
        data = directory / "data"
        data.mkdir()
        data.chmod(0o777)
        for name in ("ca.crt", "server.crt", "server.key", "acl"):
            (directory / name).chmod(0o644)
        tls_port, plain_port = free_port(), free_port()
        moved = {
            "password_file /etc/mosquitto/passwd": f"password_file {directory}/passwd",
            "acl_file /etc/mosquitto/acl": f"acl_file {directory}/acl",
            "persistence_location /var/lib/mosquitto/": f"persistence_location {data}/",
            "listener 8883": f"listener {tls_port} 127.0.0.1",
            "cafile /etc/mosquitto/certs/ca.crt": f"cafile {ca_file}",
            "certfile /etc/mosquitto/certs/server.crt": f"certfile {directory}/server.crt",
            "keyfile /etc/mosquitto/certs/server.key": f"keyfile {directory}/server.key",
            "listener 1883 127.0.0.1": f"listener {plain_port} 127.0.0.1",
            **(replacements or {}),
        }
        rendered = directory / "mosquitto.conf"
        rendered.write_text(localised(conf.read_text(encoding="utf-8"), moved))
        rendered.chmod(0o644)
        broker = Broker(
            directory=directory,
            conf=rendered,
            tls_port=tls_port,
            plain_port=plain_port,
            ca_file=ca_file,
            passwords=passwords,
        )
        yield broker
    finally:
        if broker is not None:
            broker.stop()
        shutil.rmtree(directory, ignore_errors=True)
