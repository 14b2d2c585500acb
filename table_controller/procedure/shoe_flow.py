# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The shoe from its burn to its end: the burn, the cut card, cards past the last round.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads and changes the
:class:`~table_controller.procedure.table.Table` and imports no other part. Steps return the
phase they lead to; the machine checks the move against its table and does what follows.
"""

from __future__ import annotations

from table_controller.contract import (
    AlarmCode,
    BurnAnnounced,
    Phase,
    RoundVoided,
    ShoeEndReason,
    VoidReason,
)
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.round import RoundCards
from table_controller.procedure.shoe import Shoe
from table_controller.procedure.table import Out, Table, count_out, last_round_id
from table_controller.rules import Card


def burn_first(shoe: Shoe, out: Out, card: Card | None) -> Phase:
    """The face-up card: it orders the burn (a misread one must be entered by hand)."""
    if card is None:
        out.alarm(shoe, AlarmCode.MISREAD, "the face-up burn card was not read: enter it by hand")
        return Phase.BURN_CARD
    shoe.burn.first_card = card
    shoe.burn.count = card.burn_count
    out.publish(BurnAnnounced(shoe_id=shoe.shoe_id, first_card=card, dealer=out.dealer,
                              count=card.burn_count, done=False))
    return Phase.BURNING


def burn(shoe: Shoe, out: Out, card: Card | None) -> Phase:
    """One card burned (an unread one counts); the burn is over after the last."""
    burned = shoe.burn
    burned.cards.append(card)
    if not burned.done:
        return Phase.BURNING
    if burned.first_card is None or burned.count is None:
        raise ProcedureBug("a burn finished before its first card was read")
    out.publish(BurnAnnounced(shoe_id=shoe.shoe_id, first_card=burned.first_card,
                              dealer=out.dealer, count=burned.count, done=True,
                              cards=tuple(burned.cards)))
    return Phase.BETWEEN_ROUNDS


def unnecessary_card(shoe: Shoe, out: Out, card: Card | None) -> None:
    """A card between rounds with a betting phase: it changes nothing."""
    out.alarm(shoe, AlarmCode.UNNECESSARY_CARD,
              "a card came out between rounds; it is discarded, the result stands",
              round_id=last_round_id(shoe), card=card)


def after_last_round(shoe: Shoe, out: Out, card: Card | None) -> None:
    """A card after the shoe ended: the first opens an invalid round, voided at once."""
    if shoe.invalid_round_no is not None:
        out.alarm(shoe, AlarmCode.CARD_AFTER_LAST_ROUND,
                  "another card came out after the last round",
                  round_id=shoe.round_id(shoe.invalid_round_no), card=card)
        return
    shoe.round_no += 1
    shoe.invalid_round_no = shoe.round_no
    shoe.voided_rounds.add(shoe.round_no)
    round_id = shoe.round_id(shoe.round_no)
    out.alarm(shoe, AlarmCode.CARD_AFTER_LAST_ROUND,
              "a card came out after the last round: invalid round voided",
              round_id=round_id, card=card)
    out.publish(RoundVoided(shoe_id=shoe.shoe_id, round_no=shoe.round_no, round_id=round_id,
                            reason=VoidReason.AFTER_LAST_ROUND, cards=(card,), was_settled=False,
                            operator=None, dealer=out.dealer, supervisor=None))


def cut_card(table: Table, out: Out) -> Shoe | None:
    """The cut card came out: the shoe it ends, or ``None`` (alarm raised) if none expects it."""
    shoe = table.shoe
    if shoe is None or table.every_round or shoe.cut_card_out:
        why = ("no shoe was started" if shoe is None
               else "this variant has no cut card" if table.every_round
               else "the cut card already came out")
        out.alarm(shoe, AlarmCode.UNEXPECTED_CUT_CARD, f"a cut card came out, but {why}")
        return None
    shoe.cut_card_out = True
    return shoe


def queued_cut(table: Table, out: Out, shoe: Shoe, current: RoundCards) -> None:
    """A cut card queued behind a hold, found as the round is voided: it still counts."""
    if shoe.cut_card_out or table.every_round:
        return
    shoe.cut_card_out = True
    if current.cards:  # it came out during this round: this round was the last
        out.last_round_during(current)
    else:
        out.last_round_between(shoe, current.round_no - 1)


def count_discarded(table: Table, out: Out, shoe: Shoe, queued: list[Card | None]) -> None:
    """Cards dealt behind a hold and voided with the round: they left the shoe all the same."""
    for card in queued:
        count_out(table, out, shoe, card)


def end(shoe: Shoe, out: Out, reason: ShoeEndReason) -> Phase:
    """The shoe is over (its cut card, or a new shoe in its place)."""
    shoe.ended = True
    out.shoe_ended(shoe, reason)
    return Phase.SHOE_OVER
