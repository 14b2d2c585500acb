# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the table shows: the prompt, the lamp and the hold, as a function of its state.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads the
:class:`~table_controller.procedure.table.Table` (and changes only what it records as shown)
and imports no other part.

The dealer's prompt and the lamp follow from the phase: ``burn`` (with its count once the
face-up card is read) with the lamp PLAYER; ``open_betting`` with the lamp OFF between rounds
and while bets are taken; ``deal``, ``player_draws``, ``banker_draws`` with the lamp on the
hand that gets the next card; ``result`` with STAND until the next round starts; ``shoe_over``
with OFF. A hold (or a fault) shows ``hold`` with its reason and the lamp HOLD. Where a dealer
is required and none is signed in, ``sign_in`` with OFF stands before anything that brings
cards out of the shoe. Each is emitted only when it differs from what was shown last.
:func:`snapshot` is the whole of what the table shows, for ``<root>/state`` and the screens.
"""

from __future__ import annotations

from collections.abc import Callable

from table_controller.contract import (
    ABSENT,
    MAX_LISTED_ALARMS,
    Absent,
    CardsOnTable,
    HoldReason,
    Lamp,
    Phase,
    PromptAction,
    PromptFields,
    PromptShown,
    TableSnapshot,
    TableState,
)
from table_controller.procedure.decisions import Announce, HoldTable, ResumeTable, SetLamp
from table_controller.procedure.round import OPENING_CARDS
from table_controller.procedure.table import Out, Table
from table_controller.rules import Hand

#: What the phase calls for: the prompt's action (None: no prompt), the round it is about and
#: the burn count (each :data:`ABSENT` when it has none), and the lamp. It is compared field by
#: field with the prompt event last shown, which is built only when they differ.
View = tuple[PromptAction | None, int | Absent, int | Absent, Lamp]

#: The lamp's, the hold's and the resumption's decisions: immutable values, built once.
_SET_LAMP = {lamp: SetLamp(lamp=lamp) for lamp in Lamp}
_HOLD_TABLE = {reason: HoldTable(reason=reason) for reason in HoldReason}
_RESUME_TABLE = ResumeTable()

_SHOE_OVER: View = (PromptAction.SHOE_OVER, ABSENT, ABSENT, Lamp.OFF)
_SIGN_IN: View = (PromptAction.SIGN_IN, ABSENT, ABSENT, Lamp.OFF)
#: Where the next step starts cards coming out: a dealer required signs in first.
_BEFORE_CARDS = frozenset({Phase.NO_SHOE, Phase.SHOE_OVER, Phase.BETWEEN_ROUNDS, Phase.BETTING})
_NOTHING: View = (None, ABSENT, ABSENT, Lamp.OFF)
_BURN_CARD: View = (PromptAction.BURN, ABSENT, ABSENT, Lamp.PLAYER)


def wanted(table: Table) -> View:
    """The prompt and lamp the phase calls for, holds aside."""
    if table.holds.unconfirmed is not None and table.shown_round is not None:
        return PromptAction.CONFIRM_RESULT, table.shown_round.round_no, ABSENT, Lamp.STAND
    if table.require_dealer and table.dealer is None and table.phase in _BEFORE_CARDS:
        return _SIGN_IN
    return _WANTED[table.phase](table)


def _dealing(table: Table) -> View:
    """The hand that gets the next card: the opening deal, then each hand's third card."""
    current = table.current()
    if len(current.cards) < OPENING_CARDS:
        action = PromptAction.DEAL
        lamp = Lamp.BANKER if current.expected is Hand.BANKER else Lamp.PLAYER
    elif current.expected is Hand.BANKER:
        action, lamp = PromptAction.BANKER_DRAWS, Lamp.BANKER
    else:
        action, lamp = PromptAction.PLAYER_DRAWS, Lamp.PLAYER
    return action, current.round_no, ABSENT, lamp


def _between_rounds(table: Table) -> View:
    shown = table.shown_round
    if shown is not None:  # the last round's result, until the next one starts
        return PromptAction.RESULT, shown.round_no, ABSENT, Lamp.STAND
    upcoming = table.in_play().round_no + 1
    if table.betting:
        return PromptAction.OPEN_BETTING, upcoming, ABSENT, Lamp.OFF
    return PromptAction.DEAL, upcoming, ABSENT, Lamp.PLAYER


def _betting(table: Table) -> View:
    return PromptAction.OPEN_BETTING, table.current().round_no, ABSENT, Lamp.OFF


def _burning(table: Table) -> View:
    shoe = table.shoe
    count = None if shoe is None else shoe.burn.count
    return PromptAction.BURN, ABSENT, ABSENT if count is None else count, Lamp.PLAYER


def _no_shoe(table: Table) -> View:
    return _SHOE_OVER if table.fault_cleared else _NOTHING


def _shown_not_stored(table: Table) -> View:
    raise AssertionError(f"{table.phase} is shown, never stored")


#: What each phase calls for, looked up once per input.
_WANTED: dict[Phase, Callable[[Table], View]] = {
    Phase.DEALING: _dealing,
    Phase.BETWEEN_ROUNDS: _between_rounds,
    Phase.BETTING: _betting,
    Phase.BURNING: _burning,
    Phase.BURN_CARD: lambda _table: _BURN_CARD,
    Phase.SHOE_OVER: lambda _table: _SHOE_OVER,
    Phase.NO_SHOE: _no_shoe,
    Phase.HELD: _shown_not_stored,
    Phase.FAULTED: _shown_not_stored,
}


def show_hold(table: Table, out: Out) -> HoldReason | None:
    """Hold or resume the table if the hold changed since last shown; the hold shown.

    The hold shown is a fault's, else the first that stands.
    """
    reason: HoldReason | None = None
    if table.holds.fault is not None:
        reason = HoldReason.PROCEDURE_FAULT
    elif table.held():
        reason = table.hold_reasons()[0]
    if reason is not table.shown_hold:
        out.add(_RESUME_TABLE if reason is None else _HOLD_TABLE[reason])
        table.shown_hold = reason
    return reason


def show(table: Table, out: Out) -> None:
    """The hold, then the lamp and the prompt the table should show now: each if it changed."""
    view: View
    reason: HoldReason | Absent = ABSENT
    if table.holds.fault is None and table.shown_hold is None and not table.held():
        view = wanted(table)  # not held, nor shown held: no hold to show
    elif (hold_reason := show_hold(table, out)) is not None:
        held_round = ABSENT if table.round is None else table.round.round_no
        view = PromptAction.HOLD, held_round, ABSENT, Lamp.HOLD
        reason = hold_reason
    else:
        view = wanted(table)
    action, round_no, count, lamp = view
    if lamp is not table.shown_lamp:
        out.add(_SET_LAMP[lamp])
        table.shown_lamp = lamp
    if action is None:
        return
    shown = table.shown_prompt
    if (shown is not None and shown.action is action and shown.round_no == round_no
            and shown.count == count and shown.reason is reason):
        return
    prompt = _payload(table, action, round_no, count, reason)
    out.add(Announce(prompt))
    table.shown_prompt = prompt


def _payload(table: Table, action: PromptAction, round_no: int | Absent, count: int | Absent,
             reason: HoldReason | Absent) -> PromptShown:
    """The ``prompt`` event: the shoe and round it is about, then the prompt's own fields."""
    shoe, dealer = table.shoe, table.dealer
    if shoe is None:  # no round either
        return PromptShown(dealer=dealer, action=action, count=count, reason=reason)
    if isinstance(round_no, Absent):
        return PromptShown(shoe_id=shoe.shoe_id, dealer=dealer, action=action, count=count,
                           reason=reason)
    return PromptShown(shoe_id=shoe.shoe_id, round_no=round_no,
                       round_id=shoe.round_id(round_no), dealer=dealer, action=action,
                       count=count, reason=reason)


def _prompt_fields(shown: PromptShown | None) -> PromptFields | None:
    """The prompt last shown as ``state`` shows it: ``action``, and ``count`` or ``reason``."""
    if shown is None:
        return None
    return PromptFields(action=shown.action, count=shown.count, reason=shown.reason)


def snapshot(table: Table, *, phase: Phase, card_wanted: bool,
             commands: frozenset[str]) -> TableSnapshot:
    """Where the table is: the ``<root>/state`` payload (``phase`` as shown) and the rest.

    ``commands``: the commands it takes now (:func:`~.states.commands_taken`).
    """
    shoe = table.shoe
    shown = table.shown_round
    fault = table.holds.fault
    holds = (HoldReason.PROCEDURE_FAULT,) if fault is not None else tuple(table.hold_reasons())
    state = TableState(
        variant=table.variant.name,
        betting_phase=table.betting,
        shoe_id=None if shoe is None else shoe.shoe_id,
        round_no=None if shown is None else shown.round_no,
        round_id=None if shown is None else shown.round_id,
        phase=phase,
        # A fault stands over no phase: only its own void_shoe edges leave it.
        held_in=table.phase if holds and fault is None else None,
        prompt=_prompt_fields(table.shown_prompt),
        lamp=table.shown_lamp,
        cards=CardsOnTable(
            player=() if shown is None else tuple(shown.player),
            banker=() if shown is None else tuple(shown.banker),
        ),
        last_round=shoe is not None and shoe.cut_card_out,
        cards_seen=0 if shoe is None else shoe.cards_seen,
        cards_left=None if shoe is None else shoe.cards_left,
        bets_offered=table.bets_offered(),
        hold_reason=holds[0] if holds else None,
        holds=holds,
        missing_cards=table.holds.gap,
        unresolved_lost_frames=table.left_over,
        queued_inputs=len(table.pending),
        dealer=table.dealer,
        supervisor=table.supervisor,
        require_dealer=table.require_dealer,
        dispute=table.holds.dispute,
        confirm_results=table.confirm_results,
        unconfirmed_round_id=table.holds.unconfirmed,
        open_alarms=table.alarms.newest(MAX_LISTED_ALARMS),
        open_alarm_count=len(table.alarms.open),
    )
    burned = None
    if shoe is not None and table.phase is Phase.BURNING:
        burned = len(shoe.burn.cards)
    return TableSnapshot(state=state, card_wanted=card_wanted, burned=burned, limits=table.limits,
                         taken=commands)
