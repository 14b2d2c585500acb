# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The phases of a table and the transition table between them, as data.

Pure: no I/O, no clock, no randomness.

:data:`ROUTES` is the authority and the machine's dispatch table: for each (phase, trigger)
the machine takes, the step that handles it (a :class:`Handler`) and every phase the step may
end in. The machine ends a step only in one of them (anywhere else is a
:class:`~table_controller.procedure.errors.ProcedureBug`), a command is refused in a phase
with no route for it, and ``docs/state-diagram.md`` is drawn from :data:`TRANSITIONS`, the
routes' edges, by ``scripts/draw_state_diagram.py``. A route may end in its own phase: the
input is taken there without changing the phase (a correction of an earlier round, say).

``HELD`` and ``FAULTED`` are not phases the machine moves to by itself: ``HELD`` is shown
while any hold (reader offline, a missing card, a foreign card) stands over a phase of
:data:`HOLDABLE`, or a supervisor's hold (modified software, a dispute, a result not
confirmed) over any phase (:data:`SUPERVISOR_HOLDABLE`), and the machine returns to that
phase when the last hold clears (:data:`HOLD_EDGES`); ``FAULTED`` is shown after a bug, or an
input the runtime could not carry out, from any phase, and only its ``void_shoe`` edges leave
it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from table_controller.contract.codes import Phase


class Trigger(enum.StrEnum):
    """What moves the table: one per input kind (commands keep their mqtt-api.md names)."""

    CARD = "card"
    MISREAD = "misread"
    CUT_CARD = "cut_card"
    FRAMES_LOST = "frames_lost"
    NEW_SHOE = "new_shoe"
    OPEN_BETTING = "open_betting"
    CLOSE_BETTING = "close_betting"
    DEAL = "deal"
    MISDEAL = "misdeal"
    VOID_ROUND = "void_round"
    VOID_SHOE = "void_shoe"
    MANUAL_CARD = "manual_card"
    CORRECT_RESULT = "correct_result"
    DROPPED_CARD = "dropped_card"
    SET_LIMITS = "set_limits"


class Handler(enum.StrEnum):
    """The step of the machine's dispatcher that handles one (phase, trigger)."""

    NEW_SHOE = "new_shoe"
    CARD_WITHOUT_SHOE = "card_without_shoe"
    CARD_AFTER_LAST_ROUND = "card_after_last_round"
    BURN_FIRST = "burn_first"
    BURN = "burn"
    CARD_BETWEEN_ROUNDS = "card_between_rounds"
    EXPOSED_CARD = "exposed_card"
    DEAL_CARD = "deal_card"
    CUT_OUT_OF_PLAY = "cut_out_of_play"
    CUT_BETWEEN_ROUNDS = "cut_between_rounds"
    CUT_BEFORE_THE_DEAL = "cut_before_the_deal"
    CUT_WHILE_DEALING = "cut_while_dealing"
    FRAMES_LOST = "frames_lost"
    FRAMES_LOST_BETWEEN_ROUNDS = "frames_lost_between_rounds"
    OPEN_BETTING = "open_betting"
    CLOSE_BETTING = "close_betting"
    DEAL = "deal"
    MISDEAL = "misdeal"
    VOID_ROUND = "void_round"
    VOID_SHOE = "void_shoe"
    MANUAL_CARD = "manual_card"
    CORRECT_RESULT = "correct_result"
    DROPPED_CARD = "dropped_card"
    SET_LIMITS = "set_limits"
    CLEAR_FAULT = "clear_fault"


@dataclass(frozen=True, slots=True, kw_only=True)
class Transition:
    """One edge: ``trigger`` in ``source`` may lead to ``target`` (``when`` says when)."""

    source: Phase
    trigger: Trigger
    target: Phase
    when: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    """What ``trigger`` does in ``source``: the step that handles it and where it may end.

    ``targets`` pairs each phase the step may end in with when; ending anywhere else is a bug.
    """

    source: Phase
    trigger: Trigger
    handler: Handler
    targets: tuple[tuple[Phase, str], ...]
    #: The phases of ``targets``.
    ends: frozenset[Phase]

    def leads_to(self, target: Phase) -> bool:
        return target in self.ends


_P = Phase
_T = Trigger
_H = Handler
#: The step a card (read or not) takes in each phase; a card entered by hand takes it too.
CARD_STEPS: dict[Phase, Handler] = {
    _P.NO_SHOE: _H.CARD_WITHOUT_SHOE,
    _P.SHOE_OVER: _H.CARD_AFTER_LAST_ROUND,
    _P.BURN_CARD: _H.BURN_FIRST,
    _P.BURNING: _H.BURN,
    _P.BETWEEN_ROUNDS: _H.CARD_BETWEEN_ROUNDS,
    _P.BETTING: _H.EXPOSED_CARD,
    _P.DEALING: _H.DEAL_CARD,
}
_STEP_OF_TRIGGER: dict[Trigger, Handler] = {
    _T.CUT_CARD: _H.CUT_OUT_OF_PLAY,
    _T.FRAMES_LOST: _H.FRAMES_LOST,
    _T.NEW_SHOE: _H.NEW_SHOE,
    _T.OPEN_BETTING: _H.OPEN_BETTING,
    _T.CLOSE_BETTING: _H.CLOSE_BETTING,
    _T.DEAL: _H.DEAL,
    _T.MISDEAL: _H.MISDEAL,
    _T.VOID_ROUND: _H.VOID_ROUND,
    _T.VOID_SHOE: _H.VOID_SHOE,
    _T.MANUAL_CARD: _H.MANUAL_CARD,
    _T.CORRECT_RESULT: _H.CORRECT_RESULT,
    _T.DROPPED_CARD: _H.DROPPED_CARD,
    _T.SET_LIMITS: _H.SET_LIMITS,
}


def _table() -> tuple[Route, ...]:  # noqa: C901 - the table, one statement a route
    routes: list[Route] = []

    def add(source: Phase, trigger: Trigger, *targets: tuple[Phase, str],
            handler: Handler | None = None) -> None:
        if handler is None:
            is_card = trigger in (_T.CARD, _T.MISREAD)
            handler = CARD_STEPS[source] if is_card else _STEP_OF_TRIGGER[trigger]
        routes.append(Route(source=source, trigger=trigger, handler=handler, targets=targets,
                            ends=frozenset(phase for phase, _ in targets)))

    # Before any shoe, and after one: only a new shoe starts play; cards are reported.
    for idle in (_P.NO_SHOE, _P.SHOE_OVER):
        add(idle, _T.NEW_SHOE, (_P.BURN_CARD, "variant burns"),
            (_P.BETWEEN_ROUNDS, "no burn (mini)"))
        for trigger in (_T.CARD, _T.MISREAD, _T.CUT_CARD, _T.FRAMES_LOST):
            add(idle, trigger, (idle, "alarm; the card starts nothing"))
    for trigger in (_T.VOID_ROUND, _T.CORRECT_RESULT, _T.VOID_SHOE):
        add(_P.SHOE_OVER, trigger, (_P.SHOE_OVER, "a settled round, or the ended shoe"))
    # The burn.
    add(_P.BURN_CARD, _T.CARD, (_P.BURNING, "face-up card: burn N"),
        (_P.BURN_CARD, "foreign card: hold"))
    add(_P.BURN_CARD, _T.MANUAL_CARD, (_P.BURNING, "misread face-up card entered"))
    add(_P.BURN_CARD, _T.MISREAD, (_P.BURN_CARD, "hold until entered"))
    add(_P.BURN_CARD, _T.FRAMES_LOST, (_P.BURN_CARD, "hold until entered"))
    for trigger in (_T.CARD, _T.MISREAD, _T.MANUAL_CARD):
        add(_P.BURNING, trigger, (_P.BURNING, "more to burn"),
            (_P.BETWEEN_ROUNDS, "last burn card"))
    add(_P.BURNING, _T.FRAMES_LOST, (_P.BURNING, "hold until entered"))
    unexpected_cut = "no cut card in this variant: alarm"
    for burn in (_P.BURN_CARD, _P.BURNING):
        add(burn, _T.CUT_CARD, (_P.SHOE_OVER, "no round can commence"),
            (burn, unexpected_cut), handler=_H.CUT_BETWEEN_ROUNDS)
        add(burn, _T.VOID_SHOE, (_P.SHOE_OVER, "shoe voided"))
    # Between rounds.
    add(_P.BETWEEN_ROUNDS, _T.OPEN_BETTING, (_P.BETTING, "betting phase"))
    add(_P.BETWEEN_ROUNDS, _T.DEAL, (_P.DEALING, "no betting phase"))
    add(_P.BETWEEN_ROUNDS, _T.CARD, (_P.BETWEEN_ROUNDS, "betting phase: unnecessary card"),
        (_P.DEALING, "no betting phase: starts the round"))
    add(_P.BETWEEN_ROUNDS, _T.MISREAD, (_P.BETWEEN_ROUNDS, "betting phase: unnecessary"),
        (_P.DEALING, "no betting phase: starts the round, hold"))
    add(_P.BETWEEN_ROUNDS, _T.FRAMES_LOST, (_P.BETWEEN_ROUNDS, "betting phase: alarm"),
        (_P.DEALING, "no betting phase: starts the round, hold"),
        handler=_H.FRAMES_LOST_BETWEEN_ROUNDS)
    add(_P.BETWEEN_ROUNDS, _T.CUT_CARD, (_P.SHOE_OVER, "cut card between rounds"),
        (_P.BETWEEN_ROUNDS, unexpected_cut), handler=_H.CUT_BETWEEN_ROUNDS)
    add(_P.BETWEEN_ROUNDS, _T.NEW_SHOE, (_P.BETWEEN_ROUNDS, "reshuffle every round"),
        (_P.BURN_CARD, "reshuffle every round, variant burns"))
    add(_P.BETWEEN_ROUNDS, _T.VOID_SHOE, (_P.SHOE_OVER, "shoe voided"))
    for trigger in (_T.VOID_ROUND, _T.CORRECT_RESULT):
        add(_P.BETWEEN_ROUNDS, trigger, (_P.BETWEEN_ROUNDS, "a settled round"))
    left_over = "a card drawn for a left-over lost frame: counted, discarded"
    add(_P.BETWEEN_ROUNDS, _T.MANUAL_CARD, (_P.BETWEEN_ROUNDS, left_over))
    add(_P.SHOE_OVER, _T.MANUAL_CARD, (_P.SHOE_OVER, left_over))
    # Betting.
    add(_P.BETTING, _T.CLOSE_BETTING, (_P.DEALING, "deal"))
    for trigger in (_T.CARD, _T.MISREAD):
        add(_P.BETTING, trigger, (_P.BETWEEN_ROUNDS, "exposed card: round voided"),
            (_P.BETTING, "foreign card: hold"))
    add(_P.BETTING, _T.FRAMES_LOST, (_P.BETTING, "alarm"))
    add(_P.BETTING, _T.CUT_CARD, (_P.SHOE_OVER, "round does not commence"),
        (_P.BETTING, unexpected_cut), handler=_H.CUT_BEFORE_THE_DEAL)
    add(_P.BETTING, _T.VOID_ROUND, (_P.BETWEEN_ROUNDS, "this round"),
        (_P.SHOE_OVER, "this round, a cut card queued behind a hold"),
        (_P.BETTING, "a settled round"))
    add(_P.BETTING, _T.CORRECT_RESULT, (_P.BETTING, "a settled round"))
    add(_P.BETTING, _T.VOID_SHOE, (_P.SHOE_OVER, "shoe voided"))
    # Dealing.
    for trigger in (_T.CARD, _T.MANUAL_CARD):
        add(_P.DEALING, trigger, (_P.DEALING, "more cards due, or foreign card"),
            (_P.BETWEEN_ROUNDS, "coup complete"),
            (_P.SHOE_OVER, "coup complete, last round"))
    add(_P.DEALING, _T.MISREAD, (_P.DEALING, "hold until entered"))
    add(_P.DEALING, _T.FRAMES_LOST, (_P.DEALING, "hold until entered"))
    add(_P.DEALING, _T.CUT_CARD, (_P.DEALING, "after the first card: last round"),
        (_P.SHOE_OVER, "before the first card: round does not commence"),
        handler=_H.CUT_WHILE_DEALING)
    add(_P.DEALING, _T.MISDEAL, (_P.BETWEEN_ROUNDS, "misdeal"),
        (_P.SHOE_OVER, "misdeal, last round"))
    add(_P.DEALING, _T.VOID_ROUND, (_P.BETWEEN_ROUNDS, "this round voided"),
        (_P.SHOE_OVER, "this round voided, last round"), (_P.DEALING, "a settled round"))
    add(_P.DEALING, _T.DROPPED_CARD, (_P.BETWEEN_ROUNDS, "unread card dropped: round voided"),
        (_P.SHOE_OVER, "unread card dropped: round voided, last round"),
        (_P.DEALING, "read card dropped: reused"))
    add(_P.DEALING, _T.CORRECT_RESULT, (_P.DEALING, "a settled round"))
    add(_P.DEALING, _T.VOID_SHOE, (_P.SHOE_OVER, "shoe voided"))
    # Stake limits change only while no round is in play.
    for idle in (_P.NO_SHOE, _P.BETWEEN_ROUNDS, _P.SHOE_OVER):
        add(idle, _T.SET_LIMITS, (idle, "limits changed between rounds"))
    # A fault: only a supervisor's void_shoe leaves it; whatever the fault left half done goes.
    add(_P.FAULTED, _T.VOID_SHOE, (_P.SHOE_OVER, "fault cleared: shoe voided"),
        (_P.NO_SHOE, "fault cleared: no shoe was started"), handler=_H.CLEAR_FAULT)
    return tuple(routes)


#: What each (phase, trigger) the machine takes does: the machine's dispatch table.
ROUTES: tuple[Route, ...] = _table()
_ROUTE: dict[tuple[Phase, Trigger], Route] = {
    (step.source, step.trigger): step for step in ROUTES
}
if len(_ROUTE) != len(ROUTES):
    raise AssertionError("two routes for one (phase, trigger)")
#: Every edge of the machine, as drawn in ``docs/state-diagram.md``.
TRANSITIONS: tuple[Transition, ...] = tuple(
    Transition(source=step.source, trigger=step.trigger, target=target, when=when)
    for step in ROUTES
    for target, when in step.targets
)
#: The phases a hold can stand over; the machine shows ``HELD`` and returns to them.
HOLDABLE: frozenset[Phase] = frozenset(
    {Phase.BURN_CARD, Phase.BURNING, Phase.BETWEEN_ROUNDS, Phase.BETTING, Phase.DEALING}
)
#: Commands taken while the table is held: those that clear a hold or touch only the past.
COMMANDS_WHILE_HELD: frozenset[Trigger] = frozenset({
    Trigger.MANUAL_CARD,
    Trigger.MISDEAL,
    Trigger.VOID_ROUND,
    Trigger.VOID_SHOE,
    Trigger.CORRECT_RESULT,
    Trigger.DROPPED_CARD,
})
#: The phases a supervisor's hold (modified software, a dispute, a result not confirmed) can
#: stand over: every stored phase.
SUPERVISOR_HOLDABLE: frozenset[Phase] = frozenset(Phase) - {Phase.HELD, Phase.FAULTED}
#: The hold overlay, for the diagram: (phase, label, phase).
HOLD_EDGES: tuple[tuple[Phase, str, Phase], ...] = tuple(
    edge
    for phase in sorted(SUPERVISOR_HOLDABLE, key=list(Phase).index)
    for edge in (
        (phase, "hold" if phase in HOLDABLE else "supervisor's hold", Phase.HELD),
        (Phase.HELD, "last hold cleared", phase),
    )
)



def route(phase: Phase, trigger: Trigger) -> Route | None:
    """The route of ``trigger`` in ``phase``; ``None`` if the phase does not take it."""
    return _ROUTE.get((phase, trigger))


def accepts(phase: Phase, trigger: Trigger) -> bool:
    """Whether the table takes ``trigger`` in ``phase``."""
    return (phase, trigger) in _ROUTE


def is_edge(source: Phase, trigger: Trigger, target: Phase) -> bool:
    """Whether ``trigger`` may move the table from ``source`` to ``target``."""
    step = _ROUTE.get((source, trigger))
    return step is not None and step.leads_to(target)
