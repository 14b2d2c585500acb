# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Shared helpers of the deploy tests: where the deploy files are, and tools they need."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from table_controller.runtime.config import ENV_PREFIX
from tests.support.installed import not_installed

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "table-controller.service"
BACKUP_UNIT = DEPLOY / "table-controller-backup.service"
BACKUP_TIMER = DEPLOY / "table-controller-backup.timer"
SYSUSERS = DEPLOY / "table-controller.sysusers"
UDEV_RULE = DEPLOY / "99-table-controller-shoe.rules"
EXAMPLE_TOML = DEPLOY / "table.example.toml"
EXAMPLE_ENV = DEPLOY / "table.env.example"
CONTAINERFILE = DEPLOY / "Containerfile"
BACKUP_SCRIPT = DEPLOY / "backup-journal.py"
MOSQUITTO_DIR = DEPLOY / "mosquitto"
OPERATIONS_GUIDE = ROOT / "docs" / "operations.md"


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No TABLE_CONTROLLER_* variable of the test run leaks into the settings."""
    for name in list(os.environ):
        if name.startswith(ENV_PREFIX):
            monkeypatch.delenv(name)


def require_program(name: str, package: str) -> str:
    """The program's path; skips the test when it is missing, but fails it in CI."""
    path = shutil.which(name)
    if path is None:
        not_installed(f"{name} is not installed (apt-get install {package})")
    return path


def unit_settings(path: Path) -> dict[str, list[str]]:
    """Every ``Key=value`` of a unit file, values in order (keys repeat in systemd units)."""
    settings: dict[str, list[str]] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def table_controller_program() -> Path:
    """The console script of the environment running the tests."""
    beside = Path(sys.executable).with_name("table-controller")
    if beside.is_file():
        return beside
    found = shutil.which("table-controller")
    assert found is not None, "table-controller is not installed in this environment"
    return Path(found)


@pytest.fixture(autouse=True)
def _every_test_cleans_up(no_leaks: None) -> None:
    """Every test here leaves no task running and no file descriptor open (tests/conftest.py)."""
