# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The tableau, checked against game-rules.md section 2 transcribed as literal rows."""

import itertools

import pytest

from table_controller.rules.cards import parse_cards
from table_controller.rules.tableau import (
    Coup,
    Hand,
    TooManyCardsError,
    Winner,
    next_hand,
    split_hands,
)

# game-rules.md section 2, rule 4, row by row: the third-card points on which the Banker STANDS.
BANKER_STANDS_AGAINST = {
    0: set(),
    1: set(),
    2: set(),
    3: {8},
    4: {0, 1, 8, 9},
    5: {0, 1, 2, 3, 8, 9},
    6: {0, 1, 2, 3, 4, 5, 8, 9},
    7: set(range(10)),
}


def test_dealing_order_of_the_first_four_cards() -> None:
    assert [next_hand([0] * n) for n in range(4)] == [
        Hand.PLAYER,
        Hand.BANKER,
        Hand.PLAYER,
        Hand.BANKER,
    ]


@pytest.mark.parametrize(
    ("player", "banker"), [(p, b) for p in range(10) for b in range(10) if p >= 8 or b >= 8]
)
def test_a_natural_stops_the_coup(player: int, banker: int) -> None:
    assert next_hand([player, banker, 0, 0]) is None


@pytest.mark.parametrize(("player", "banker"), [(p, b) for p in (6, 7) for b in range(8)])
def test_player_stands_on_6_and_7_and_banker_follows_rule_3(player: int, banker: int) -> None:
    expected = Hand.BANKER if banker <= 5 else None
    assert next_hand([player, banker, 0, 0]) == expected
    if expected is Hand.BANKER:
        assert next_hand([player, banker, 0, 0, 4]) is None


@pytest.mark.parametrize(
    ("player", "banker", "third"), list(itertools.product(range(6), range(8), range(10)))
)
def test_banker_against_the_players_third_card(player: int, banker: int, third: int) -> None:
    assert next_hand([player, banker, 0, 0]) is Hand.PLAYER
    expected = None if third in BANKER_STANDS_AGAINST[banker] else Hand.BANKER
    assert next_hand([player, banker, 0, 0, third]) == expected


def test_too_many_cards_is_a_callers_bug() -> None:
    with pytest.raises(TooManyCardsError):
        next_hand([9, 0, 0, 0, 0])


def test_split_hands_and_coup() -> None:
    # mqtt-api.md example: Player QH 4S 9D = 3, Banker 6C KD = 6 (Banker stands on 6 against a 9).
    cards = parse_cards(["QH", "6C", "4S", "KD", "9D"])
    player, banker = split_hands(cards)
    assert [c.code for c in player] == ["QH", "4S", "9D"]
    assert [c.code for c in banker] == ["6C", "KD"]
    coup = Coup.from_cards(cards)
    assert (coup.player_total, coup.banker_total, coup.winner) == (3, 6, Winner.BANKER)
    assert coup.cards_dealt == 5
    assert not coup.natural
    assert not coup.player_pair
    assert not coup.banker_pair


def test_player_stands_banker_draws_fifth_card_goes_to_banker() -> None:
    coup = Coup.from_cards(parse_cards(["6S", "2H", "KS", "2D", "3C"]))
    assert [c.code for c in coup.banker] == ["2H", "2D", "3C"]
    assert coup.banker_pair
    assert (coup.player_total, coup.banker_total, coup.winner) == (6, 7, Winner.BANKER)


def test_incomplete_coup_is_refused() -> None:
    with pytest.raises(ValueError, match="not complete"):
        Coup.from_cards(parse_cards(["AS", "AH", "2S", "2H"]))


def test_natural_tie() -> None:
    coup = Coup.from_cards(parse_cards(["8S", "9H", "KS", "KH"]))
    assert coup.natural
    assert coup.winner is Winner.BANKER
    coup = Coup.from_cards(parse_cards(["4S", "5H", "4H", "3D"]))
    assert coup.natural
    assert coup.winner is Winner.TIE
