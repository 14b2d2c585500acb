# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a module imports and which clocks it reads, found by walking its syntax tree."""

from __future__ import annotations

import ast
from pathlib import Path

#: The repository's root.
ROOT = Path(__file__).resolve().parent.parent.parent

#: What a module that decides things may not import: I/O, clocks, randomness, logging.
FORBIDDEN_IN_PURE = {
    "asyncio",
    "time",
    "random",
    "secrets",
    "socket",
    "select",
    "selectors",
    "serial",
    "serial_asyncio_fast",
    "aiomqtt",
    "paho",
    "aiohttp",
    "aiohttp_sse",
    "logging",
    "structlog",
    "sqlite3",
    "subprocess",
    "threading",
    "os",
    "pydantic",
}
#: Calls that read a clock.
CLOCK_CALLS = {"now", "utcnow", "today", "monotonic", "perf_counter", "time_ns"}


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports by absolute name, wherever the import stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
    return modules


def clock_calls(path: Path) -> set[str]:
    """The clock-reading methods ``path`` calls (``….now()``, ``….monotonic()`` …)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCK_CALLS
    }
