# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real PostgreSQL for the tests: Debian's server in a temp directory, one per test session.

Test support. ``initdb`` makes a cluster in a temp directory (trust authentication, loopback
only), ``pg_ctl`` starts it on a free port and stops it at the end of the session. PostgreSQL
refuses to run as root, so under root both run as an unprivileged user through ``runuser``
(``postgres`` if the package made it, else ``nobody``), which owns the directory.

Fixtures: ``postgres_url`` (session) is the server's ``postgresql://`` URL with no database
named; ``pg_database_url`` gives each test a fresh database (``CREATE DATABASE`` under a unique
name), dropped afterwards. Skipped when the server is not installed, except in CI (``CI`` set),
where it fails, as the broker's fixture does.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from tests.support.installed import require, unavailable
from tests.support.ports import free_port

#: Where Debian's ``postgresql-15`` puts its programs.
BIN: Final = Path("/usr/lib/postgresql/15/bin")
SUPERUSER: Final = "postgres"
START_TIMEOUT_S: Final = 30


class PostgresUnavailableError(RuntimeError):
    """The server could not be set up or started; the message holds its output."""


@dataclass(frozen=True, slots=True)
class Postgres:
    """A running server: its port and its data directory."""

    port: int
    directory: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"


def postgres_missing() -> str | None:
    """Why the server cannot run here, or None."""
    if not (BIN / "initdb").is_file():
        return f"PostgreSQL 15 is not installed ({BIN}/initdb missing; apt-get install postgresql)"
    return None


def _as_owner(owner: str | None, *command: str) -> subprocess.CompletedProcess[str]:
    prefix = ["runuser", "-u", owner, "--"] if owner is not None else []
    return subprocess.run(
        [*prefix, *command], capture_output=True, text=True, check=False, timeout=120
    )


def _owner() -> str | None:
    """The user to run the server as: None when not root (the current user then)."""
    if os.geteuid() != 0:
        return None
    for name in (SUPERUSER, "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise PostgresUnavailableError("running as root and no unprivileged user to run PostgreSQL")


def start_postgres(root: Path) -> Postgres:
    """``initdb`` in ``root/data`` and ``pg_ctl start`` on a free loopback port."""
    owner = _owner()
    data = root / "data"
    sockets = root / "sockets"
    sockets.mkdir()
    if owner is not None:
        account = pwd.getpwnam(owner)
        for path in (root, sockets):
            os.chown(path, account.pw_uid, account.pw_gid)
    made = _as_owner(
        owner, str(BIN / "initdb"), "-D", str(data), "-U", SUPERUSER, "--auth=trust",
        "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync",
    )  # fmt: skip
    if made.returncode != 0:
        raise PostgresUnavailableError(f"initdb failed: {made.stdout}{made.stderr}")
    port = free_port()
    options = f"-p {port} -h 127.0.0.1 -k {sockets} -c fsync=off -c max_connections=200"
    started = _as_owner(
        owner, str(BIN / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"),
        "-w", "-t", str(START_TIMEOUT_S), "start",
    )  # fmt: skip
    if started.returncode != 0:
        log = (root / "log").read_text() if (root / "log").exists() else ""
        raise PostgresUnavailableError(f"pg_ctl start failed: {started.stderr}{log}")
    return Postgres(port=port, directory=root)


def stop_postgres(server: Postgres) -> None:
    _as_owner(
        _owner(), str(BIN / "pg_ctl"), "-D", str(server.directory / "data"), "-m", "fast",
        "-w", "stop",
    )  # fmt: skip


@contextlib.contextmanager
def temporary_postgres(prefix: str) -> Iterator[Postgres]:
    """A server (:func:`start_postgres`) in a fresh temp directory named ``prefix...``.

    Stopped and its directory removed at the end, or the directory removed when the server
    does not start (:class:`PostgresUnavailableError`).
    """
    root = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        server = start_postgres(root)
        try:
            yield server
        finally:
            stop_postgres(server)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def psql(server: Postgres, sql: str) -> None:
    """Run one SQL statement on the server as its superuser; raises when it fails."""
    done = _as_owner(
        _owner(), str(BIN / "psql"), "-h", "127.0.0.1", "-p", str(server.port), "-U", SUPERUSER,
        "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", sql,
    )  # fmt: skip
    if done.returncode != 0:
        raise PostgresUnavailableError(f"psql {sql!r} failed: {done.stderr}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Postgres]:
    require(postgres_missing(), in_ci="the PostgreSQL tests must run in CI")
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(temporary_postgres("tc-postgres-"))
        except PostgresUnavailableError as error:
            unavailable(error)
        yield server


@pytest.fixture(scope="session")
def postgres_url(postgres_server: Postgres) -> str:
    """The session's server, ``postgresql://postgres@127.0.0.1:PORT/postgres``."""
    return postgres_server.url()


@pytest.fixture
def pg_database_url(postgres_server: Postgres) -> Iterator[str]:
    """A fresh, empty database of the session's server for one test; dropped afterwards."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    psql(postgres_server, f"CREATE DATABASE {name}")
    try:
        yield postgres_server.url(name)
    finally:
        psql(postgres_server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
