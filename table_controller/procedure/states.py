# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The phases of a table and the transition table between them, as data.

Pure: no I/O, no clock, no randomness.

:data:`TRANSITIONS` is the authority: the machine moves only along an edge listed here (any
other move is a :class:`~table_controller.procedure.errors.ProcedureBug`), a command is refused
in a phase from which it has no edge, and ``docs/state-diagram.md`` is drawn from it by
``scripts/draw_state_diagram.py``. An edge may lead back to its own phase: the command is
taken there without changing the phase (a correction of an earlier round, say).

``HELD`` and ``FAULTED`` are not phases the machine moves to by itself: ``HELD`` is shown
while any hold (reader offline, a missing card, a foreign card) stands over a phase of
:data:`HOLDABLE`, and the machine returns to that phase when the last hold clears
(:data:`HOLD_EDGES`); ``FAULTED`` is shown after a bug, or an input the runtime could not carry
out, from any phase, and only its ``void_shoe`` edges leave it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Phase(enum.StrEnum):
    """Where the table is in its shoe."""

    #: No shoe has been started yet.
    NO_SHOE = "no_shoe"
    #: A new shoe: the first card is turned face up to tell how many cards to burn.
    BURN_CARD = "burn_card"
    #: Burning the cards the first card ordered.
    BURNING = "burning"
    #: Between rounds: waiting for ``open_betting`` or, with no betting phase, the next deal.
    BETWEEN_ROUNDS = "between_rounds"
    #: Bets are being taken: a card now is an exposed card.
    BETTING = "betting"
    #: The round's cards are expected, as the drawing rules call for them.
    DEALING = "dealing"
    #: The shoe ended (cut card) or was voided; waiting for ``new_shoe``.
    SHOE_OVER = "shoe_over"
    #: Dealing is stopped over one of the phases of ``HOLDABLE`` (shown, never stored).
    HELD = "held"
    #: The core hit a bug, or the runtime could not carry out an input: held until ``void_shoe``.
    FAULTED = "faulted"


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Transition:
    """One edge: ``trigger`` in ``source`` may lead to ``target`` (``when`` says when)."""

    source: Phase
    trigger: Trigger
    target: Phase
    when: str


def _edges(source: Phase, trigger: Trigger, *targets: tuple[Phase, str]) -> list[Transition]:
    return [
        Transition(source=source, trigger=trigger, target=target, when=when)
        for target, when in targets
    ]


_P = Phase
_T = Trigger
_STAY = "taken, phase unchanged"


def _table() -> tuple[Transition, ...]:
    edges: list[Transition] = []
    add = edges.extend
    # Before any shoe, and after one: only a new shoe starts play; cards are reported.
    for idle in (_P.NO_SHOE, _P.SHOE_OVER):
        add(_edges(idle, _T.NEW_SHOE, (_P.BURN_CARD, "variant burns"),
                   (_P.BETWEEN_ROUNDS, "no burn (mini)")))
        for trigger in (_T.CARD, _T.MISREAD, _T.CUT_CARD, _T.FRAMES_LOST):
            add(_edges(idle, trigger, (idle, "alarm; the card starts nothing")))
    for trigger in (_T.VOID_ROUND, _T.CORRECT_RESULT, _T.VOID_SHOE):
        add(_edges(_P.SHOE_OVER, trigger, (_P.SHOE_OVER, "a settled round, or the ended shoe")))
    # The burn.
    add(_edges(_P.BURN_CARD, _T.CARD, (_P.BURNING, "face-up card: burn N"),
               (_P.BURN_CARD, "foreign card: hold")))
    add(_edges(_P.BURN_CARD, _T.MANUAL_CARD, (_P.BURNING, "misread face-up card entered")))
    add(_edges(_P.BURN_CARD, _T.MISREAD, (_P.BURN_CARD, "hold until entered")))
    add(_edges(_P.BURN_CARD, _T.FRAMES_LOST, (_P.BURN_CARD, "hold until entered")))
    for trigger in (_T.CARD, _T.MISREAD, _T.MANUAL_CARD):
        add(_edges(_P.BURNING, trigger, (_P.BURNING, "more to burn"),
                   (_P.BETWEEN_ROUNDS, "last burn card")))
    add(_edges(_P.BURNING, _T.FRAMES_LOST, (_P.BURNING, "hold until entered")))
    for burn in (_P.BURN_CARD, _P.BURNING):
        add(_edges(burn, _T.CUT_CARD, (_P.SHOE_OVER, "no round can commence")))
        add(_edges(burn, _T.VOID_SHOE, (_P.SHOE_OVER, "shoe voided")))
    # Between rounds.
    add(_edges(_P.BETWEEN_ROUNDS, _T.OPEN_BETTING, (_P.BETTING, "betting phase")))
    add(_edges(_P.BETWEEN_ROUNDS, _T.DEAL, (_P.DEALING, "no betting phase")))
    add(_edges(_P.BETWEEN_ROUNDS, _T.CARD, (_P.BETWEEN_ROUNDS, "betting phase: unnecessary card"),
               (_P.DEALING, "no betting phase: starts the round")))
    add(_edges(_P.BETWEEN_ROUNDS, _T.MISREAD, (_P.BETWEEN_ROUNDS, "betting phase: unnecessary"),
               (_P.DEALING, "no betting phase: starts the round, hold")))
    add(_edges(_P.BETWEEN_ROUNDS, _T.FRAMES_LOST, (_P.BETWEEN_ROUNDS, "betting phase: alarm"),
               (_P.DEALING, "no betting phase: starts the round, hold")))
    add(_edges(_P.BETWEEN_ROUNDS, _T.CUT_CARD, (_P.SHOE_OVER, "cut card between rounds")))
    add(_edges(_P.BETWEEN_ROUNDS, _T.NEW_SHOE, (_P.BETWEEN_ROUNDS, "reshuffle every round"),
               (_P.BURN_CARD, "reshuffle every round, variant burns")))
    add(_edges(_P.BETWEEN_ROUNDS, _T.VOID_SHOE, (_P.SHOE_OVER, "shoe voided")))
    for trigger in (_T.VOID_ROUND, _T.CORRECT_RESULT):
        add(_edges(_P.BETWEEN_ROUNDS, trigger, (_P.BETWEEN_ROUNDS, "a settled round")))
    left_over = "a card drawn for a left-over lost frame: counted, discarded"
    add(_edges(_P.BETWEEN_ROUNDS, _T.MANUAL_CARD, (_P.BETWEEN_ROUNDS, left_over)))
    add(_edges(_P.SHOE_OVER, _T.MANUAL_CARD, (_P.SHOE_OVER, left_over)))
    # Betting.
    add(_edges(_P.BETTING, _T.CLOSE_BETTING, (_P.DEALING, "deal")))
    for trigger in (_T.CARD, _T.MISREAD):
        add(_edges(_P.BETTING, trigger, (_P.BETWEEN_ROUNDS, "exposed card: round voided"),
                   (_P.BETTING, "foreign card: hold")))
    add(_edges(_P.BETTING, _T.FRAMES_LOST, (_P.BETTING, "alarm")))
    add(_edges(_P.BETTING, _T.CUT_CARD, (_P.SHOE_OVER, "round does not commence")))
    add(_edges(_P.BETTING, _T.VOID_ROUND, (_P.BETWEEN_ROUNDS, "this round"),
               (_P.SHOE_OVER, "this round, a cut card queued behind a hold"),
               (_P.BETTING, "a settled round")))
    add(_edges(_P.BETTING, _T.CORRECT_RESULT, (_P.BETTING, "a settled round")))
    add(_edges(_P.BETTING, _T.VOID_SHOE, (_P.SHOE_OVER, "shoe voided")))
    # Dealing.
    for trigger in (_T.CARD, _T.MANUAL_CARD):
        add(_edges(_P.DEALING, trigger, (_P.DEALING, "more cards due, or foreign card"),
                   (_P.BETWEEN_ROUNDS, "coup complete"),
                   (_P.SHOE_OVER, "coup complete, last round")))
    add(_edges(_P.DEALING, _T.MISREAD, (_P.DEALING, "hold until entered")))
    add(_edges(_P.DEALING, _T.FRAMES_LOST, (_P.DEALING, "hold until entered")))
    add(_edges(_P.DEALING, _T.CUT_CARD, (_P.DEALING, "after the first card: last round"),
               (_P.SHOE_OVER, "before the first card: round does not commence")))
    for trigger, when in ((_T.MISDEAL, "misdeal"), (_T.VOID_ROUND, "this round voided"),
                          (_T.DROPPED_CARD, "unread card dropped: round voided")):
        add(_edges(_P.DEALING, trigger, (_P.BETWEEN_ROUNDS, when),
                   (_P.SHOE_OVER, f"{when}, last round")))
    add(_edges(_P.DEALING, _T.DROPPED_CARD, (_P.DEALING, "read card dropped: reused")))
    add(_edges(_P.DEALING, _T.VOID_ROUND, (_P.DEALING, "a settled round")))
    add(_edges(_P.DEALING, _T.CORRECT_RESULT, (_P.DEALING, "a settled round")))
    add(_edges(_P.DEALING, _T.VOID_SHOE, (_P.SHOE_OVER, "shoe voided")))
    # A fault: only a supervisor's void_shoe leaves it; whatever the fault left half done goes.
    add(_edges(_P.FAULTED, _T.VOID_SHOE, (_P.SHOE_OVER, "fault cleared: shoe voided"),
               (_P.NO_SHOE, "fault cleared: no shoe was started")))
    return tuple(edges)


#: Every edge of the machine.
TRANSITIONS: tuple[Transition, ...] = _table()
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
#: The hold overlay, for the diagram: (phase, label, phase).
HOLD_EDGES: tuple[tuple[Phase, str, Phase], ...] = tuple(
    edge
    for phase in sorted(HOLDABLE, key=list(Phase).index)
    for edge in ((phase, "hold", Phase.HELD), (Phase.HELD, "last hold cleared", phase))
)

_EDGES: frozenset[tuple[Phase, Trigger, Phase]] = frozenset(
    (edge.source, edge.trigger, edge.target) for edge in TRANSITIONS
)
_TAKEN: frozenset[tuple[Phase, Trigger]] = frozenset(
    (edge.source, edge.trigger) for edge in TRANSITIONS
)


def accepts(phase: Phase, trigger: Trigger) -> bool:
    """Whether the table has an edge for ``trigger`` out of ``phase``."""
    return (phase, trigger) in _TAKEN


def is_edge(source: Phase, trigger: Trigger, target: Phase) -> bool:
    """Whether ``trigger`` may move the table from ``source`` to ``target``."""
    return (source, trigger, target) in _EDGES
