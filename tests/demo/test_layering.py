# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's layering: its cores are pure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.imports import FORBIDDEN_IN_PURE, ROOT, clock_calls, imported_modules

DEMO = ROOT / "table_controller" / "demo"
PURE_DEMO = [DEMO / "pit.py", DEMO / "console.py"]


@pytest.mark.parametrize("path", PURE_DEMO, ids=lambda path: path.name)
def test_the_pit_and_the_console_view_use_no_io_clock_or_randomness(path: Path) -> None:
    tops = {module.split(".")[0] for module in imported_modules(path)}
    assert not tops & FORBIDDEN_IN_PURE
    assert not clock_calls(path)
    inner = {m for m in imported_modules(path) if m.startswith("table_controller")}
    assert inner <= {"table_controller.mqtt"}  # its face, for the consumer's pure stream reading
