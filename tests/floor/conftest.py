# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures for the floor's tests: a database of each kind.

The ``browser`` is the test process's one Chromium (tests/support/chromium.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ingest.databases import url_of


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return url_of(request, tmp_path)
