# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures of the demo's tests: a clean environment (leak check: tests/conftest.py)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def no_settings_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings from ``TABLE_CONTROLLER_*`` variables would change what the flags give."""
    for name in list(os.environ):
        if name.startswith("TABLE_CONTROLLER_"):
            monkeypatch.delenv(name)
