# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The state diagram in the docs is the one the transition table draws."""

from __future__ import annotations

import importlib.util
import inspect
import typing
from pathlib import Path
from types import FunctionType, ModuleType

from table_controller.contract.codes import Phase
from table_controller.procedure import steps
from table_controller.procedure.states import (
    EVERY_PHASE,
    ROUTES,
    TRANSITIONS,
    TRIGGERS,
    UNLESS_FAULTED,
    Trigger,
    accepts,
    is_edge,
    route,
)
from table_controller.procedure.steps import Drawn

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "draw_state_diagram", ROOT / "scripts" / "draw_state_diagram.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_diagram_matches_the_transition_table() -> None:
    rendered = _script().render()
    assert (ROOT / "docs" / "state-diagram.md").read_text(encoding="utf-8") == rendered
    for edge in TRANSITIONS:
        assert f"| `{edge.source}` | `{edge.trigger}` |" in rendered
        assert f"| `{edge.target}` | {edge.when} |" in rendered


def test_the_table_lists_no_edge_twice_and_only_void_shoe_leaves_faulted() -> None:
    keys = [(edge.source, edge.trigger, edge.target) for edge in TRANSITIONS]
    assert len(keys) == len(set(keys))
    assert all(edge.source is not Phase.HELD for edge in TRANSITIONS)
    out_of_faulted = {(e.trigger, e.target) for e in TRANSITIONS if e.source is Phase.FAULTED}
    assert out_of_faulted == {(Trigger.VOID_SHOE, Phase.SHOE_OVER),
                              (Trigger.VOID_SHOE, Phase.NO_SHOE)}
    sources = {edge.source for edge in TRANSITIONS}
    assert sources == set(Phase) - {Phase.HELD}
    assert {edge.trigger for edge in TRANSITIONS} == set(Trigger)


def test_lookups_answer_from_the_table() -> None:
    assert accepts(Phase.BETTING, Trigger.CLOSE_BETTING)
    assert not accepts(Phase.BETWEEN_ROUNDS, Trigger.CLOSE_BETTING)
    commands_before_a_shoe = {t for t in Trigger if accepts(Phase.NO_SHOE, t)}
    assert commands_before_a_shoe == {Trigger.NEW_SHOE, Trigger.CARD, Trigger.MISREAD,
                                      Trigger.CUT_CARD, Trigger.FRAMES_LOST, Trigger.SET_LIMITS}
    assert is_edge(Phase.DEALING, Trigger.CARD, Phase.SHOE_OVER)
    assert not is_edge(Phase.BETTING, Trigger.CARD, Phase.DEALING)


def _given(step: object) -> object:
    """The type of what a step or guard is given (its third or second parameter)."""
    assert isinstance(step, FunctionType)
    hints = typing.get_type_hints(step)
    names = list(inspect.signature(step).parameters)
    return hints[names[2] if len(names) == 3 else names[1]]


def test_every_route_names_a_step_of_the_dispatcher_and_every_step_is_used() -> None:
    given = {trigger: kind for kind, trigger in TRIGGERS.items()}
    shoe_items = {Trigger.CARD, Trigger.MISREAD, Trigger.CUT_CARD, Trigger.FRAMES_LOST}
    named: set[object] = set()
    for routes in ROUTES.values():
        for trigger, taken in routes.items():
            assert _given(taken.step) == (Drawn if trigger in shoe_items else given[trigger])
            if taken.guard is not None:
                assert _given(taken.guard) == given[trigger] | None
            named.add(taken.step)
    for kind, aside in (*EVERY_PHASE.items(), *UNLESS_FAULTED.items()):
        assert _given(aside.step) == kind
        if aside.guard is not None:
            assert _given(aside.guard) == kind | None
        named.add(aside.step)
    assert set(TRIGGERS.values()) == set(Trigger)
    public_steps = {
        function for name, function in inspect.getmembers(steps, inspect.isfunction)
        if function.__module__ == steps.__name__ and not name.startswith("_")
        and "out" in inspect.signature(function).parameters and name != "show_fault"
    }
    assert public_steps <= named
    assert route(Phase.DEALING, Trigger.CUT_CARD) is not None
    assert route(Phase.BETTING, Trigger.MANUAL_CARD) is None
