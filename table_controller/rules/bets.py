# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Every bet of game-rules.md section 3: when it wins, on which tier, and its exact net result.

Pure: no I/O, no clock, no randomness.

A bet's rule decides a *verdict* from the coup: the name of the payout tier it wins on (most
bets have one tier, ``win``), ``push`` or ``lose``. How much a tier pays is not here: it is the
variant's pay table (``variants.py``), so that every payout is configuration. Results are net
per unit staked, "to one": ``+1`` even money, ``0`` a push, ``-1`` the stake lost.

Main bets decide on the :class:`~table_controller.rules.tableau.Outcome` (totals and card
counts); pair and colour bets on the :class:`~table_controller.rules.tableau.Opening` of one
hand (its first two cards). The exact analyser relies on that split.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

from table_controller.rules.tableau import Coup, Hand, Opening, Outcome, Winner

PUSH = "push"
LOSE = "lose"
WIN = "win"
LOSS = Fraction(-1)
NO_CHANGE = Fraction(0)


@dataclass(frozen=True, slots=True, kw_only=True)
class CoupBet:
    """A bet settled on the final totals and card counts."""

    bet_id: str
    tiers: tuple[str, ...]
    wins_when: str
    decide: Callable[[Outcome], str]


@dataclass(frozen=True, slots=True, kw_only=True)
class OpeningBet:
    """A bet settled on the first two cards of one hand."""

    bet_id: str
    hand: Hand
    tiers: tuple[str, ...]
    wins_when: str
    decide: Callable[[Opening], str]


BetRule: TypeAlias = CoupBet | OpeningBet


#: The winner that means this hand won.
_HAND_WINNER: Mapping[Hand, Winner] = {Hand.PLAYER: Winner.PLAYER, Hand.BANKER: Winner.BANKER}


def _hand_wins(hand: Hand) -> Callable[[Outcome], str]:
    hand_winner = _HAND_WINNER[hand]

    def decide(outcome: Outcome) -> str:
        winner = outcome.winner
        if winner is Winner.TIE:
            return PUSH
        return WIN if winner is hand_winner else LOSE

    return decide


def _banker(outcome: Outcome) -> str:
    if outcome.winner is Winner.TIE:
        return PUSH
    if outcome.winner is Winner.BANKER:
        return "win_on_6" if outcome.banker_total == 6 else WIN
    return LOSE


def _tie(outcome: Outcome) -> str:
    return WIN if outcome.winner is Winner.TIE else LOSE


def _big(outcome: Outcome) -> str:
    return WIN if outcome.cards_dealt >= 5 else LOSE


def _small(outcome: Outcome) -> str:
    return WIN if outcome.cards_dealt == 4 else LOSE


def _banker_wins_with_six(outcome: Outcome) -> bool:
    return outcome.winner is Winner.BANKER and outcome.banker_total == 6


def _super_six(outcome: Outcome) -> str:
    return WIN if _banker_wins_with_six(outcome) else LOSE


def _super_6_plus(outcome: Outcome) -> str:
    if not _banker_wins_with_six(outcome):
        return LOSE
    return "two_cards" if outcome.banker_cards == 2 else "three_cards"


def _natural(hand: Hand, total: int) -> Callable[[Outcome], str]:
    hand_winner = _HAND_WINNER[hand]

    def decide(outcome: Outcome) -> str:
        natural = outcome.player_natural if hand is Hand.PLAYER else outcome.banker_natural
        wins = outcome.winner is hand_winner
        return WIN if natural == total and wins else LOSE

    return decide


def _lucky_6(outcome: Outcome) -> str:
    # The Player's total is the winning one unless the Banker won; on a Tie both are equal.
    winning = outcome.banker_total if outcome.winner is Winner.BANKER else outcome.player_total
    return WIN if winning == 6 else LOSE


def _wins_on(hand: Hand, totals: frozenset[int]) -> Callable[[Outcome], str]:
    hand_winner = _HAND_WINNER[hand]

    def decide(outcome: Outcome) -> str:
        total = outcome.player_total if hand is Hand.PLAYER else outcome.banker_total
        return WIN if outcome.winner is hand_winner and total in totals else LOSE

    return decide


def _tie_on(totals: frozenset[int]) -> Callable[[Outcome], str]:
    def decide(outcome: Outcome) -> str:
        tie = outcome.winner is Winner.TIE
        return WIN if tie and outcome.player_total in totals else LOSE

    return decide


def _pair(opening: Opening) -> str:
    return WIN if opening.pair else LOSE


def _red(opening: Opening) -> str:
    return WIN if opening.both_red else LOSE


def _black(opening: Opening) -> str:
    return WIN if opening.both_black else LOSE


#: Lucky pair tiers, highest first (game-rules.md section 3, "Decision (lucky pair tiers)").
LUCKY_PAIR_TIERS = ("diamond_4s", "fours", "diamonds", "other")


def _lucky_pair(opening: Opening) -> str:
    """Only the highest tier that applies pays: a pair of diamond 4s is paid as such only."""
    if not opening.pair:
        return LOSE
    fours = opening.first.rank == "4"
    diamonds = opening.first.suit == opening.second.suit == "D"
    if fours and diamonds:
        return "diamond_4s"
    if fours:
        return "fours"
    if diamonds:
        return "diamonds"
    return "other"


#: The bets on one hand's first two cards: id after the hand, tiers, when it wins, its rule.
_OPENING_BETS: tuple[tuple[str, tuple[str, ...], str, Callable[[Opening], str]], ...] = (
    ("pair", (WIN,), "are a pair", _pair),
    ("red", (WIN,), "are both red", _red),
    ("black", (WIN,), "are both black", _black),
    ("lucky_pair", LUCKY_PAIR_TIERS, "are a pair (highest tier)", _lucky_pair),
)


def _catalogue() -> dict[str, BetRule]:
    rules: list[BetRule] = [
        CoupBet(
            bet_id="player",
            tiers=(WIN,),
            wins_when="Player total > Banker total; push on a Tie",
            decide=_hand_wins(Hand.PLAYER),
        ),
        CoupBet(
            bet_id="banker",
            tiers=(WIN, "win_on_6"),
            wins_when="Banker total > Player total (tier win_on_6 when with 6); push on a Tie",
            decide=_banker,
        ),
        CoupBet(bet_id="tie", tiers=(WIN,), wins_when="totals equal", decide=_tie),
        CoupBet(bet_id="big", tiers=(WIN,), wins_when="5 or 6 cards dealt", decide=_big),
        CoupBet(bet_id="small", tiers=(WIN,), wins_when="4 cards dealt", decide=_small),
        CoupBet(
            bet_id="super_six", tiers=(WIN,), wins_when="Banker wins with 6", decide=_super_six
        ),
        CoupBet(
            bet_id="super_6_plus",
            tiers=("two_cards", "three_cards"),
            wins_when="Banker wins with 6 (tier by the Banker's card count)",
            decide=_super_6_plus,
        ),
        CoupBet(
            bet_id="lucky_6",
            tiers=(WIN,),
            wins_when="Player or Banker wins with 6, or a Tie on 6",
            decide=_lucky_6,
        ),
    ]
    for hand in Hand:
        rules.extend(
            CoupBet(
                bet_id=f"{hand}_natural_{total}",
                tiers=(WIN,),
                wins_when=f"{hand.title()} has a natural {total} and wins",
                decide=_natural(hand, total),
            )
            for total in (8, 9)
        )
        rules.extend(
            OpeningBet(
                bet_id=f"{hand}_{name}",
                hand=hand,
                tiers=tiers,
                wins_when=f"{hand.title()}'s first two cards {wins_when}",
                decide=decide,
            )
            for name, tiers, wins_when, decide in _OPENING_BETS
        )
        rules.extend(
            CoupBet(
                bet_id=f"{hand}_wins_on_{group}",
                tiers=(WIN,),
                wins_when=f"{hand.title()} wins with a total of {', '.join(group)}",
                decide=_wins_on(hand, frozenset(int(digit) for digit in group)),
            )
            for group in ("123", "456", "789")
        )
    rules.extend(
        CoupBet(
            bet_id=f"tie_on_{group}",
            tiers=(WIN,),
            wins_when=f"a Tie on {', '.join(group)}",
            decide=_tie_on(frozenset(int(digit) for digit in group)),
        )
        for group in ("0123", "456", "789")
    )
    return {rule.bet_id: rule for rule in rules}


#: Every bet id of game-rules.md section 3.
BETS: Mapping[str, BetRule] = _catalogue()


def verdict(bet: BetRule, coup: Coup) -> str:
    """The tier a bet wins on for this coup, or ``push`` or ``lose``."""
    if isinstance(bet, CoupBet):
        return bet.decide(coup.outcome)
    opening = coup.player_opening if bet.hand is Hand.PLAYER else coup.banker_opening
    return bet.decide(opening)


def net_result(verdict_: str, payouts: Mapping[str, Fraction]) -> Fraction:
    """Net per unit staked for a verdict under a pay table: tier payout, 0 or -1."""
    if verdict_ == LOSE:
        return LOSS
    if verdict_ == PUSH:
        return NO_CHANGE
    return payouts[verdict_]


def settle(bet_id: str, coup: Coup, payouts: Mapping[str, Fraction]) -> Fraction:
    """Net result per unit staked of one bet on a finished coup."""
    return net_result(verdict(BETS[bet_id], coup), payouts)
