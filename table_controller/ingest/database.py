# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest's database: its URL, its engine, its migrations and its dialect's insert.

PostgreSQL is reached through asyncpg and SQLite through aiosqlite, on SQLAlchemy 2's async
engine; :func:`engine_url` turns the URL an operator writes into the driver's. An SQLite
connection waits :data:`SQLITE_BUSY_TIMEOUT_MS` for another process's writer and uses WAL.
The schema is brought to alembic's newest revision at every open (``migrations/``): on
PostgreSQL one process at a time, under an advisory lock; on SQLite a second process
migrating at the same moment retries and finds the schema done. A file that cannot be opened
is no such moment: it is reported at once. A schema already at :data:`SCHEMA_HEAD` is read
from alembic's version table without importing alembic, which takes a worker about 0.15 s.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sqlalchemy import Connection, Table, func, inspect, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

if TYPE_CHECKING:
    from alembic.config import Config

#: How long an SQLite writer waits for another process's transaction.
SQLITE_BUSY_TIMEOUT_MS: Final = 30_000
#: The advisory lock that lets one process at a time migrate a PostgreSQL database.
_MIGRATION_LOCK: Final = 0x7461626C65  # "table"
_MIGRATIONS: Final = Path(__file__).with_name("migrations")
#: The newest revision of ``migrations/versions`` (tests/ingest/test_store.py checks it).
SCHEMA_HEAD: Final = "0003"
#: SQLite's result codes when another process migrates the same file at the same moment: a
#: table it created meanwhile ("already exists") or its lock. Worth another attempt.
_MIGRATING_ELSEWHERE: Final = frozenset(
    {sqlite3.SQLITE_ERROR, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
)


class StoreUrlError(ValueError):
    """A database URL the ingest cannot use; the message says which ones it takes."""


def engine_url(url: str) -> str:
    """``postgresql://`` -> ``postgresql+asyncpg://``, ``sqlite:///f`` -> ``sqlite+aiosqlite:///f``."""
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise StoreUrlError(f"{url!r} is not a database URL: {error}") from None
    drivers = {"postgresql": "asyncpg", "postgres": "asyncpg", "sqlite": "aiosqlite"}
    backend = parsed.get_backend_name()
    driver = drivers.get(backend)
    if driver is None or parsed.drivername not in {backend, f"{backend}+{driver}"}:
        raise StoreUrlError(
            f"{parsed.drivername!r}: use postgresql://user@host/db or sqlite:///path/to/file"
        )
    if backend == "sqlite" and parsed.database in {None, "", ":memory:"}:
        raise StoreUrlError("sqlite needs a file (sqlite:///path/to/file), shared by workers")
    name = "postgresql" if backend == "postgres" else backend
    return parsed.set(drivername=f"{name}+{driver}").render_as_string(hide_password=False)


def migrate(connection: Connection, revision: str = "head", *, down: bool = False) -> None:
    """Bring the schema up (or ``down``) to alembic's ``revision``: ``head``, ``0001``, ``base``.

    Down is for rolling a release back: each revision's ``downgrade`` drops what it added,
    its data included.
    """
    from alembic import command  # noqa: PLC0415 - only a schema that is not at its head needs it

    config = migrations_config()
    config.attributes["connection"] = connection
    (command.downgrade if down else command.upgrade)(config, revision)


def migrations_config() -> Config:
    """Alembic's configuration of ``migrations/``; imports alembic."""
    from alembic.config import Config  # noqa: PLC0415 - see migrate

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    return config


def open_engine(url: str) -> AsyncEngine:
    """The engine of ``url``, its SQLite connections set up as the ingest needs them.

    Raises:
        StoreUrlError: the URL is not a PostgreSQL or SQLite one.
    """
    engine = create_async_engine(engine_url(url), pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        from sqlalchemy import event  # noqa: PLC0415 - only SQLite needs it

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_settings(dbapi_connection: DBAPIConnection, _record: object) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.close()

    return engine


def at_head(connection: Connection) -> bool:
    """Whether alembic's version table says the schema is at :data:`SCHEMA_HEAD`."""
    if not inspect(connection).has_table("alembic_version"):
        return False
    versions = connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
    return list(versions) == [SCHEMA_HEAD]


async def migrate_to_head(engine: AsyncEngine) -> None:
    """Migrate the schema to its newest revision, one process at a time."""
    postgres = engine.dialect.name == "postgresql"
    for attempt in range(5):
        try:
            async with engine.begin() as connection:
                if postgres:
                    await connection.execute(select(func.pg_advisory_xact_lock(_MIGRATION_LOCK)))
                if not await connection.run_sync(at_head):
                    await connection.run_sync(migrate)
        except OperationalError as error:
            # Another SQLite process migrating at the same moment: its schema will do.
            if postgres or attempt == 4 or not _migrating_elsewhere(error):
                raise
            await asyncio.sleep(0.2 * (attempt + 1))
        else:
            return


def _migrating_elsewhere(error: OperationalError) -> bool:
    """Whether SQLite's ``error`` is one another process migrating the same file causes.

    Not, say, a file that cannot be opened (no such directory, no permission): trying again
    would only delay the report. Compared is the primary code, the low byte of an extended one.
    """
    code = getattr(error.orig, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _MIGRATING_ELSEWHERE


def dialect_insert(table: Table, *, postgres: bool) -> postgresql.Insert | sqlite.Insert:
    """An insert into ``table`` that can say ``ON CONFLICT`` in the database's own dialect."""
    return (postgresql.insert if postgres else sqlite.insert)(table)
