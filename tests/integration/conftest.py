# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures for the integration tests (the leak check `no_leaks` is in tests/conftest.py)."""

from pathlib import Path

import pytest


@pytest.fixture
def pty_link(tmp_path: Path) -> Path:
    """Where the virtual shoe keeps a link to its current pseudo-terminal."""
    return tmp_path / "shoe"
