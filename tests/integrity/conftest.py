# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real, non-editable install of this source tree: its wheel, installed by pip.

The wheel is built once per session (``pip wheel``) and installed with ``pip install
--prefix``: a copy whose RECORD pip wrote, seen by ``importlib.metadata`` when its
``site-packages`` is the first entry of ``PYTHONPATH``. Each test gets its own copy of the
installed tree (RECORD's paths are relative, so a copy is as good as an install).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path("lib") / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


@dataclass(frozen=True)
class Installed:
    """An install under ``prefix``: its ``site_packages`` and the environment that runs it."""

    prefix: Path

    @property
    def site_packages(self) -> Path:
        return self.prefix / SITE

    @property
    def env(self) -> dict[str, str]:
        """The environment of a ``python -m table_controller`` that runs this install."""
        return {**os.environ, "PYTHONPATH": str(self.site_packages)}


#: What the wheel is built from (copied: a build leaves its egg-info in the source tree).
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "table_controller", "drivers", "simulators")


@pytest.fixture(scope="session")
def installed_once(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("install")
    source = base / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    wheels = base / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = wheels.glob("table_controller-*.whl")
    prefix = base / "prefix"
    before = _environment_install()
    # --ignore-installed: without it, pip uninstalls the environment's own table-controller
    # (the editable install the tests run) before it installs under --prefix.
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--ignore-installed", "-q",
         "--prefix", str(prefix), str(wheel)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    assert _environment_install() == before, "pip changed the environment's own install"
    assert (prefix / SITE / "table_controller").is_dir(), "pip did not install the wheel"
    return Installed(prefix)


def _environment_install() -> str | None:
    """Where the environment's own table-controller is installed (its dist-info), if it is."""
    try:
        found = importlib.metadata.distribution("table-controller")
    except importlib.metadata.PackageNotFoundError:
        return None
    return str(found.locate_file(""))


@pytest.fixture
def installed(installed_once: Installed, tmp_path: Path) -> Installed:
    """A copy of the session's install for one test to edit."""
    copy = tmp_path / "prefix"
    shutil.copytree(installed_once.prefix, copy, symlinks=True)
    return Installed(copy)
