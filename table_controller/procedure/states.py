# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's routes: for each phase, the triggers it takes and the step that handles each.

Pure: no I/O, no clock, no randomness.

:data:`ROUTES` is the authority and the machine's dispatch table, read top to bottom: in each
phase, each trigger it takes, the function that carries it out and every phase that function
may end in, with when. The machine ends a step only in one of them (anywhere else is a
:class:`~table_controller.procedure.errors.ProcedureBug`), a command is refused in a phase
with no route for it, and ``docs/state-diagram.md`` is drawn from the routes' edges
(:data:`TRANSITIONS`) by ``scripts/draw_state_diagram.py``. A route may end in its own phase:
the input is taken there without changing the phase (a correction of an earlier round, say).
A route's *guard* refuses a command of its kind whatever the command names (a card entered
by hand while none is missing); the step refuses what depends on the command's own fields.

:data:`EVERY_PHASE` and :data:`UNLESS_FAULTED` are the inputs taken beside the phase's routes,
whatever the phase: who is at the table, the supervisor's holds and acknowledgements, the
reader's state, the analysis, the configuration, a failure. None of them moves the phase.

``HELD`` and ``FAULTED`` are not phases the machine moves to by itself: ``HELD`` is shown
while any hold (reader offline, a missing card, a foreign card) stands over a phase of
:data:`HOLDABLE`, or a supervisor's hold (modified software, a dispute, a result not
confirmed) over any phase (:data:`SUPERVISOR_HOLDABLE`), and the machine returns to that
phase when the last hold clears (:data:`HOLD_EDGES`); ``FAULTED`` is shown after a bug, or an
input the runtime could not carry out, from any phase, and only its route leaves it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from table_controller.contract import Phase
from table_controller.procedure import (
    dealing,
    faults,
    limits,
    oversight,
    staff,
    steps,
    supervision,
)
from table_controller.procedure.inputs import (
    COMMANDS,
    Acknowledge,
    AcknowledgeAlarm,
    CallSupervisor,
    CardDrawn,
    CardMisread,
    CloseBetting,
    Command,
    ConfirmResult,
    CorrectResult,
    CutCardDrawn,
    Deal,
    DroppedCard,
    EnterCard,
    FramesLost,
    Input,
    LimitsConfigured,
    Misdeal,
    OpenBetting,
    OpenDispute,
    ReaderCameBack,
    ReaderWentOffline,
    ResolveDispute,
    RoundAssessed,
    RuntimeFailed,
    SetLimits,
    SignIn,
    SignOut,
    SoftwareModified,
    StartNewShoe,
    VoidRound,
    VoidShoe,
)
from table_controller.procedure.table import HOLDABLE, Out, Refusal, Table

__all__ = [
    "COMMANDS_WHILE_HELD",
    "EVERY_PHASE",
    "HOLDABLE",
    "HOLD_EDGES",
    "ROUTES",
    "SUPERVISOR_HOLDABLE",
    "TRANSITIONS",
    "TRIGGERS",
    "UNLESS_FAULTED",
    "Aside",
    "Route",
    "Transition",
    "Trigger",
    "accepts",
    "commands_taken",
    "is_edge",
    "refusal",
    "route",
]


class Trigger(enum.StrEnum):
    """What moves the table: the shoe's items and the game's commands (mqtt-api.md names)."""

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


#: The trigger of each input the routes take. A shoe item's step is given it as
#: :class:`~table_controller.procedure.steps.Drawn`; a command's step, the command.
TRIGGERS: Final[Mapping[type[Input], Trigger]] = {
    CardDrawn: Trigger.CARD,
    CardMisread: Trigger.MISREAD,
    CutCardDrawn: Trigger.CUT_CARD,
    FramesLost: Trigger.FRAMES_LOST,
    StartNewShoe: Trigger.NEW_SHOE,
    OpenBetting: Trigger.OPEN_BETTING,
    CloseBetting: Trigger.CLOSE_BETTING,
    Deal: Trigger.DEAL,
    Misdeal: Trigger.MISDEAL,
    VoidRound: Trigger.VOID_ROUND,
    VoidShoe: Trigger.VOID_SHOE,
    EnterCard: Trigger.MANUAL_CARD,
    CorrectResult: Trigger.CORRECT_RESULT,
    DroppedCard: Trigger.DROPPED_CARD,
    SetLimits: Trigger.SET_LIMITS,
}

#: A route's step: the table, the input's collector and what it is given, in; the phase it
#: ends in (or a command's refusal) out.
StepFunction = Callable[[Table, Out, Any], "Phase | Refusal"]
#: A guard: why a command of the route's kind is refused now whatever it names, if it is
#: (given the command, to name it; ``None`` to ask about every command of its kind).
Guard = Callable[[Table, Any], "Refusal | None"]


@dataclass(frozen=True, slots=True)
class Route:
    """What a trigger does in a phase.

    Its step, each phase the step may end in (with when), and the guard a command passes
    first, if any.
    """

    step: StepFunction
    ends: Mapping[Phase, str]
    guard: Guard | None = None


@dataclass(frozen=True, slots=True)
class Aside:
    """An input taken beside the routes: its step (a refusal or ``None``) and its guard."""

    step: Callable[[Table, Out, Any], Refusal | None]
    guard: Guard | None = None


# Short names for the table below, and the words several of its edges share.
P, T = Phase, Trigger
_STARTS_NOTHING = "alarm; the card starts nothing"
_UNEXPECTED_CUT = "no cut card in this variant: alarm"
_LEFT_OVER = "a card drawn for a left-over lost frame: counted, discarded"
_SETTLED = "a settled round"
_VOIDED = {P.SHOE_OVER: "shoe voided"}
_NEW_SHOE = {P.BURN_CARD: "variant burns", P.BETWEEN_ROUNDS: "no burn (mini)"}

#: Each phase, the triggers it takes, and what each does: the machine's dispatch table.
ROUTES: Final[Mapping[Phase, Mapping[Trigger, Route]]] = {
    # Before any shoe: only a new shoe starts play; cards are reported.
    P.NO_SHOE: {
        T.NEW_SHOE: Route(supervision.new_shoe, _NEW_SHOE),
        T.CARD: Route(steps.card_without_shoe, {P.NO_SHOE: _STARTS_NOTHING}),
        T.MISREAD: Route(steps.card_without_shoe, {P.NO_SHOE: _STARTS_NOTHING}),
        T.CUT_CARD: Route(steps.cut_out_of_play, {P.NO_SHOE: _STARTS_NOTHING}),
        T.FRAMES_LOST: Route(steps.frames_lost, {P.NO_SHOE: _STARTS_NOTHING}),
        T.SET_LIMITS: Route(limits.set_limits, {P.NO_SHOE: "limits changed between rounds"}),
    },
    # The burn: the face-up card says how many more.
    P.BURN_CARD: {
        T.CARD: Route(steps.burn_first, {P.BURNING: "face-up card: burn N",
                                         P.BURN_CARD: "foreign card: hold"}),
        T.MISREAD: Route(steps.burn_first, {P.BURN_CARD: "hold until entered"}),
        T.MANUAL_CARD: Route(steps.enter_burn_first, {P.BURNING: "misread face-up card entered"},
                             supervision.card_missing),
        T.FRAMES_LOST: Route(steps.frames_lost, {P.BURN_CARD: "hold until entered"}),
        T.CUT_CARD: Route(steps.cut_between_rounds, {P.SHOE_OVER: "no round can commence",
                                                     P.BURN_CARD: _UNEXPECTED_CUT}),
        T.VOID_SHOE: Route(steps.void_shoe, _VOIDED, supervision.shoe_not_voided),
    },
    P.BURNING: {
        T.CARD: Route(steps.burn, {P.BURNING: "more to burn", P.BETWEEN_ROUNDS: "last burn card"}),
        T.MISREAD: Route(steps.burn, {P.BURNING: "more to burn",
                                      P.BETWEEN_ROUNDS: "last burn card"}),
        T.MANUAL_CARD: Route(steps.enter_burn, {P.BURNING: "more to burn",
                                                P.BETWEEN_ROUNDS: "last burn card"},
                             supervision.card_missing),
        T.FRAMES_LOST: Route(steps.frames_lost, {P.BURNING: "hold until entered"}),
        T.CUT_CARD: Route(steps.cut_between_rounds, {P.SHOE_OVER: "no round can commence",
                                                     P.BURNING: _UNEXPECTED_CUT}),
        T.VOID_SHOE: Route(steps.void_shoe, _VOIDED, supervision.shoe_not_voided),
    },
    # Between rounds: betting opens, or (no betting phase) the deal or its first card starts.
    P.BETWEEN_ROUNDS: {
        T.OPEN_BETTING: Route(steps.open_betting, {P.BETTING: "betting phase"}),
        T.DEAL: Route(steps.deal, {P.DEALING: "no betting phase"}),
        T.CARD: Route(steps.card_between_rounds, {
            P.BETWEEN_ROUNDS: "betting phase: unnecessary card",
            P.DEALING: "no betting phase: starts the round"}),
        T.MISREAD: Route(steps.card_between_rounds, {
            P.BETWEEN_ROUNDS: "betting phase: unnecessary",
            P.DEALING: "no betting phase: starts the round, hold"}),
        T.FRAMES_LOST: Route(steps.frames_lost_between_rounds, {
            P.BETWEEN_ROUNDS: "betting phase: alarm",
            P.DEALING: "no betting phase: starts the round, hold"}),
        T.CUT_CARD: Route(steps.cut_between_rounds, {P.SHOE_OVER: "cut card between rounds",
                                                     P.BETWEEN_ROUNDS: _UNEXPECTED_CUT}),
        T.NEW_SHOE: Route(supervision.new_shoe, {
            P.BETWEEN_ROUNDS: "reshuffle every round",
            P.BURN_CARD: "reshuffle every round, variant burns"}, supervision.shoe_not_over),
        T.VOID_SHOE: Route(steps.void_shoe, _VOIDED, supervision.shoe_not_voided),
        T.VOID_ROUND: Route(steps.void_round, {P.BETWEEN_ROUNDS: _SETTLED}),
        T.CORRECT_RESULT: Route(steps.correct_result, {P.BETWEEN_ROUNDS: _SETTLED}),
        T.MANUAL_CARD: Route(steps.enter_between_rounds, {P.BETWEEN_ROUNDS: _LEFT_OVER},
                             supervision.card_missing),
        T.SET_LIMITS: Route(limits.set_limits, {P.BETWEEN_ROUNDS: "limits changed between rounds"}),
    },
    # Betting: a card now is exposed and voids the round.
    P.BETTING: {
        T.CLOSE_BETTING: Route(steps.close_betting, {P.DEALING: "deal"}),
        T.CARD: Route(steps.exposed_card, {P.BETWEEN_ROUNDS: "exposed card: round voided",
                                           P.BETTING: "foreign card: hold"}),
        T.MISREAD: Route(steps.exposed_card, {P.BETWEEN_ROUNDS: "exposed card: round voided",
                                              P.BETTING: "foreign card: hold"}),
        T.FRAMES_LOST: Route(steps.frames_lost, {P.BETTING: "alarm"}),
        T.CUT_CARD: Route(steps.cut_before_the_deal, {P.SHOE_OVER: "round does not commence",
                                                      P.BETTING: _UNEXPECTED_CUT}),
        T.VOID_ROUND: Route(steps.void_round, {
            P.BETWEEN_ROUNDS: "this round",
            P.SHOE_OVER: "this round, a cut card queued behind a hold",
            P.BETTING: _SETTLED}),
        T.CORRECT_RESULT: Route(steps.correct_result, {P.BETTING: _SETTLED}),
        T.VOID_SHOE: Route(steps.void_shoe, _VOIDED, supervision.shoe_not_voided),
    },
    # Dealing: the drawing rules say which hand gets the next card.
    P.DEALING: {
        T.CARD: Route(steps.deal_card, {P.DEALING: "more cards due, or foreign card",
                                        P.BETWEEN_ROUNDS: "coup complete",
                                        P.SHOE_OVER: "coup complete, last round"}),
        T.MANUAL_CARD: Route(steps.enter_dealt_card, {P.DEALING: "more cards due, or foreign card",
                                                      P.BETWEEN_ROUNDS: "coup complete",
                                                      P.SHOE_OVER: "coup complete, last round"},
                             supervision.card_missing),
        T.MISREAD: Route(steps.deal_card, {P.DEALING: "hold until entered"}),
        T.FRAMES_LOST: Route(steps.frames_lost, {P.DEALING: "hold until entered"}),
        T.CUT_CARD: Route(steps.cut_while_dealing, {
            P.DEALING: "after the first card: last round",
            P.SHOE_OVER: "before the first card: round does not commence"}),
        T.MISDEAL: Route(steps.misdeal, {P.BETWEEN_ROUNDS: "misdeal",
                                         P.SHOE_OVER: "misdeal, last round"}),
        T.VOID_ROUND: Route(steps.void_round, {P.BETWEEN_ROUNDS: "this round voided",
                                               P.SHOE_OVER: "this round voided, last round",
                                               P.DEALING: _SETTLED}),
        T.DROPPED_CARD: Route(steps.dropped_card, {
            P.BETWEEN_ROUNDS: "unread card dropped: round voided",
            P.SHOE_OVER: "unread card dropped: round voided, last round",
            P.DEALING: "read card dropped: reused"}),
        T.CORRECT_RESULT: Route(steps.correct_result, {P.DEALING: _SETTLED}),
        T.VOID_SHOE: Route(steps.void_shoe, _VOIDED, supervision.shoe_not_voided),
    },
    # After the shoe: a new shoe, and corrections of its settled rounds.
    P.SHOE_OVER: {
        T.NEW_SHOE: Route(supervision.new_shoe, _NEW_SHOE),
        T.CARD: Route(steps.card_after_last_round, {P.SHOE_OVER: _STARTS_NOTHING}),
        T.MISREAD: Route(steps.card_after_last_round, {P.SHOE_OVER: _STARTS_NOTHING}),
        T.CUT_CARD: Route(steps.cut_out_of_play, {P.SHOE_OVER: _STARTS_NOTHING}),
        T.FRAMES_LOST: Route(steps.frames_lost, {P.SHOE_OVER: _STARTS_NOTHING}),
        T.VOID_ROUND: Route(steps.void_round, {P.SHOE_OVER: "a settled round, or the ended shoe"}),
        T.CORRECT_RESULT: Route(steps.correct_result, {
            P.SHOE_OVER: "a settled round, or the ended shoe"}),
        T.VOID_SHOE: Route(steps.void_shoe, {P.SHOE_OVER: "a settled round, or the ended shoe"},
                           supervision.shoe_not_voided),
        T.MANUAL_CARD: Route(steps.enter_after_last_round, {P.SHOE_OVER: _LEFT_OVER},
                             supervision.card_missing),
        T.SET_LIMITS: Route(limits.set_limits, {P.SHOE_OVER: "limits changed between rounds"}),
    },
    # A fault: only a supervisor's void_shoe leaves it; whatever the fault left half done goes.
    P.FAULTED: {
        T.VOID_SHOE: Route(faults.clear, {P.SHOE_OVER: "fault cleared: shoe voided",
                                          P.NO_SHOE: "fault cleared: no shoe was started"}),
    },
}

#: Inputs taken beside the routes in every phase, a faulted table's too: who is at the table,
#: the supervisor's holds and acknowledgements, a call for a supervisor, the configured
#: limits, a failure of the runtime.
EVERY_PHASE: Final[Mapping[type[Input], Aside]] = {
    SignIn: Aside(staff.sign_in),
    SignOut: Aside(staff.sign_out, staff.someone_signed_in),
    OpenDispute: Aside(oversight.open_dispute, oversight.no_dispute_open),
    ResolveDispute: Aside(oversight.resolve_dispute, oversight.dispute_open),
    Acknowledge: Aside(oversight.acknowledge, oversight.hold_to_acknowledge),
    AcknowledgeAlarm: Aside(oversight.acknowledge_alarm, oversight.alarm_open),
    CallSupervisor: Aside(oversight.call_supervisor, oversight.no_call_open),
    SoftwareModified: Aside(oversight.software_modified),
    LimitsConfigured: Aside(limits.configure),
    RuntimeFailed: Aside(steps.runtime_failed),
}
#: Inputs taken beside the routes in every phase but ``faulted``, which follows neither the
#: reader nor the game: there a command among them is refused, the others change nothing.
UNLESS_FAULTED: Final[Mapping[type[Input], Aside]] = {
    ReaderWentOffline: Aside(steps.reader_offline),
    ReaderCameBack: Aside(steps.reader_back),
    RoundAssessed: Aside(dealing.assessed),
    ConfirmResult: Aside(oversight.confirm_result, oversight.result_waits),
}
#: Commands taken while the table is held: those that clear a hold or touch only the past.
COMMANDS_WHILE_HELD: Final = frozenset({
    T.MANUAL_CARD, T.MISDEAL, T.VOID_ROUND, T.VOID_SHOE, T.CORRECT_RESULT, T.DROPPED_CARD,
})  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class Transition:
    """One edge: ``trigger`` in ``source`` may lead to ``target`` (``when`` says when)."""

    source: Phase
    trigger: Trigger
    target: Phase
    when: str


#: Every edge of the machine, as drawn in ``docs/state-diagram.md``.
TRANSITIONS: Final[tuple[Transition, ...]] = tuple(
    Transition(source=source, trigger=trigger, target=target, when=when)
    for source, taken in ROUTES.items()
    for trigger, its in taken.items()
    for target, when in its.ends.items()
)
#: The phases a supervisor's hold (modified software, a dispute, a result not confirmed) can
#: stand over: every stored phase.
SUPERVISOR_HOLDABLE: Final = frozenset(Phase) - {Phase.HELD, Phase.FAULTED}
#: The hold overlay, for the diagram: (phase, label, phase).
HOLD_EDGES: Final[tuple[tuple[Phase, str, Phase], ...]] = tuple(
    edge
    for phase in sorted(SUPERVISOR_HOLDABLE, key=list(Phase).index)
    for edge in (
        (phase, "hold" if phase in HOLDABLE else "supervisor's hold", Phase.HELD),
        (Phase.HELD, "last hold cleared", phase),
    )
)
_NO_ROUTES: Final[Mapping[Trigger, Route]] = {}


def route(phase: Phase, trigger: Trigger) -> Route | None:
    """The route of ``trigger`` in ``phase``; ``None`` if the phase does not take it."""
    return ROUTES.get(phase, _NO_ROUTES).get(trigger)


def accepts(phase: Phase, trigger: Trigger) -> bool:
    """Whether the table takes ``trigger`` in ``phase``."""
    return trigger in ROUTES.get(phase, _NO_ROUTES)


def is_edge(source: Phase, trigger: Trigger, target: Phase) -> bool:
    """Whether ``trigger`` may move the table from ``source`` to ``target``."""
    taken = route(source, trigger)
    return taken is not None and target in taken.ends


def aside(table: Table, kind: type[Input]) -> Aside | None:
    """The aside that takes an input of ``kind`` now, if one does."""
    found = EVERY_PHASE.get(kind)
    if found is None and table.holds.fault is None:
        found = UNLESS_FAULTED.get(kind)
    return found


def refusal(table: Table, kind: type[Command], command: Command | None = None) -> Refusal | None:
    """Why the table refuses a command of ``kind`` now before its step, if it does.

    ``command`` is the command given (to name it), or ``None`` to ask about every command of
    its kind. In order: a faulted table takes only its route and :data:`EVERY_PHASE`; a
    route's command passes :func:`~.supervision.precheck` (the kind of table, a hold, the
    phase, the dealer), :func:`~.oversight.precheck` (a result waiting) and its route's
    guard; an aside's, its guard. ``None``: the step takes it, unless it refuses what the
    command names.
    """
    trigger = TRIGGERS.get(kind)
    if trigger is None:
        taken = aside(table, kind)
        if taken is None:
            return faults.refusal(table)
        return None if taken.guard is None else taken.guard(table, command)
    if table.holds.fault is not None:
        found = ROUTES[Phase.FAULTED].get(trigger)
        if found is None:
            return faults.refusal(table)
        return None if found.guard is None else found.guard(table, command)
    found = ROUTES[table.phase].get(trigger)
    why = supervision.precheck(table, kind, routed=found is not None,
                               while_held=trigger in COMMANDS_WHILE_HELD)
    why = why or oversight.precheck(table, kind, command)
    if why is None and found is not None and found.guard is not None:
        why = found.guard(table, command)
    return why


def commands_taken(table: Table) -> frozenset[str]:
    """The commands the table takes now, by name: those :func:`refusal` lets through."""
    return frozenset(name for name, kind in COMMANDS.items() if refusal(table, kind) is None)
