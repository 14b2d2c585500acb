# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Every bet of game-rules.md section 3 against hand-worked coups; expected values are literal."""

from fractions import Fraction

import pytest

from table_controller.rules.bets import BETS, settle
from table_controller.rules.cards import parse_cards
from table_controller.rules.tableau import Coup
from table_controller.rules.variants import (
    COMMISSION,
    LUCKY,
    NOT_OFFERED,
    SUPER_SIX,
    VARIANTS,
    settle_round,
)

SPEC_BET_IDS = {
    "player",
    "banker",
    "tie",
    "player_pair",
    "banker_pair",
    "big",
    "small",
    "super_six",
    "super_6_plus",
    "player_natural_8",
    "player_natural_9",
    "banker_natural_8",
    "banker_natural_9",
    "player_red",
    "banker_red",
    "player_black",
    "banker_black",
    "lucky_6",
    "player_lucky_pair",
    "banker_lucky_pair",
    "player_wins_on_123",
    "player_wins_on_456",
    "player_wins_on_789",
    "banker_wins_on_123",
    "banker_wins_on_456",
    "banker_wins_on_789",
    "tie_on_0123",
    "tie_on_456",
    "tie_on_789",
    "dragon_7",
    "panda_8",
    "player_dragon_bonus",
    "banker_dragon_bonus",
}
#: Bets no built-in variant offers: an operator composes a variant with them.
COMPOSED_ONLY = {"player_dragon_bonus", "banker_dragon_bonus"}


def coup(*codes: str) -> Coup:
    return Coup.from_cards(parse_cards(codes))


def test_the_catalogue_is_exactly_the_spec_table() -> None:
    assert set(BETS) == SPEC_BET_IDS
    assert {b for v in VARIANTS.values() for b in v.bet_ids} == SPEC_BET_IDS - COMPOSED_ONLY


def test_mqtt_api_example_super_six_round_45() -> None:
    # Player QH 4S 9D = 3, Banker 6C KD = 6: the settlement printed in mqtt-api.md.
    result = settle_round(SUPER_SIX, coup("QH", "6C", "4S", "KD", "9D"), 45)
    assert result == {
        "player": -1,
        "banker": Fraction(1, 2),
        "tie": -1,
        "super_six": 12,
        "player_pair": -1,
        "banker_pair": -1,
        "big": NOT_OFFERED,
        "small": NOT_OFFERED,
    }


def test_commission_banker_pays_095_also_on_six() -> None:
    six = coup("QH", "6C", "4S", "KD", "9D")
    seven = coup("6S", "7H", "KC", "KD")  # Player 6 stands, Banker 7 stands
    assert settle("banker", six, COMMISSION.offer("banker").payouts) == Fraction(19, 20)
    assert seven.banker_total == 7
    assert seven.winner == "banker"
    assert settle("banker", seven, COMMISSION.offer("banker").payouts) == Fraction(19, 20)
    assert settle("banker", seven, SUPER_SIX.offer("banker").payouts) == 1


def test_pushes_on_a_tie() -> None:
    tie = coup("4S", "5H", "4H", "3D")  # natural 8 against natural 8
    result = settle_round(COMMISSION, tie, 1)
    assert result["player"] == 0
    assert result["banker"] == 0
    assert result["tie"] == 8
    # Naturals must win: a tie on natural 8 loses both natural-8 bets.
    assert result["player_natural_8"] == -1
    assert result["banker_natural_8"] == -1


def test_naturals_that_win() -> None:
    result = settle_round(
        COMMISSION, coup("8S", "9H", "KS", "KH"), 1
    )  # P natural 8, B natural 9 wins
    assert result["banker_natural_9"] == 8
    assert result["player_natural_8"] == -1
    assert result["banker_natural_8"] == -1
    assert result["player_natural_9"] == -1
    assert result["small"] == Fraction(3, 2)
    assert result["big"] == -1
    assert result["banker_pair"] == -1
    assert result["player_pair"] == -1


def test_a_three_card_nine_is_not_a_natural() -> None:
    result = settle_round(COMMISSION, coup("2S", "KH", "2H", "KD", "5C", "KC"), 1)
    # Player 2+2+5 = 9 on three cards; Banker 0 draws against anything: 0.
    assert result["player"] == 1
    assert result["player_natural_9"] == -1
    assert result["big"] == Fraction(1, 2)


def test_super_6_plus_two_and_three_cards() -> None:
    two = coup("KS", "4H", "5C", "2D", "9S")  # P 5 draws 9 -> 4; B 6 stands against 9; B 6 wins
    assert (two.banker_total, len(two.banker), two.winner) == (6, 2, "banker")
    three = coup("KS", "KH", "4C", "3D", "KD", "3C")  # P 4 draws 0 -> 4; B 3 draws -> 6
    assert (three.banker_total, len(three.banker), three.winner) == (6, 3, "banker")
    payouts = COMMISSION.offer("super_6_plus").payouts
    assert settle("super_6_plus", two, payouts) == 12
    assert settle("super_6_plus", three, payouts) == 18
    assert settle("super_six", two, SUPER_SIX.offer("super_six").payouts) == 12
    assert settle("super_six", three, SUPER_SIX.offer("super_six").payouts) == 12


@pytest.mark.parametrize(
    ("player_cards", "tier_payout"),
    [
        (("4D", "4D"), 30),  # the diamond 4s: paid 30 only, not also 15, 12 or 9
        (("4S", "4D"), 15),
        (("4H", "4C"), 15),
        (("QD", "QD"), 12),
        (("7D", "7D"), 12),
        (("QS", "QH"), 9),
        (("TS", "KS"), -1),  # both 0, not a pair
    ],
)
def test_lucky_pair_pays_only_the_highest_tier(
    player_cards: tuple[str, str], tier_payout: int
) -> None:
    p1, p2 = player_cards
    c = coup(p1, "9C", p2, "KC")  # Banker natural 9 ends the coup whatever the Player holds
    assert settle("player_lucky_pair", c, LUCKY.offer("player_lucky_pair").payouts) == tier_payout


def test_red_and_black_on_the_first_two_cards() -> None:
    c = coup("AH", "2S", "3D", "4C", "5H")  # P 4 draws 5 -> 9; B 6 stands against a 5
    payouts = LUCKY.offer("player_red").payouts
    assert settle("player_red", c, payouts) == 2
    assert settle("player_black", c, payouts) == -1
    assert settle("banker_black", c, payouts) == 2
    assert settle("banker_red", c, payouts) == -1


def test_lucky_6_wins_on_a_six_by_either_side_or_a_tie_on_six() -> None:
    payouts = LUCKY.offer("lucky_6").payouts
    assert settle("lucky_6", coup("KS", "4H", "5C", "2D", "9S"), payouts) == 6  # Banker wins with 6
    assert settle("lucky_6", coup("6S", "5H", "KC", "KD", "KH"), payouts) == 6  # Player 6 beats 5
    assert settle("lucky_6", coup("6S", "6H", "KC", "KD"), payouts) == 6  # Tie on 6
    assert settle("lucky_6", coup("7S", "6H", "KC", "KD"), payouts) == -1  # Player wins with 7


def test_wins_on_and_tie_on_groups() -> None:
    result = settle_round(LUCKY, coup("7S", "6H", "KC", "KD"), 1)  # Player wins 7 to 6
    assert result["player_wins_on_789"] == 2
    assert result["player_wins_on_456"] == -1
    assert result["banker_wins_on_456"] == -1
    assert result["tie_on_456"] == -1
    tie = settle_round(LUCKY, coup("6S", "6H", "KC", "KD"), 1)
    assert tie["tie_on_456"] == 24
    assert tie["tie_on_0123"] == -1
    assert tie["player_wins_on_456"] == -1
    low = settle_round(
        LUCKY, coup("KS", "KH", "KC", "KD", "2S", "KS"), 1
    )  # P 0 draws 2; B 0 draws K
    assert [low["player"], low["player_wins_on_123"], low["player_wins_on_456"]] == [1, 31, -1]
    zero_tie = settle_round(LUCKY, coup("KS", "KH", "KC", "KD", "KS", "KH"), 1)
    assert zero_tie["tie_on_0123"] == 45
    assert zero_tie["tie"] == 8


def test_windows_by_round_number() -> None:
    c = coup("QH", "6C", "4S", "KD", "9D")
    at_30 = settle_round(COMMISSION, c, 30)
    at_31 = settle_round(COMMISSION, c, 31)
    at_61 = settle_round(COMMISSION, c, 61)
    assert at_30["big"] == Fraction(1, 2)
    assert at_31["big"] == NOT_OFFERED
    assert at_31["player_pair"] == -1
    assert at_61["player_pair"] == NOT_OFFERED
    assert at_61["banker"] == Fraction(19, 20)
    virtual = settle_round(COMMISSION.as_virtual(), c, 61)
    assert virtual["big"] == Fraction(1, 2)
    assert NOT_OFFERED not in virtual.values()
    assert COMMISSION.offered_on(31) == (
        "player",
        "banker",
        "tie",
        "player_pair",
        "banker_pair",
        "player_natural_8",
        "banker_natural_8",
        "player_natural_9",
        "banker_natural_9",
        "super_6_plus",
    )


def test_variant_menus_match_the_spec_table() -> None:
    assert set(VARIANTS) == {"commission", "super_six", "lucky", "mini", "ez"}
    assert (VARIANTS["mini"].decks, VARIANTS["mini"].burn, VARIANTS["mini"].reshuffle) == (
        6,
        False,
        "every_round",
    )
    assert set(VARIANTS["mini"].bet_ids) == {"player", "banker", "tie"}
    assert VARIANTS["super_six"].offer("super_six").window is None
    lucky_windows = {
        b: (o.window.first, o.window.last) for b in LUCKY.bet_ids if (o := LUCKY.offer(b)).window
    }
    assert lucky_windows["lucky_6"] == (1, 30)
    assert lucky_windows["player_lucky_pair"] == (1, 60)
    assert lucky_windows["tie_on_789"] == (1, 40)
    assert lucky_windows["banker_red"] == (1, 40)
