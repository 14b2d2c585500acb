# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""EZ Baccarat, Dragon 7, Panda 8 and the Dragon Bonus.

Settlement on hand-worked coups, and the exact odds against an independent count of every deal
from a full eight-deck shoe.
"""

import itertools
from collections.abc import Callable
from fractions import Fraction

import pytest

from table_controller.rules import enumeration
from table_controller.rules.bets import BETS, DRAGON_BONUS_TIERS, settle
from table_controller.rules.cards import parse_cards
from table_controller.rules.composition import Composition
from table_controller.rules.exact import analyse
from table_controller.rules.tableau import Coup
from table_controller.rules.variants import (
    COMMISSION,
    EZ,
    LUCKY,
    MINI,
    SUPER_SIX,
    VARIANTS,
    MainBets,
    Variant,
    main_bets,
    settle_round,
)
from table_controller.variant_file import load_variants

DRAGON_BONUS_FILE = """
[house_ez]
title = "House EZ with Dragon Bonus"
main_bets = "ez"
[house_ez.bets.player_pair]
window = [1, 60]
[house_ez.bets.dragon_7]
[house_ez.bets.panda_8]
[house_ez.bets.player_dragon_bonus]
payouts = { by_9 = 30 }
limits = { min = 5, max = 500 }
[house_ez.bets.banker_dragon_bonus]
"""


def coup(*codes: str) -> Coup:
    """Cards in the order dealt: Player 1, Banker 1, Player 2, Banker 2, then the draws."""
    return Coup.from_cards(parse_cards(codes))


@pytest.fixture(scope="module")
def house_ez(tmp_path_factory: pytest.TempPathFactory) -> Variant:
    path = tmp_path_factory.mktemp("variants") / "variants.toml"
    path.write_text(DRAGON_BONUS_FILE, encoding="utf-8")
    return load_variants(path)["house_ez"]


# Player K 6 stands on 6; Banker 2 2 draws a 3: the Banker wins with a three-card 7.
BANKER_THREE_CARD_7 = ("KS", "2H", "6C", "2D", "3S")


def test_dragon_7_pays_40_and_ez_banker_pushes_on_a_three_card_7() -> None:
    c = coup(*BANKER_THREE_CARD_7)
    assert (c.banker_total, len(c.banker), c.winner) == (7, 3, "banker")
    result = settle_round(EZ, c, 1)
    assert result["dragon_7"] == 40
    assert result["banker"] == 0
    assert result["player"] == -1
    assert result["panda_8"] == -1
    # Every other variant pays a three-card 7 as any other Banker win.
    assert settle_round(COMMISSION, c, 1)["banker"] == Fraction(19, 20)
    assert settle_round(SUPER_SIX, c, 1)["banker"] == 1
    assert settle_round(LUCKY, c, 1)["banker"] == 1
    assert settle_round(MINI, c, 1)["banker"] == Fraction(19, 20)


def test_dragon_7_needs_a_banker_win_on_three_cards() -> None:
    payouts = EZ.offer("dragon_7").payouts
    two_card_7 = coup("KS", "3H", "6C", "4D")  # Player 6, Banker 7: both stand
    assert (two_card_7.banker_total, len(two_card_7.banker)) == (7, 2)
    assert settle("dragon_7", two_card_7, payouts) == -1
    assert settle("banker", two_card_7, EZ.offer("banker").payouts) == 1
    tied = coup("KS", "2H", "7C", "2D", "3S")  # Player 7 stands, Banker 2 2 3: a Tie on 7
    assert (tied.banker_total, len(tied.banker), tied.winner) == (7, 3, "tie")
    assert settle("dragon_7", tied, payouts) == -1
    assert settle("banker", tied, EZ.offer("banker").payouts) == 0


def test_ez_banker_pays_even_money_on_a_six() -> None:
    six = coup("QH", "6C", "4S", "KD", "9D")  # Player 4 draws 9: 3; Banker 6 stands and wins
    assert settle("banker", six, EZ.offer("banker").payouts) == 1
    assert settle("banker", six, SUPER_SIX.offer("banker").payouts) == Fraction(1, 2)


def test_panda_8_pays_25_on_a_player_win_with_a_three_card_8() -> None:
    payouts = EZ.offer("panda_8").payouts
    panda = coup("KS", "KH", "3C", "7D", "5S")  # Player 3 draws 5: 8; Banker 7 stands
    assert (panda.player_total, len(panda.player), panda.winner) == (8, 3, "player")
    assert settle("panda_8", panda, payouts) == 25
    assert settle("dragon_7", panda, EZ.offer("dragon_7").payouts) == -1
    tied = coup("KS", "KH", "3C", "3D", "5S", "5H")  # both 3, both draw 5: a Tie on 8
    assert tied.winner == "tie"
    assert settle("panda_8", tied, payouts) == -1
    natural = coup("8S", "KH", "KC", "7D")  # a two-card 8 is no Panda
    assert settle("panda_8", natural, payouts) == -1


@pytest.mark.parametrize(
    ("cards", "player", "banker"),
    [
        (("9S", "8H", "KC", "KD"), 1, -1),  # Player natural 9 beats natural 8: tier natural
        (("4S", "5H", "4H", "3D"), 0, 0),  # natural 8 against natural 8: a Tie of naturals
        (("6S", "6H", "KC", "KD"), -1, -1),  # a Tie on 6, not natural: both lose
        (("2S", "KH", "2H", "KD", "5C", "KC"), 30, -1),  # Player 9 (three cards) by 9
        (("2S", "KH", "2H", "KD", "5C", "AC"), 10, -1),  # Player 9 against 1: by 8
        (("KS", "KH", "KC", "2D", "KD", "5S"), -1, 6),  # Banker 7 (three cards) against 0: by 7
        (("KS", "KH", "6C", "KD", "KS"), 4, -1),  # Player 6 (two cards, no natural) by 6
        (("KS", "KH", "7C", "2D", "KD"), 2, -1),  # Player 7 against Banker 2: by 5
        (("KS", "KH", "KC", "4D", "KD"), -1, 1),  # Banker 4 against 0: by 4
        (("KS", "KH", "7C", "4D", "KD"), -1, -1),  # Player 7 against 4: by 3 loses
    ],
)
def test_dragon_bonus_pays_by_its_tiers(
    house_ez: Variant, cards: tuple[str, ...], player: int, banker: int
) -> None:
    result = settle_round(house_ez, coup(*cards), 1)
    assert result["player_dragon_bonus"] == player
    assert result["banker_dragon_bonus"] == banker


def test_the_catalogue_gives_each_new_bet_its_default_pay_table() -> None:
    assert BETS["dragon_7"].default_payouts == {"win": 40}
    assert BETS["panda_8"].default_payouts == {"win": 25}
    for hand in ("player", "banker"):
        rule = BETS[f"{hand}_dragon_bonus"]
        assert rule.tiers == DRAGON_BONUS_TIERS
        assert rule.default_payouts == dict(
            zip(DRAGON_BONUS_TIERS, (1, 30, 10, 6, 4, 2, 1), strict=True)
        )
    assert BETS["banker"].tiers == ("win", "win_on_6", "three_card_7")


def test_the_ez_variant() -> None:
    assert VARIANTS["ez"] is EZ
    assert (EZ.title, EZ.decks, EZ.burn, EZ.reshuffle) == (
        "EZ Baccarat (no commission)",
        8,
        True,
        "cut_card",
    )
    assert EZ.bet_ids == (
        "player", "banker", "tie", "player_pair", "banker_pair", "dragon_7", "panda_8",
    )  # fmt: skip
    assert EZ.offer("banker").payouts == {"win": 1, "win_on_6": 1, "three_card_7": 0}
    assert EZ.offer("tie").payouts == {"win": 8}
    assert EZ.offer("player_pair").window == COMMISSION.offer("player_pair").window
    assert EZ.offered("dragon_7", 200)


def test_the_odds_tell_a_three_card_7_apart_only_where_it_pays_apart() -> None:
    full = Composition.full(8)
    for variant in (COMMISSION, SUPER_SIX, LUCKY):
        banker = analyse(variant, full).bets["banker"]
        assert list(banker.probabilities) == ["lose", "push", "win", "win_on_6"]
    ez = analyse(EZ, full).bets["banker"]
    assert list(ez.probabilities) == ["lose", "push", "three_card_7", "win", "win_on_6"]
    dragon = analyse(EZ, full).bets["dragon_7"]
    assert ez.probabilities["three_card_7"] == dragon.probabilities["win"]
    assert sum(ez.probabilities.values()) == 1


def test_a_composed_variant_with_dragon_bonus_analyses_as_the_plain_enumeration(
    house_ez: Variant,
) -> None:
    full = Composition.full(8)
    fast = analyse(house_ez, full)
    assert fast.variant == "house_ez"
    bonus = fast.bets["player_dragon_bonus"]
    assert set(bonus.probabilities) == {*DRAGON_BONUS_TIERS, "push", "lose"}
    assert sum(bonus.probabilities.values()) == 1
    plain = enumeration.bet_values(house_ez, full)
    assert {bet_id: odds.ev for bet_id, odds in fast.bets.items()} == plain


# --- An independent count of every deal from a full eight-deck shoe -------------------------

#: Cards of each point value in eight decks: 0 for T J Q K, then A to 9.
EIGHT_DECKS = [4 * 4 * 8] + [4 * 8] * 9


#: When the Player drew: the Player's third cards (point values) on which the Banker draws, by
#: the Banker's two-card total; written out from the table of game-rules.md, section 2.
BANKER_DRAWS_AGAINST = {
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: {0, 1, 2, 3, 4, 5, 6, 7, 9},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}

#: A deal's final state: Player total, Banker total, their card counts, naturals.
Deal = tuple[int, int, int, int, bool, bool]


class DealCount:
    """Each final state with its weight: the ordered ways of dealing it, over six draws.

    Every deal is weighted by the falling counts of the cards it takes, times the ways the
    cards it leaves could fill the rest of six draws, so that all share one denominator.
    """

    def __init__(self, counts: list[int]) -> None:
        self.left = counts.copy()
        self.cards = sum(counts)
        self.weights: dict[Deal, int] = {}
        for p1, b1, p2, b2 in itertools.product(range(10), repeat=4):
            weight = 1
            for value in (p1, b1, p2, b2):
                weight *= self.left[value]
                self.left[value] -= 1
            if weight:
                self.third_cards((p1 + p2) % 10, (b1 + b2) % 10, weight)
            for value in (p1, b1, p2, b2):
                self.left[value] += 1

    def add(self, deal: Deal, weight: int, dealt: int) -> None:
        for i in range(dealt, 6):
            weight *= self.cards - i
        self.weights[deal] = self.weights.get(deal, 0) + weight

    def third_cards(self, player: int, banker: int, weight: int) -> None:
        if player >= 8 or banker >= 8:
            self.add((player, banker, 2, 2, player >= 8, banker >= 8), weight, 4)
        elif player >= 6 and banker >= 6:
            self.add((player, banker, 2, 2, False, False), weight, 4)
        elif player >= 6:
            self.banker_third(player, banker, 2, weight)
        else:
            for p3 in range(10):
                if self.left[p3]:
                    drawn = weight * self.left[p3]
                    self.left[p3] -= 1
                    if p3 in BANKER_DRAWS_AGAINST[banker]:
                        self.banker_third((player + p3) % 10, banker, 3, drawn)
                    else:
                        self.add(((player + p3) % 10, banker, 3, 2, False, False), drawn, 5)
                    self.left[p3] += 1

    def banker_third(self, player: int, banker: int, player_cards: int, weight: int) -> None:
        for b3 in range(10):
            if self.left[b3]:
                deal = (player, (banker + b3) % 10, player_cards, 3, False, False)
                self.add(deal, weight * self.left[b3], player_cards + 3)


def _net(pays: dict[str, Fraction], tier: str | None) -> Fraction:
    """Net result of a bet: ``None`` loses, ``"push"`` pushes, else the tier's payout."""
    if tier is None:
        return Fraction(-1)
    return Fraction(0) if tier == "push" else pays[tier]


def _dragon_bonus(
    own: int, other: int, own_natural: bool, other_natural: bool
) -> str | None:  # fmt: skip
    if own == other:
        return "push" if own_natural and other_natural else None
    if own < other:
        return None
    if own_natural:
        return "natural"
    return f"by_{own - other}" if own - other >= 4 else None


#: How each bet settles a deal, written from its rule in game-rules.md, section 3.
COUNTED: dict[str, Callable[[Deal], str | None]] = {
    "player": lambda d: "win" if d[0] > d[1] else "push" if d[0] == d[1] else None,
    "banker": lambda d: (
        "push" if d[0] == d[1] else None if d[0] > d[1]
        else "win_on_6" if d[1] == 6 else "three_card_7" if d[1] == 7 and d[3] == 3 else "win"
    ),
    "dragon_7": lambda d: "win" if d[1] > d[0] and d[1] == 7 and d[3] == 3 else None,
    "panda_8": lambda d: "win" if d[0] > d[1] and d[0] == 8 and d[2] == 3 else None,
    "player_dragon_bonus": lambda d: _dragon_bonus(d[0], d[1], d[4], d[5]),
    "banker_dragon_bonus": lambda d: _dragon_bonus(d[1], d[0], d[5], d[4]),
}  # fmt: skip


def test_exact_house_edges_agree_with_an_independent_count(house_ez: Variant) -> None:
    weights = DealCount(EIGHT_DECKS).weights
    cards = sum(EIGHT_DECKS)
    denominator = cards * (cards - 1) * (cards - 2) * (cards - 3) * (cards - 4) * (cards - 5)
    assert sum(weights.values()) == denominator
    full = Composition.full(8)
    analysed = {
        bet_id: odds
        for variant in (EZ, house_ez)
        for bet_id, odds in analyse(variant, full).bets.items()
    }
    menu = {offer.bet_id: offer for variant in (EZ, house_ez) for offer in variant.bets}
    for bet_id, settles in COUNTED.items():
        pays = dict(menu[bet_id].payouts)
        counted = sum(
            (_net(pays, settles(deal)) * weight for deal, weight in weights.items()), Fraction(0)
        ) / denominator
        assert analysed[bet_id].house_edge == -counted, bet_id


def test_the_built_in_variants_pay_the_default_pay_tables_but_for_their_main_bets() -> None:
    kinds = {
        "commission": MainBets.COMMISSION,
        "super_six": MainBets.NO_COMMISSION,
        "lucky": MainBets.NO_COMMISSION,
        "mini": MainBets.COMMISSION,
        "ez": MainBets.EZ,
    }
    for name, variant in VARIANTS.items():
        assert variant.bets[:3] == main_bets(kinds[name]), name
        for offer in variant.bets[3:]:
            assert offer.payouts == BETS[offer.bet_id].default_payouts, (name, offer.bet_id)
