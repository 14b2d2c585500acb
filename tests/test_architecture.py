# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The layering of STYLE.md section 2, checked by walking every import with ast."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Modules that decide things: stdlib only, and no clock, randomness, I/O or logging.
PURE = [
    "table_controller/rules/*.py",
    "table_controller/procedure/*.py",
    "table_controller/publishing/messages.py",
    "table_controller/protection/__init__.py",
    "table_controller/protection/edge.py",
    "table_controller/protection/shuffle_checks.py",
    "table_controller/protection/replay_edges.py",
    "table_controller/protection/advisor.py",
    "drivers/srp/*.py",
    "drivers/textline.py",
    "drivers/events.py",
    "simulators/virtual_shoe/deck.py",
    "simulators/virtual_shoe/device.py",
    "simulators/virtual_shoe/beetek.py",
    "simulators/virtual_shoe/faults.py",
    "simulators/virtual_shoe/scenarios.py",
]
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
#: Third-party packages a pure module may use all the same (exact integer arithmetic).
ALLOWED_THIRD_PARTY_IN_PURE = {"numpy"}
CLOCK_CALLS = {"now", "utcnow", "today", "monotonic", "perf_counter", "time_ns"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
    return modules


def clock_calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCK_CALLS
    }


def files(*patterns: str) -> list[Path]:
    return sorted({path for pattern in patterns for path in ROOT.glob(pattern)})


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", files(*PURE), ids=rel)
def test_pure_cores_use_no_io_clock_or_randomness(path: Path) -> None:
    tops = {module.split(".")[0] for module in imported_modules(path)}
    assert not tops & FORBIDDEN_IN_PURE, f"{rel(path)} imports {sorted(tops & FORBIDDEN_IN_PURE)}"
    assert not clock_calls(path), f"{rel(path)} reads a clock: {clock_calls(path)}"


@pytest.mark.parametrize("path", files("drivers/**/*.py", "simulators/**/*.py"), ids=rel)
def test_drivers_and_simulators_never_import_the_controller(path: Path) -> None:
    assert not {m for m in imported_modules(path) if m.split(".")[0] == "table_controller"}


@pytest.mark.parametrize("path", files("table_controller/rules/*.py"), ids=rel)
def test_rules_import_nothing_else_of_the_controller(path: Path) -> None:
    inner = {m for m in imported_modules(path) if m.startswith("table_controller")}
    assert all(m.startswith("table_controller.rules") for m in inner), inner


@pytest.mark.parametrize("path", files("table_controller/procedure/*.py"), ids=rel)
def test_procedure_imports_only_rules(path: Path) -> None:
    inner = {m for m in imported_modules(path) if m.startswith("table_controller")}
    allowed = ("table_controller.rules", "table_controller.procedure")
    assert all(m.startswith(allowed) for m in inner), inner


def test_pure_third_party_imports_are_the_allowed_ones() -> None:
    stdlib = set(sys.stdlib_module_names)
    local = {"table_controller", "drivers", "simulators"}
    for path in files(*PURE):
        tops = {module.split(".")[0] for module in imported_modules(path)}
        third_party = tops - stdlib - local - {"__future__"}
        assert third_party <= ALLOWED_THIRD_PARTY_IN_PURE, f"{rel(path)}: {sorted(third_party)}"


#: The packages of the controller whose imports of one another must not go round in a circle.
PACKAGES = ("rules", "procedure", "protection", "publishing", "runtime", "cli", "demo")


def package_imports() -> dict[str, set[str]]:
    """Package -> the other packages of the controller it imports (any import, even typing's)."""
    graph: dict[str, set[str]] = {package: set() for package in PACKAGES}
    for package in PACKAGES:
        for path in files(f"table_controller/{package}/**/*.py"):
            for module in imported_modules(path):
                parts = module.split(".")
                if parts[0] == "table_controller" and len(parts) > 1 and parts[1] in graph:
                    graph[package].add(parts[1])
        graph[package].discard(package)
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph (its first node repeated at the end), or None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for target in sorted(graph.get(node, ())):
            found = visit(target, [*path, node])
            if found is not None:
                return found
        done.add(node)
        return None

    for start in sorted(graph):
        found = visit(start, [])
        if found is not None:
            return found
    return None


def test_the_packages_import_one_another_without_a_circle() -> None:
    cycle = cycle_in(package_imports())
    assert cycle is None, "packages import one another in a circle: " + " -> ".join(cycle or ())


def test_the_circle_finder_finds_a_circle_and_only_a_circle() -> None:
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle_in({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    assert cycle_in({"publishing": {"runtime"}, "runtime": {"publishing"}}) is not None


def test_the_checks_see_the_packages() -> None:
    assert len(files(*PURE)) >= 7
    assert files("drivers/**/*.py")
    graph = package_imports()
    assert "rules" in graph["procedure"]
    assert "publishing" in graph["runtime"]


def test_the_service_loads_the_web_and_mqtt_libraries_only_when_configured() -> None:
    """``run`` starts sooner and smaller without them; each adapter imports its own on use."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, table_controller.cli.run; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert not {name.split(".")[0] for name in loaded} & {"aiohttp", "aiomqtt", "paho"}
