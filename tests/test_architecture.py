# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The layering of README.md, "How it fits together", checked by walking every import with ast."""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.imports import FORBIDDEN_IN_PURE, ROOT, clock_calls, imported_modules

#: Modules that decide things: stdlib only, and no clock, randomness, I/O or logging.
PURE = [
    "table_controller/rules/*.py",
    "table_controller/contract/*.py",
    "table_controller/contract/payloads/*.py",
    "table_controller/procedure/*.py",
    "table_controller/runtime/interpreter.py",
    "table_controller/screens/dealer/view.py",
    "table_controller/screens/pin_lockout.py",
    "table_controller/floor/model.py",
    "table_controller/floor/sessions.py",
    "table_controller/contract/errors.py",
    "table_controller/mqtt/resend.py",
    "table_controller/protection/__init__.py",
    "table_controller/protection/edge.py",
    "table_controller/protection/shuffle_checks.py",
    "table_controller/protection/shoe_repeats.py",
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
#: Third-party packages a pure module may use all the same (exact integer arithmetic).
ALLOWED_THIRD_PARTY_IN_PURE = {"numpy", "annotated_types"}


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
    """Only the mechanism of its lazy face (``table_controller/lazy_face.py``), no other part."""
    inner = {m for m in imported_modules(path) if m.startswith("table_controller")}
    inner.discard("table_controller.lazy_face")
    assert all(m.startswith("table_controller.rules") for m in inner), inner


#: Parts of the contract layered above the procedure: the commands name the input each becomes,
#: and the schemas are generated from every type.
UPPER_CONTRACT = ("contract.commands", "contract.schema")
#: Their modules, which the contract's types and the procedure never import.
UPPER_CONTRACT_MODULES = tuple(f"table_controller.{part}" for part in UPPER_CONTRACT)


@pytest.mark.parametrize(
    "path",
    files("table_controller/contract/*.py", "table_controller/contract/payloads/*.py"),
    ids=rel,
)
def test_the_contracts_types_import_only_rules(path: Path) -> None:
    """The codes, payloads and envelope sit under the procedure, which builds them."""
    inner = {m for m in imported_modules(path) if m.startswith("table_controller")}
    allowed = ("table_controller.rules", "table_controller.contract")
    upper = {m for m in inner if m.startswith(UPPER_CONTRACT_MODULES)}
    assert all(m.startswith(allowed) for m in inner), inner
    assert not upper, upper


@pytest.mark.parametrize("path", files("table_controller/procedure/*.py"), ids=rel)
def test_procedure_imports_only_rules_and_the_contracts_types(path: Path) -> None:
    inner = {m for m in imported_modules(path) if m.startswith("table_controller")}
    allowed = ("table_controller.rules", "table_controller.procedure", "table_controller.contract")
    upper = {m for m in inner if m.startswith(UPPER_CONTRACT_MODULES)}
    assert all(m.startswith(allowed) for m in inner), inner
    assert not upper, upper


def test_pure_third_party_imports_are_the_allowed_ones() -> None:
    stdlib = set(sys.stdlib_module_names)
    local = {"table_controller", "drivers", "simulators"}
    for path in files(*PURE):
        tops = {module.split(".")[0] for module in imported_modules(path)}
        third_party = tops - stdlib - local - {"__future__"}
        assert third_party <= ALLOWED_THIRD_PARTY_IN_PURE, f"{rel(path)}: {sorted(third_party)}"


#: The packages of the controller whose imports of one another must not go round in a circle.
PACKAGES = (
    "rules",
    "contract",
    "procedure",
    "protection",
    "history",
    "mqtt",
    "ingress",
    "screens",
    "staff",
    "integrity",
    "runtime",
    "ingest",
    "floor",
    "cli",
    "demo",
)




def layer_of(module: str) -> str | None:
    """The package (or upper part of the contract) a module of the controller belongs to."""
    parts = module.split(".")
    if parts[0] != "table_controller" or len(parts) < 2 or parts[1] not in PACKAGES:
        return None
    two = ".".join(parts[1:3])
    return two if two in UPPER_CONTRACT else parts[1]


def package_imports() -> dict[str, set[str]]:
    """Package -> the other packages of the controller it imports (any import, even typing's)."""
    graph: dict[str, set[str]] = {package: set() for package in (*PACKAGES, *UPPER_CONTRACT)}
    for package in PACKAGES:
        for path in files(f"table_controller/{package}/**/*.py"):
            own = layer_of(".".join(path.relative_to(ROOT).with_suffix("").parts))
            assert own is not None
            for module in imported_modules(path):
                layer = layer_of(module)
                if layer is not None and layer != own:
                    graph[own].add(layer)
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
    assert cycle_in({"mqtt": {"runtime"}, "runtime": {"mqtt"}}) is not None


def test_the_checks_see_the_packages() -> None:
    assert len(files(*PURE)) >= 7
    assert files("drivers/**/*.py")
    graph = package_imports()
    assert "contract" in graph["procedure"]
    assert {"mqtt", "screens", "history"} <= graph["runtime"]
    packages = (ROOT / "table_controller").iterdir()
    assert set(PACKAGES) == {path.name for path in packages if (path / "__init__.py").exists()}


#: The faces of the controller's packages: the modules that name, in ``__all__``, what other
#: packages may use of them. A package's face is its ``__init__``; a part that loads a library
#: of its own (aiohttp, aiomqtt) has a face of its own, so the package's stays light.
FACES = (
    "rules",
    "contract",
    "contract.commands",
    "contract.schema",
    "procedure",
    "protection",
    "history",
    "mqtt",
    "mqtt.client",
    "ingress",
    "screens",
    "screens.web",
    "screens.dealer",
    "screens.board",
    "staff",
    "integrity",
    "runtime",
    "runtime.journal",
    "runtime.health",
    "ingest",
    "floor",
    "cli",
    "demo",
    "table_limits",
    "toml_file",
    "variant_file",
    "lazy_face",
)
FACE_MODULES = tuple(f"table_controller.{face}" for face in FACES)


def face_of(module: str) -> str | None:
    """The face a module of the controller is reached through (the longest one it is under)."""
    under = [face for face in FACE_MODULES if module == face or module.startswith(face + ".")]
    return max(under, key=len, default=None)


def face_path(face: str) -> Path:
    path = ROOT.joinpath(*face.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def public_names(face: str) -> set[str]:
    """The names a face's ``__all__`` lists (a literal list, read without importing it)."""
    tree = ast.parse(face_path(face).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def package_of(path: Path) -> str:
    """The package (or top-level module) of the controller a file belongs to."""
    return path.relative_to(ROOT / "table_controller").with_suffix("").parts[0]


def foreign_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """The imports of another package of the controller: line, module and names imported."""
    own = package_of(path)
    found: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [(node.module, [alias.name for alias in node.names])]
        elif isinstance(node, ast.Import):
            modules = [(alias.name, []) for alias in node.names]
        else:
            continue
        for module, names in modules:
            parts = module.split(".")
            if parts[0] == "table_controller" and len(parts) > 1 and parts[1] != own:
                found.append((node.lineno, module, names))
    return found


@pytest.mark.parametrize("face", FACES)
def test_every_face_names_what_it_offers(face: str) -> None:
    assert face_path(f"table_controller.{face}").exists()
    assert public_names(f"table_controller.{face}"), f"{face} has no __all__"


@pytest.mark.parametrize("face", FACES)
def test_every_name_a_face_offers_is_there(face: str) -> None:
    """A lazy face (``table_controller/lazy_face.py``) finds each name where it says."""
    module = importlib.import_module(f"table_controller.{face}")
    for name in sorted(public_names(f"table_controller.{face}")):
        assert getattr(module, name) is not None, f"{face}.{name}"


def type_checking_names(face: str) -> set[str] | None:
    """The names a lazy face imports for the type checker; None for a face that is not lazy."""
    tree = ast.parse(face_path(face).read_text(encoding="utf-8"))
    blocks = [
        node for node in tree.body if isinstance(node, ast.If) and _is_type_checking(node.test)
    ]
    if not blocks:
        return None
    return {
        alias.asname or alias.name
        for block in blocks
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


@pytest.mark.parametrize("face", FACES)
def test_a_lazy_face_names_for_the_type_checker_what_it_offers(face: str) -> None:
    names = type_checking_names(f"table_controller.{face}")
    if names is not None:
        assert names == public_names(f"table_controller.{face}")


def test_the_adapter_packages_faces_are_lazy() -> None:
    """Importing an adapter package loads none of its parts until a name is used."""
    lazy = {face for face in FACES if type_checking_names(f"table_controller.{face}") is not None}
    assert {"runtime", "integrity", "mqtt", "screens", "ingress"} <= lazy


def test_no_name_of_a_lazy_face_is_also_one_of_its_modules() -> None:
    """Importing a module sets it on its package under its own name, over a lazy face's name.

    ``from table_controller.runtime import stop_signals`` gave the module, not the function,
    once any part had imported a ``runtime/stop_signals.py``. An eager face binds its names
    after its modules are imported, so only a lazy one can be caught out.
    """
    lazy = [face for face in FACES if type_checking_names(f"table_controller.{face}") is not None]
    assert "runtime" in lazy
    for face in lazy:
        package = face_path(f"table_controller.{face}").parent
        modules = {path.stem for path in package.glob("*.py")}
        modules |= {path.parent.name for path in package.glob("*/__init__.py")}
        assert not public_names(f"table_controller.{face}") & modules, face


@pytest.mark.parametrize("path", files("table_controller/**/*.py"), ids=rel)
def test_packages_use_one_another_only_through_their_faces(path: Path) -> None:
    """Only a face's public names: a package's inside can change without the others knowing."""
    for line, module, names in foreign_imports(path):
        face = face_of(module)
        where = f"{rel(path)}:{line}"
        assert face == module, f"{where} imports {module}, not its face {face}"
        hidden = set(names) - public_names(face)
        assert not hidden, f"{where} imports {sorted(hidden)}, not in {face}.__all__"


def test_the_face_check_sees_the_imports() -> None:
    run = ROOT / "table_controller/cli/run.py"
    imported = {(module, name) for _, module, names in foreign_imports(run) for name in names}
    assert ("table_controller.procedure", "TableProcedure") in imported
    assert face_of("table_controller.screens.web.site") == "table_controller.screens.web"
    assert face_of("table_controller.screens.languages") == "table_controller.screens"
    assert "TableProcedure" in public_names("table_controller.procedure")


def test_the_service_loads_the_web_and_mqtt_libraries_only_when_configured() -> None:
    """``run`` starts sooner and smaller without them; each adapter imports its own on use."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, table_controller.cli.run; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert not {name.split(".")[0] for name in loaded} & {"aiohttp", "aiomqtt", "paho"}


@pytest.mark.parametrize(
    "path",
    files(*(f"table_controller/{package}/**/*.py" for package in ("contract", "mqtt", "screens"))),
    ids=rel,
)
def test_the_contract_mqtt_and_screens_never_import_the_runtime(path: Path) -> None:
    """The runtime wires these adapters; they see the table through small protocols."""
    inner = {m for m in imported_modules(path) if m.startswith("table_controller.runtime")}
    assert not inner, inner


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_at_import(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported.

    Its top level, through ``if`` and ``try`` blocks, but not function bodies (lazy imports)
    nor ``if TYPE_CHECKING:`` blocks.
    """
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                found += _run_at_import(node.body)
            found += _run_at_import(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody,
                          *(handler.body for handler in node.handlers)):
                found += _run_at_import(block)
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _controller_import_graph() -> dict[str, set[str]]:
    """Each module of ``table_controller`` and the modules of it that importing it runs.

    ``from package import name`` counts as importing ``package.name`` when that is a module,
    else ``package`` itself; the parent packages Python imports on the way are not counted.
    Imports under ``if TYPE_CHECKING:`` and inside functions are not counted: they do not run
    when the module is imported.
    """
    paths = files("table_controller/**/*.py")
    modules = {_module_name(path): path for path in paths}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets: set[str] = set()
        for node in _run_at_import(tree.body):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                child = f"{base}.{alias.name}"
                targets.add(child if child in modules else base)
        graph[name] = {target for target in targets if target in modules} - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:  # noqa: C901 - Tarjan, in one piece
    """One cycle through each strongly connected group of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_no_import_cycle_between_modules_of_the_controller() -> None:
    graph = _controller_import_graph()
    assert len(graph) > 20
    assert "table_controller.procedure.table" in graph["table_controller.procedure.stream"]
    assert _cycles(graph) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


#: The parts of the table procedure: each depends on the state (``procedure.table``) and the
#: modules below it, never on another part; ``procedure.steps`` and ``procedure.machine``
#: compose them.
PROCEDURE_PARTS = (
    "table_controller.procedure.stream",
    "table_controller.procedure.shoe_flow",
    "table_controller.procedure.dealing",
    "table_controller.procedure.supervision",
    "table_controller.procedure.prompts",
    "table_controller.procedure.faults",
    "table_controller.procedure.staff",
)


@pytest.mark.parametrize("part", PROCEDURE_PARTS)
def test_the_procedure_parts_import_none_of_one_another(part: str) -> None:
    """Not directly, nor through a module between them."""
    graph = _controller_import_graph()
    assert "table_controller.procedure.table" in graph[part]
    reached: set[str] = set()
    todo = [part]
    while todo:
        for target in graph[todo.pop()] - reached:
            reached.add(target)
            todo.append(target)
    composers = {"table_controller.procedure.steps", "table_controller.procedure.machine"}
    assert not reached & (set(PROCEDURE_PARTS) | composers), sorted(reached)
