# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures for the MQTT tests: a real mosquitto per test, a test CA, hygiene checks."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _every_test_cleans_up(no_leaks: None) -> None:
    """Every test here leaves no task running and no file descriptor open (tests/conftest.py)."""
