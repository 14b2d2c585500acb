# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""An ingest store on each database: SQLite in a temp file, and a fresh PostgreSQL database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from table_controller.ingest.store import IngestStore
from tests.ingest.databases import url_of


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return url_of(request, tmp_path)


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[IngestStore]:
    opened = await IngestStore.open(database_url)
    try:
        yield opened
    finally:
        await opened.close()
