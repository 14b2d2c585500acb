# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Prints what the fuzz suites fed their targets, and writes it to ``FUZZ_REPORT`` if set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fuzz.fuzz_support import report_lines, write_report

#: A long-profile round may take minutes on a busy machine; the suite-wide 120 s is for CI.
LONG_ROUND_TIMEOUT_S = 1800


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/fuzz/" in item.nodeid and item.get_closest_marker("slow") is not None:
            item.add_marker(pytest.mark.timeout(LONG_ROUND_TIMEOUT_S))


def pytest_runtest_logfinish() -> None:
    """Keep ``FUZZ_REPORT`` current, so a long run stopped early still shows what it did."""
    destination = os.environ.get("FUZZ_REPORT")
    if destination:
        write_report(Path(destination))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    failed = sum(
        1
        for report in terminalreporter.stats.get("failed", [])
        if "tests/fuzz/" in getattr(report, "nodeid", "")
    )
    lines = report_lines(failed)
    if not lines:
        return
    terminalreporter.section("fuzz totals")
    for line in lines:
        terminalreporter.write_line(line)
    destination = os.environ.get("FUZZ_REPORT")
    if destination:
        write_report(Path(destination))
