# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures for the driver tests: hygiene checks, a pty shoe, a TCP shoe."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.drivers.driver_test_support import PtyShoe, TcpShoe


@pytest.fixture(autouse=True)
def _every_test_cleans_up(no_leaks: None) -> None:
    """Every test here leaves no task running and no file descriptor open (tests/conftest.py)."""


@pytest.fixture
async def pty_shoe(tmp_path: Path) -> AsyncIterator[PtyShoe]:
    shoe = PtyShoe(tmp_path)
    shoe.plug()
    yield shoe
    shoe.unplug()


@pytest.fixture
async def tcp_shoe() -> AsyncIterator[TcpShoe]:
    shoe = TcpShoe()
    await shoe.start()
    yield shoe
    await shoe.stop()
