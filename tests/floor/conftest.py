# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures for the floor's tests: the display tests' Chromium, a database of each kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.display.conftest import browser
from tests.ingest.databases import url_of

__all__ = ["browser"]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return url_of(request, tmp_path)
