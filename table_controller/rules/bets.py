# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Every bet of game-rules.md section 3: when it wins, on which tier, and its exact net result.

Pure: no I/O, no clock, no randomness.

A bet's rule decides a *verdict* from the coup: the name of the payout tier it wins on (most
bets have one tier, ``win``), ``push`` or ``lose``. How much a tier pays is the variant's pay
table (``variants.py``), so that every payout is configuration; each rule carries the default
pay table that the built-in variants and the variants an operator composes start from. Results
are net per unit staked, "to one": ``+1`` even money, ``0`` a push, ``-1`` the stake lost.

Main bets decide on the :class:`~table_controller.rules.tableau.Outcome` (totals and card
counts); pair and colour bets on the :class:`~table_controller.rules.tableau.Opening` of one
hand (its first two cards). The exact analyser relies on that split.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias

from table_controller.rules.tableau import Coup, Hand, Opening, Outcome, Winner

#: The main bets, offered on every round of every variant; every other bet is a side bet.
MAIN_BETS: frozenset[str] = frozenset({"player", "banker", "tie"})
PUSH = "push"
LOSE = "lose"
WIN = "win"
LOSS = Fraction(-1)
NO_CHANGE = Fraction(0)


def _check_defaults(bet_id: str, tiers: tuple[str, ...], defaults: Mapping[str, Fraction]) -> None:
    if tuple(defaults) != tiers:
        raise ValueError(f"bet {bet_id!r}: default payouts {sorted(defaults)} are not its tiers")


@dataclass(frozen=True, slots=True, kw_only=True)
class CoupBet:
    """A bet settled on the final totals and card counts."""

    bet_id: str
    tiers: tuple[str, ...]
    wins_when: str
    decide: Callable[[Outcome], str]
    #: Net payout of each tier, in the order of ``tiers``, where a variant says nothing else.
    default_payouts: Mapping[str, Fraction]
    #: A tier that is a special case of another (tier -> the other): where a pay table pays
    #: both alike, the exact odds count it under the other, so such a menu reports as if the
    #: special case were not told apart.
    refines: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_defaults(self.bet_id, self.tiers, self.default_payouts)


@dataclass(frozen=True, slots=True, kw_only=True)
class OpeningBet:
    """A bet settled on the first two cards of one hand."""

    bet_id: str
    hand: Hand
    tiers: tuple[str, ...]
    wins_when: str
    decide: Callable[[Opening], str]
    #: Net payout of each tier, in the order of ``tiers``, where a variant says nothing else.
    default_payouts: Mapping[str, Fraction]
    #: As :attr:`CoupBet.refines` (no opening bet has such a tier).
    refines: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_defaults(self.bet_id, self.tiers, self.default_payouts)


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


#: The Banker's winning tiers: with a total of 6, with a three-card 7, any other win.
WIN_ON_6 = "win_on_6"
THREE_CARD_7 = "three_card_7"


def _banker(outcome: Outcome) -> str:
    if outcome.winner is Winner.TIE:
        return PUSH
    if outcome.winner is Winner.BANKER:
        if outcome.banker_total == 6:
            return WIN_ON_6
        if outcome.banker_total == 7 and outcome.banker_cards == 3:
            return THREE_CARD_7
        return WIN
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


def _wins_with_three(hand: Hand, total: int) -> Callable[[Outcome], str]:
    """Dragon 7 and Panda 8: the hand wins with a three-card total of ``total``."""
    hand_winner = _HAND_WINNER[hand]

    def decide(outcome: Outcome) -> str:
        if hand is Hand.PLAYER:
            own_total, own_cards = outcome.player_total, outcome.player_cards
        else:
            own_total, own_cards = outcome.banker_total, outcome.banker_cards
        wins = outcome.winner is hand_winner and own_cards == 3 and own_total == total
        return WIN if wins else LOSE

    return decide


#: Dragon Bonus tiers: a natural win, then a non-natural win by 9 points down to 4.
DRAGON_BONUS_TIERS = ("natural", "by_9", "by_8", "by_7", "by_6", "by_5", "by_4")


def _dragon_bonus(hand: Hand) -> Callable[[Outcome], str]:
    """A natural win, or a non-natural win by 4 to 9 points; a Tie of naturals pushes."""
    hand_winner = _HAND_WINNER[hand]

    def decide(outcome: Outcome) -> str:
        if outcome.winner is Winner.TIE:
            return PUSH if outcome.natural else LOSE
        if outcome.winner is not hand_winner:
            return LOSE
        own_natural = outcome.player_natural if hand is Hand.PLAYER else outcome.banker_natural
        if own_natural is not None:
            return "natural"
        margin = abs(outcome.player_total - outcome.banker_total)
        return f"by_{margin}" if margin >= 4 else LOSE

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


def _pays(*tiers: tuple[str, Fraction | int]) -> dict[str, Fraction]:
    return {tier: Fraction(value) for tier, value in tiers}


def _win_pays(value: Fraction | int) -> dict[str, Fraction]:
    return _pays((WIN, value))


_COMMISSION = Fraction(19, 20)

#: The bets on one hand's first two cards: id after the hand, when it wins, its rule, and its
#: default pay table.
_OPENING_BETS: tuple[tuple[str, str, Callable[[Opening], str], dict[str, Fraction]], ...] = (
    ("pair", "are a pair", _pair, _win_pays(11)),
    ("red", "are both red", _red, _win_pays(2)),
    ("black", "are both black", _black, _win_pays(2)),
    (
        "lucky_pair",
        "are a pair (highest tier)",
        _lucky_pair,
        _pays(*zip(LUCKY_PAIR_TIERS, (30, 15, 12, 9), strict=True)),
    ),
)

#: Default payouts of the bets on a winning total: by hand and group of totals.
_WINS_ON_PAYS: Mapping[tuple[Hand, str], int] = {
    (Hand.PLAYER, "123"): 31,
    (Hand.PLAYER, "456"): 8,
    (Hand.PLAYER, "789"): 2,
    (Hand.BANKER, "123"): 31,
    (Hand.BANKER, "456"): 6,
    (Hand.BANKER, "789"): 2,
}
_TIE_ON_PAYS: Mapping[str, int] = {"0123": 45, "456": 24, "789": 19}
#: Dragon Bonus default pay table, in the order of :data:`DRAGON_BONUS_TIERS`.
_DRAGON_BONUS_PAYS = (1, 30, 10, 6, 4, 2, 1)


def _coup_bet(
    bet_id: str, wins_when: str, decide: Callable[[Outcome], str], pays: dict[str, Fraction]
) -> CoupBet:
    return CoupBet(
        bet_id=bet_id, tiers=tuple(pays), wins_when=wins_when, decide=decide, default_payouts=pays
    )


def _catalogue() -> dict[str, BetRule]:
    rules: list[BetRule] = [
        _coup_bet(
            "player", "Player total > Banker total; push on a Tie", _hand_wins(Hand.PLAYER),
            _win_pays(1),
        ),
        CoupBet(
            bet_id="banker",
            tiers=(WIN, WIN_ON_6, THREE_CARD_7),
            wins_when="Banker total > Player total (tier win_on_6 when with 6, three_card_7"
            " when with a three-card 7); push on a Tie",
            decide=_banker,
            default_payouts=_pays(
                (WIN, _COMMISSION), (WIN_ON_6, _COMMISSION), (THREE_CARD_7, _COMMISSION)
            ),
            refines={THREE_CARD_7: WIN},
        ),
        _coup_bet("tie", "totals equal", _tie, _win_pays(8)),
        _coup_bet("big", "5 or 6 cards dealt", _big, _win_pays(Fraction(1, 2))),
        _coup_bet("small", "4 cards dealt", _small, _win_pays(Fraction(3, 2))),
        _coup_bet("super_six", "Banker wins with 6", _super_six, _win_pays(12)),
        _coup_bet(
            "super_6_plus", "Banker wins with 6 (tier by the Banker's card count)", _super_6_plus,
            _pays(("two_cards", 12), ("three_cards", 18)),
        ),
        _coup_bet(
            "lucky_6", "Player or Banker wins with 6, or a Tie on 6", _lucky_6, _win_pays(6)
        ),
    ]  # fmt: skip
    for hand in Hand:
        rules.extend(
            _coup_bet(
                f"{hand}_natural_{total}",
                f"{hand.title()} has a natural {total} and wins",
                _natural(hand, total),
                _win_pays(8),
            )
            for total in (8, 9)
        )
        rules.extend(
            OpeningBet(
                bet_id=f"{hand}_{name}",
                hand=hand,
                tiers=tuple(pays),
                wins_when=f"{hand.title()}'s first two cards {wins_when}",
                decide=decide,
                default_payouts=pays,
            )
            for name, wins_when, decide, pays in _OPENING_BETS
        )
        rules.extend(
            _coup_bet(
                f"{hand}_wins_on_{group}",
                f"{hand.title()} wins with a total of {', '.join(group)}",
                _wins_on(hand, frozenset(int(digit) for digit in group)),
                _win_pays(_WINS_ON_PAYS[hand, group]),
            )
            for group in ("123", "456", "789")
        )
    rules.extend(
        _coup_bet(
            f"tie_on_{group}",
            f"a Tie on {', '.join(group)}",
            _tie_on(frozenset(int(digit) for digit in group)),
            _win_pays(pays),
        )
        for group, pays in _TIE_ON_PAYS.items()
    )
    rules.extend((
        _coup_bet(
            "dragon_7", "Banker wins with a three-card 7", _wins_with_three(Hand.BANKER, 7),
            _win_pays(40),
        ),
        _coup_bet(
            "panda_8", "Player wins with a three-card 8", _wins_with_three(Hand.PLAYER, 8),
            _win_pays(25),
        ),
    ))  # fmt: skip
    rules.extend(
        _coup_bet(
            f"{hand}_dragon_bonus",
            f"{hand.title()} wins with a natural, or by 4 or more points; a Tie of naturals pushes",
            _dragon_bonus(hand),
            _pays(*zip(DRAGON_BONUS_TIERS, _DRAGON_BONUS_PAYS, strict=True)),
        )
        for hand in Hand
    )
    return {rule.bet_id: rule for rule in rules}


#: Every bet id of game-rules.md section 3 (new bets go last: the MQTT schema lists them so).
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
