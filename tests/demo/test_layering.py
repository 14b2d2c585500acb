# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's layering: its cores are pure, and only the broker process touches amqtt."""

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


def test_only_the_broker_process_imports_amqtt_and_it_imports_nothing_of_the_controller() -> None:
    users = {
        path.name
        for path in sorted(DEMO.glob("*.py"))
        if any(module.split(".")[0] == "amqtt" for module in imported_modules(path))
    }
    assert users == {"broker.py"}
    broker_imports = imported_modules(DEMO / "broker.py")
    assert not {module for module in broker_imports if module.startswith("table_controller")}
