# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The supervisor's commands and corrections: new shoe, voids, manual cards, corrected results.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads and changes the
:class:`~table_controller.procedure.table.Table` and imports no other part. A command is either
refused, changing nothing (a :data:`~table_controller.procedure.table.Refusal`), or carried out.

Before its step, a command of the routes passes :func:`precheck` (the kind of table, a hold,
the phase, the dealer) and its route's guard (:func:`shoe_not_over`, :func:`card_missing`,
:func:`shoe_not_voided`): refusals that do not depend on what the command names.

History is never rewritten in place: a settled round is voided or corrected by a new event that
names it, and the scoreboards are rebuilt from the rounds that stand.
"""

from __future__ import annotations

from table_controller.contract import (
    OriginalResult,
    Phase,
    RefusalCode,
    ResultCorrected,
    RoundVoided,
    ShoeEndReason,
    ShoeStarted,
    ShoeVoided,
    VoidReason,
    result_of,
)
from table_controller.procedure.inputs import (
    CloseBetting,
    Command,
    CorrectResult,
    Deal,
    EnterCard,
    OpenBetting,
    StartNewShoe,
    VoidRound,
    VoidShoe,
)
from table_controller.procedure.shoe import Burn, CardAccounting, Shoe
from table_controller.procedure.table import Out, Refusal, Table
from table_controller.rules import Card, Coup

#: The commands of a betting phase.
_BETTING_COMMANDS = (OpenBetting, CloseBetting)
#: The commands that start cards coming out of the shoe: not without a dealer, if required.
_DEALT_COMMANDS = (StartNewShoe, OpenBetting, CloseBetting, Deal)

#: Longest shoe id taken (it is part of every round id and of topics' payloads).
MAX_SHOE_ID_LENGTH = 64


def precheck(table: Table, kind: type[Command], *, routed: bool,
             while_held: bool) -> Refusal | None:
    """Why the table cannot take a command of ``kind`` now, if it cannot.

    ``routed``: the phase has a route for it; ``while_held``: it is taken while the table is
    held (both from :mod:`.states`, the routes).
    """
    if kind in _BETTING_COMMANDS and not table.betting:
        return RefusalCode.NO_BETTING_PHASE, "this table has no betting phase"
    if kind is Deal and table.betting:
        return RefusalCode.BETTING_PHASE, "on this table, closing the betting deals the round"
    if not while_held and table.held():
        return RefusalCode.TABLE_HELD, f"the table is held ({table.hold_reasons()[0]})"
    if not routed:
        return RefusalCode.WRONG_PHASE, f"{kind.COMMAND} is not taken in {table.phase}"
    if kind in _DEALT_COMMANDS and table.no_dealer():
        return RefusalCode.NO_DEALER, "no dealer is signed in: a dealer signs in first"
    return None


def shoe_not_over(table: Table, _command: StartNewShoe | None) -> Refusal | None:
    """A guard: between rounds, a new shoe only where every round is dealt from a new shoe."""
    if table.every_round:
        return None
    return RefusalCode.WRONG_PHASE, "this shoe is not over: wait for its end or void it"


def card_missing(table: Table, _command: EnterCard | None) -> Refusal | None:
    """A guard: a card is entered by hand only while one is missing."""
    if table.holds.gap == 0 and table.left_over == 0:
        return RefusalCode.NO_CARD_MISSING, "no card is missing"
    return None


def shoe_not_voided(table: Table, _command: VoidShoe | None) -> Refusal | None:
    """A guard: a shoe is voided once."""
    shoe = table.in_play()
    if shoe.voided:
        return RefusalCode.ALREADY_VOIDED, f"shoe {shoe.shoe_id} is already voided"
    return None


def new_shoe(table: Table, out: Out, command: StartNewShoe) -> Refusal | Phase:
    """A freshly shuffled shoe, numbered ``<table_id>-S0001``... when not named."""
    old = table.shoe
    shoe_id = command.shoe_id
    if shoe_id is None:
        number = table.shoes_started + 1
        while f"{table.table_id}-S{number:04d}" in table.shoe_ids:
            number += 1
        shoe_id = f"{table.table_id}-S{number:04d}"
    elif (not shoe_id or len(shoe_id) > MAX_SHOE_ID_LENGTH
          or any(char.isspace() or not char.isprintable() for char in shoe_id)):
        return (RefusalCode.INVALID_SHOE_ID,
                f"a shoe id is 1 to {MAX_SHOE_ID_LENGTH} printable characters without blanks")
    elif shoe_id in table.shoe_ids:
        return RefusalCode.INVALID_SHOE_ID, f"shoe id {shoe_id!r} was used already"
    if old is not None and table.phase is Phase.BETWEEN_ROUNDS:
        out.shoe_ended(old, ShoeEndReason.NEW_SHOE)
    table.shoes_started += 1
    table.shoe_ids.add(shoe_id)
    variant = table.variant
    shoe = Shoe(shoe_id=shoe_id, decks=variant.decks, accounting=CardAccounting(variant.decks),
                burn=Burn())
    table.shoe = shoe
    table.round = table.shown_round = None
    table.fault_cleared = False
    table.drop_holds()
    out.publish(ShoeStarted(shoe_id=shoe_id, variant=variant.name, decks=variant.decks,
                            burn=variant.burn, reshuffle=variant.reshuffle,
                            betting_phase=table.betting, operator=command.operator,
                            dealer=out.dealer))
    out.roads(shoe)
    return Phase.BURN_CARD if variant.burn else Phase.BETWEEN_ROUNDS


def void_settled(shoe: Shoe, out: Out, command: VoidRound) -> Refusal | None:
    """Void a settled round of the shoe (not the one in play)."""
    record = next((r for r in shoe.settled.values() if r.round_id == command.round_id), None)
    if record is None or record.voided:
        if any(shoe.round_id(no) == command.round_id for no in shoe.voided_rounds):
            return RefusalCode.ALREADY_VOIDED, f"round {command.round_id} is already voided"
        where = f"neither in play nor settled in shoe {shoe.shoe_id}"
        return RefusalCode.UNKNOWN_ROUND, f"round {command.round_id} is {where}"
    record.voided = True
    shoe.voided_rounds.add(record.round_no)
    out.publish(RoundVoided(shoe_id=shoe.shoe_id, round_no=record.round_no,
                            round_id=record.round_id, reason=VoidReason.SUPERVISOR,
                            cards=tuple(record.cards), was_settled=True,
                            operator=command.operator, dealer=out.dealer,
                            supervisor=out.supervisor))
    shoe.rebuild_board()
    out.roads(shoe)
    return None


def shoe_voided(table: Table, out: Out, command: VoidShoe, *, rounds: tuple[str, ...],
                discarded: tuple[Card | None, ...]) -> None:
    """The shoe is voided: nothing queued or held stays, and it is not to be dealt on."""
    shoe = table.in_play()
    table.drop_holds()
    shoe.voided = True
    out.publish(ShoeVoided(shoe_id=shoe.shoe_id, rounds_voided=rounds,
                           cards_discarded=discarded, operator=command.operator,
                           dealer=out.dealer, supervisor=out.supervisor))


def refuse_entry(shoe: Shoe, card: Card) -> Refusal | None:
    """Why ``card`` cannot be entered by hand (a missing card is), if it cannot."""
    if not shoe.accounting.admits(card):
        return (RefusalCode.FOREIGN_CARD,
                f"{card.code} has already been seen {shoe.decks} times in this shoe")
    return None


def correct(table: Table, out: Out, shoe: Shoe, command: CorrectResult) -> Refusal | None:
    """A settled round's cards corrected: a new settlement, naming the original."""
    record = next((r for r in shoe.settled.values() if r.round_id == command.round_id), None)
    if record is None:
        return RefusalCode.UNKNOWN_ROUND, f"round {command.round_id} has no result to correct"
    if record.voided:
        return RefusalCode.ALREADY_VOIDED, f"round {command.round_id} is voided"
    dealt = _dealing_order(command.player, command.banker)
    if dealt is None:
        return RefusalCode.INVALID_COUP, "the drawing rules could not have dealt these hands"
    if dealt == record.cards:
        return RefusalCode.UNCHANGED, "the round already has these cards"
    if not table.every_round:
        refusal = _recount(shoe.accounting, old=record.cards, new=dealt, decks=shoe.decks)
        if refusal is not None:
            return refusal
    original = OriginalResult(correction_no=record.corrections,
                              result=result_of(record.coup, record.settlement))
    coup = Coup(command.player, command.banker)
    record.cards = dealt
    record.coup = coup
    record.settlement = table.settlement(coup, record.round_no, record.offer)
    record.corrections += 1
    out.publish(ResultCorrected(
        shoe_id=shoe.shoe_id, round_no=record.round_no, round_id=record.round_id,
        correction_no=record.corrections, original=original,
        result=result_of(coup, record.settlement), last_round=record.last_round,
        operator=command.operator, dealer=out.dealer, supervisor=out.supervisor,
    ))
    shoe.rebuild_board()
    out.roads(shoe)
    return None


def _dealing_order(player: tuple[Card, ...], banker: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """The hands' cards in the order the shoe dealt them, if the drawing rules allow them."""
    if not (2 <= len(player) <= 3 and 2 <= len(banker) <= 3):
        return None
    dealt = (player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:])
    try:
        coup = Coup.from_cards(dealt)
    except ValueError:  # TooManyCardsError included: more cards than the coup takes
        return None
    if coup.player != player or coup.banker != banker:
        return None
    return dealt


def _recount(accounting: CardAccounting, *, old: tuple[Card, ...], new: tuple[Card, ...],
             decks: int) -> Refusal | None:
    """Swap a corrected round's cards in the accounting, unless that makes a foreign card."""
    for card in old:
        accounting.remove(card)
    over = next((card for card in set(new) if accounting.count(card) + new.count(card) > decks),
                None)
    if over is not None:
        for card in old:
            accounting.add(card)
        return RefusalCode.FOREIGN_CARD, f"{over.code} would be seen more than {decks} times"
    for card in new:
        accounting.add(card)
    return None
