# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The protection package's pure modules import only the rules and each other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "table_controller" / "protection"
PURE_MODULES = ["__init__.py", "edge.py", "shuffle_checks.py", "shoe_repeats.py", "replay_edges.py"]
ALLOWED_INSIDE = ("table_controller.rules", "table_controller.protection")


def controller_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return {name for name in found if name.startswith("table_controller")}


@pytest.mark.parametrize("name", PURE_MODULES)
def test_pure_protection_modules_import_only_rules(name: str) -> None:
    inner = controller_imports(PACKAGE / name)
    assert all(module.startswith(ALLOWED_INSIDE) for module in inner), inner


def test_the_advisor_imports_only_pure_layers() -> None:
    """It turns findings into procedure inputs: it may use the procedure and its contract types."""
    inner = controller_imports(PACKAGE / "advisor.py")
    allowed = (*ALLOWED_INSIDE, "table_controller.procedure", "table_controller.contract")
    assert all(module.startswith(allowed) for module in inner), inner


def test_matplotlib_is_imported_lazily_and_only_by_the_plot_module() -> None:
    for path in PACKAGE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import matplotlib" not in text, path.name
    assert 'importlib.import_module("matplotlib")' in (PACKAGE / "plot.py").read_text()
