# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller`` run in the test's process, as its console script runs it."""

from __future__ import annotations

import pytest

from table_controller.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The exit status (a ``SystemExit`` read as one), standard output and standard error."""
    try:
        status = main(list(args))
    except SystemExit as stop:
        status = int(stop.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err
