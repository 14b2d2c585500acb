# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The fast analyser against published figures, plain enumeration and a card-by-card brute force."""

from collections import defaultdict
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.rules import enumeration
from table_controller.rules.bets import BETS, net_result, verdict
from table_controller.rules.cards import Card, parse_cards
from table_controller.rules.composition import CARD_ORDER, Composition
from table_controller.rules.exact import ShoeTooSmallError, analyse, outcome_counts
from table_controller.rules.tableau import Coup, next_hand
from table_controller.rules.variants import COMMISSION, LUCKY, SUPER_SIX, VARIANTS, Variant

EVERY_BET = replace(
    COMMISSION,
    name="every_bet",
    title="all bets, for tests",
    bets=tuple({o.bet_id: o for v in (COMMISSION, SUPER_SIX, LUCKY) for o in v.bets}.values()),
)


def brute_force(variant: Variant, shoe: list[Card]) -> dict[str, Fraction]:
    """EV of each bet by dealing every ordered sequence of the physical cards of a small shoe."""
    totals: dict[str, Fraction] = defaultdict(Fraction)

    def deal(dealt: list[int], probability: Fraction) -> None:
        cards = [shoe[i] for i in dealt]
        if next_hand([c.point for c in cards]) is None:
            coup = Coup.from_cards(cards)
            for offer in variant.bets:
                totals[offer.bet_id] += probability * net_result(
                    verdict(BETS[offer.bet_id], coup), offer.payouts
                )
            return
        left = len(shoe) - len(dealt)
        for i in range(len(shoe)):
            if i not in dealt:
                deal([*dealt, i], probability / left)

    deal([], Fraction(1))
    return dict(totals)


def composition_of(cards: list[Card]) -> Composition:
    counts = [0] * 52
    for card in cards:
        counts[CARD_ORDER.index(card)] += 1
    return Composition(tuple(counts))


def test_published_eight_deck_figures() -> None:
    odds = analyse(SUPER_SIX, Composition.full(8))
    assert round(float(odds.events["banker_wins"]), 6) == 0.458597
    assert round(float(odds.events["player_wins"]), 6) == 0.446247
    assert round(float(odds.events["tie"]), 6) == 0.095156
    commission = analyse(COMMISSION, Composition.full(8))
    assert round(float(commission.bets["banker"].house_edge) * 100, 2) == 1.06
    assert round(float(commission.bets["player"].house_edge) * 100, 2) == 1.24
    assert round(float(commission.bets["tie"].house_edge) * 100, 2) == 14.36
    assert round(float(odds.bets["banker"].house_edge) * 100, 2) == 1.46
    assert round(float(commission.bets["player_pair"].house_edge) * 100, 2) == 10.36


def test_mini_reproduces_the_six_deck_figures() -> None:
    odds = analyse(VARIANTS["mini"], Composition.full(6))
    assert round(float(odds.bets["banker"].rtp) * 100, 2) == 98.94
    assert round(float(odds.bets["player"].rtp) * 100, 2) == 98.76
    assert round(float(odds.bets["tie"].rtp) * 100, 2) == 85.56


def test_probabilities_add_up_to_one_exactly() -> None:
    odds = analyse(EVERY_BET, Composition.full(8))
    for bet in odds.bets.values():
        assert sum(bet.probabilities.values()) == 1
    assert odds.events["player_wins"] + odds.events["banker_wins"] + odds.events["tie"] == 1
    assert odds.events["cards_4"] + odds.events["cards_5"] + odds.events["cards_6"] == 1


def test_pair_probability_is_the_closed_form() -> None:
    # 8 decks: a given first card leaves 31 of its rank among the 415 others.
    odds = analyse(COMMISSION, Composition.full(8))
    assert odds.bets["player_pair"].probabilities["win"] == Fraction(31, 415)
    assert odds.bets["player_pair"].ev == Fraction(31, 415) * 12 - 1


def test_fast_and_plain_agree_on_a_full_shoe() -> None:
    fast = analyse(EVERY_BET, Composition.full(8))
    plain = enumeration.bet_values(EVERY_BET, Composition.full(8))
    assert {bet_id: odds.ev for bet_id, odds in fast.bets.items()} == plain


@pytest.mark.slow  # the plain enumeration takes seconds a shoe; full and small shoes are default
@settings(max_examples=6, deadline=None)
@given(st.lists(st.sampled_from(CARD_ORDER), min_size=1, max_size=150))
def test_fast_and_plain_agree_on_depleted_shoes(removed: list[Card]) -> None:
    try:
        composition = Composition.full(2).without(removed)
    except ValueError:
        composition = Composition.full(8).without(removed)
    fast = analyse(EVERY_BET, composition)
    plain = enumeration.bet_values(EVERY_BET, composition)
    assert {bet_id: odds.ev for bet_id, odds in fast.bets.items()} == plain


SMALL_SHOES = [
    parse_cards(["4D", "4D", "4H", "KS", "KS", "9C", "8H", "5D", "3S"]),
    parse_cards(["AS", "2H", "3D", "6C", "6S", "7H", "QD", "QD", "4D"]),
    parse_cards(["KS", "KH", "KD", "KC", "TS", "6H", "6D", "2C", "5S"]),
]


@pytest.mark.parametrize(
    "shoe",
    [
        pytest.param(SMALL_SHOES[0], id="pairs-and-naturals", marks=pytest.mark.slow),
        pytest.param(SMALL_SHOES[1], id="mixed"),
        pytest.param(SMALL_SHOES[2], id="zeros-and-sixes", marks=pytest.mark.slow),
    ],
)
def test_all_three_agree_with_a_card_by_card_brute_force(shoe: tuple[Card, ...]) -> None:
    composition = composition_of(list(shoe))
    expected = brute_force(EVERY_BET, list(shoe))
    fast = analyse(EVERY_BET, composition)
    assert {bet_id: odds.ev for bet_id, odds in fast.bets.items()} == expected
    assert enumeration.bet_values(EVERY_BET, composition) == expected


def test_large_shoes_fall_back_to_python_integers() -> None:
    counts, denominator = outcome_counts(Composition.full(40))
    assert int(sum(counts)) == denominator
    assert analyse(COMMISSION, Composition.full(40)).bets["banker"].ev < 0


def test_a_shoe_too_small_for_a_coup_is_refused() -> None:
    with pytest.raises(ShoeTooSmallError, match="5 cards"):
        analyse(COMMISSION, composition_of(list(parse_cards(["AS", "2S", "3S", "4S", "5S"]))))
