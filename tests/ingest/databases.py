# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The databases the ingest tests run on, as fixture parameters."""

from __future__ import annotations

from pathlib import Path

import pytest


def url_of(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of the fixture's parameter: an SQLite file, or a fresh PostgreSQL one."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ingest.db'}"
    return str(request.getfixturevalue("pg_database_url"))

