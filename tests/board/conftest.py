# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures for the board's tests: the leak check and a folder for screenshots.

The ``browser`` is the test process's one Chromium (tests/support/chromium.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.display.display_harness import ROOT

#: Screenshots of the board at each size and state (git-ignored), kept by CI as artefacts.
ARTIFACTS = ROOT / "artifacts" / "board"


@pytest.fixture(autouse=True)
def _every_test_cleans_up(no_leaks: None) -> None:
    """Every test here leaves no task running and no file descriptor open (tests/conftest.py)."""


@pytest.fixture
def fit_folder() -> Path:
    (ARTIFACTS / "fit").mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / "fit"
