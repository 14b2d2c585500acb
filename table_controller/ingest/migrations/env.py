# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Alembic's environment for the ingest schema.

``IngestStore.open`` runs the migrations on a connection it already holds (passed in
``config.attributes["connection"]``), inside its own transaction. Run from the ``alembic``
command instead, this opens an async engine on ``sqlalchemy.url`` (a ``+asyncpg`` or
``+aiosqlite`` URL) and runs them through ``run_sync``.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from table_controller.ingest.schema import metadata


def _migrate(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _migrate_url(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_migrate)
    finally:
        await engine.dispose()


def _main() -> None:
    connection = context.config.attributes.get("connection")
    if isinstance(connection, Connection):
        _migrate(connection)
        return
    url = context.config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("no connection and no sqlalchemy.url to migrate")
    asyncio.run(_migrate_url(url))


_main()
