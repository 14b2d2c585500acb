# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The round: its start, its betting, its cards as the drawing rules place them, its end.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads and changes the
:class:`~table_controller.procedure.table.Table` and imports no other part. A round ends
settled (:func:`deal` returns :attr:`Dealt.SETTLED`) or voided (:func:`void`); the machine decides
what follows: the next round, or the shoe's end after its last.

Round numbers are taken when a round starts: at ``open_betting``, or (with no betting phase)
at ``deal`` or the round's first card. Every round that started counts, voided ones included.
"""

from __future__ import annotations

import enum
from dataclasses import replace

from table_controller.contract import (
    AlarmCode,
    BettingClosed,
    BettingOpened,
    CardPlaced,
    Phase,
    RoundSettled,
    RoundVoided,
    SuspendedBet,
    VoidReason,
    result_of,
)
from table_controller.procedure.inputs import RoundAssessed
from table_controller.procedure.round import RoundCards, RoundOffer
from table_controller.procedure.shoe import SettledRound, Shoe
from table_controller.procedure.table import Out, Table
from table_controller.rules import Card, RoadEntry


class Dealt(enum.Enum):
    """What a card dealt did to its round."""

    #: More cards are due.
    PLACED = "placed"
    #: The card completed the coup: the round is settled.
    SETTLED = "settled"

#: Fields every alarm sets itself: an assessment's details may not override them.
_ALARM_OWN_FIELDS = frozenset(
    {"type", "alarm_id", "code", "message", "shoe_id", "round_no", "round_id"}
)


def start(table: Table, shoe: Shoe) -> RoundCards:
    """A new round takes the next number (``mini`` reshuffles first)."""
    table.left_over = 0  # lost frames no card was entered for: they were not cards
    shoe.round_no += 1
    if table.every_round:
        shoe.reshuffle()
    current = RoundCards(shoe.shoe_id, shoe.round_no, shoe.round_id(shoe.round_no))
    if shoe.next_offer is not None and shoe.next_offer.round_no == shoe.round_no:
        current.offer = shoe.next_offer
    table.round = table.shown_round = current
    return current


def open_betting(table: Table, out: Out, shoe: Shoe) -> Phase:
    """The next round starts, open for bets on its offer."""
    current = start(table, shoe)
    suspended: tuple[SuspendedBet, ...] = ()
    if current.offer is not None:
        suspended = tuple(SuspendedBet(bet=bet, house_edge=edge)
                          for bet, edge in current.offer.suspended)
    out.publish(BettingOpened(
        shoe_id=current.shoe_id, round_no=current.round_no, round_id=current.round_id,
        dealer=out.dealer, bets_offered=table.offered(current), bets_suspended=suspended))
    return Phase.BETTING


def close_betting(table: Table, out: Out) -> Phase:
    """No more bets: the round is dealt."""
    current = table.current()
    out.publish(BettingClosed(shoe_id=current.shoe_id, round_no=current.round_no,
                              round_id=current.round_id, dealer=out.dealer))
    return Phase.DEALING


def deal(table: Table, out: Out, shoe: Shoe, card: Card, *, manual: bool) -> Dealt:
    """Place the round's next card, and settle the round if it completed the coup."""
    current = table.current()
    hand, position = current.place(card, manual=manual)
    out.publish(CardPlaced(shoe_id=current.shoe_id, round_no=current.round_no,
                           round_id=current.round_id, card=card, hand=hand, position=position,
                           manual=manual, dealer=out.dealer,
                           supervisor=out.supervisor if manual else None))
    if current.expected is not None:
        return Dealt.PLACED
    _settle(table, out, shoe, current)
    return Dealt.SETTLED


def _settle(table: Table, out: Out, shoe: Shoe, current: RoundCards) -> None:
    coup = current.coup()
    offer = None if current.offer is None else frozenset(current.offer.offer)
    settlement = table.settlement(coup, current.round_no, offer)
    manual_cards = tuple(current.manual)
    shoe.settled[current.round_no] = SettledRound(
        round_no=current.round_no, round_id=current.round_id, cards=tuple(current.cards),
        coup=coup, settlement=settlement, last_round=current.last_round,
        manual_cards=manual_cards, offer=offer,
    )
    result = result_of(coup, settlement)
    if table.confirm_results:  # the result, and what follows it, wait for confirm_result
        table.holds = replace(table.holds, unconfirmed=current.round_id)
        table.held_back = out.held_back = []
    out.publish(RoundSettled(
        shoe_id=current.shoe_id, round_no=current.round_no, round_id=current.round_id,
        dealer=out.dealer, result=result, last_round=current.last_round, manual_cards=manual_cards))
    # The scoreboards' entry from the result just worked out (the coup's own, read once).
    shoe.board.record(RoadEntry(
        winner=result.winner, player_pair=result.player_pair, banker_pair=result.banker_pair,
        natural=result.natural, player_total=result.player.total,
        banker_total=result.banker.total))
    out.roads(shoe)
    table.round = None  # the display still shows it: ``shown_round`` stays


def misread(table: Table, out: Out, shoe: Shoe) -> None:
    """A card of the round came out unread."""
    out.alarm(shoe, AlarmCode.MISREAD, "a card came out unread: enter it by hand or void the round",
              round_id=table.current().round_id)


def exposed(table: Table, out: Out, shoe: Shoe, card: Card | None) -> None:
    """A card while bets are taken: the round is to be voided."""
    current = table.current()
    out.alarm(shoe, AlarmCode.EXPOSED_CARD, "a card came out while bets were taken: round voided",
              round_id=current.round_id, card=card)


def void(table: Table, out: Out, reason: VoidReason, *, operator: str | None,
         cards: list[Card | None]) -> None:
    """The round in play is voided with ``cards`` (its own and any discarded with it)."""
    shoe, current = table.in_play(), table.current()
    shoe.voided_rounds.add(current.round_no)
    out.publish(RoundVoided(shoe_id=current.shoe_id, round_no=current.round_no,
                            round_id=current.round_id, reason=reason, cards=tuple(cards),
                            was_settled=False, operator=operator, dealer=out.dealer,
                            supervisor=out.supervisor))


def forget(table: Table) -> None:
    """No round in play, and none shown."""
    table.round = table.shown_round = None


def assessed(table: Table, out: Out, event: RoundAssessed) -> None:
    """Odds, alarms and suspensions the runtime worked out for the shoe's next round."""
    shoe = table.shoe
    if shoe is None or shoe.shoe_id != event.shoe_id or shoe.ended:
        return  # about a shoe no longer in play: nothing to say
    if event.odds is not None:
        out.publish(event.odds)
    round_id = shoe.round_id(event.round_no)
    for alarm in event.alarms:
        details = {key: value for key, value in alarm.details.items()
                   if key not in _ALARM_OWN_FIELDS}
        out.alarm(shoe, AlarmCode(alarm.code), alarm.message, round_id=round_id, details=details)
    if event.offer is not None and event.round_no == shoe.round_no + 1:
        # the round has not started: its offer is still open
        shoe.next_offer = RoundOffer(round_no=event.round_no, offer=event.offer,
                                     suspended=event.suspended)
