# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Edges round by round over recorded shoes: stacked shoes turn a side bet at a known round."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from table_controller.protection.edge import DynamicWindows, NoEdges, RoundEdges
from table_controller.protection.replay_edges import (
    PlayedRound,
    RecordedShoe,
    edge_series,
    replay_edges,
    split_rounds,
)
from table_controller.rules.cards import Card
from table_controller.rules.composition import Composition
from table_controller.rules.exact import analyse
from table_controller.rules.variants import COMMISSION, MINI
from tests.protection.shoes import cards, fair_shoe, gone_before, pair_edge, stacked_shoe

# --- split_rounds ---------------------------------------------------------------------------------


def test_split_rounds_burns_as_the_first_card_orders_and_follows_the_tableau() -> None:
    flat = cards("3D 2C 2C 2C  2H 4C 3H 2S 9H  8S 8D 8H 8C  KH KD KS KC KH KD  5S")
    shoe = split_rounds("S-1", flat, burn=True)
    assert shoe.burn == cards("3D 2C 2C 2C")  # a 3 orders three burned
    assert [r.cards for r in shoe.rounds] == [
        cards("2H 4C 3H 2S 9H"),  # Player 5 draws; Banker 6 stands on a third 9
        cards("8S 8D 8H 8C"),  # 6 and 6: both stand
        cards("KH KD KS KC KH KD"),  # 0 and 0: both draw
    ]
    assert [r.round_no for r in shoe.rounds] == [1, 2, 3]
    assert shoe.leftover == cards("5S")


def test_split_rounds_without_a_burn() -> None:
    shoe = split_rounds("S-1", cards("8S 8D 8H 8C 9S"), burn=False)
    assert shoe.burn == ()
    assert [r.cards for r in shoe.rounds] == [cards("8S 8D 8H 8C")]
    assert shoe.leftover == cards("9S")


# --- stacked shoes: the alarm fires at the known round and not before ----------------------------


def test_stacked_queens_and_kings_turn_the_pair_bets_at_the_round_counted_by_hand() -> None:
    shoe = split_rounds("S-PAIR", stacked_shoe("QK", "Q", seed=1), burn=True)
    assert len(shoe.burn) == 11  # a queen orders ten burned
    assert all(len(r.cards) == 6 for r in shoe.rounds[:8])  # all-zero coups: both hands draw
    # The round on which the pair edge turns, from a direct count of the pairs left.
    known = next(
        r.round_no
        for r in shoe.rounds
        if pair_edge(Composition.full(8).without(gone_before(shoe, r.round_no))) < 0
    )
    assert 1 < known <= 9, "the stack must turn the edge while it lasts"

    replayed = replay_edges(COMMISSION, shoe)
    alarms = [(a.round_no, a.bet_id) for r in replayed for a in r.alarms]
    assert alarms[:2] == [(known, "player_pair"), (known, "banker_pair")]
    assert all(round_no >= known for round_no, _ in alarms)
    turned = replayed[known - 1]
    assert turned.round_no == known
    assert turned.house_edge("player_pair") == pair_edge(
        Composition.full(8).without(gone_before(shoe, known))
    )
    before = replayed[known - 2].house_edge("player_pair")
    assert before is not None
    assert before >= 0


def test_stacked_eights_and_nines_turn_big_at_the_round_the_analyser_gives() -> None:
    shoe = split_rounds("S-BIG", stacked_shoe("89", "8", seed=2), burn=True)
    assert len(shoe.burn) == 9
    assert all(len(r.cards) == 4 for r in shoe.rounds[:13])  # 8s and 9s: both hands stand

    def big_edge(round_no: int) -> Fraction:
        composition = Composition.full(8).without(gone_before(shoe, round_no))
        return analyse(COMMISSION, composition, with_events=False).bets["big"].house_edge

    known = next(r.round_no for r in shoe.rounds if big_edge(r.round_no) < 0)
    assert 1 < known <= 13
    assert known in range(1, 31)  # inside big's fixed window

    replayed = replay_edges(COMMISSION, shoe)
    big_alarms = [a for r in replayed for a in r.alarms if a.bet_id == "big"]
    assert big_alarms[0].round_no == known
    assert big_alarms[0].house_edge == big_edge(known)
    assert all(a.round_no >= known for r in replayed for a in r.alarms)


def test_dynamic_windows_suspend_the_pair_bets_from_the_known_round() -> None:
    shoe = split_rounds("S-PAIR", stacked_shoe("QK", "Q", seed=3), burn=True)
    fixed = replay_edges(COMMISSION, shoe)
    known = next(r.round_no for r in fixed if r.alarms)
    dynamic = replay_edges(COMMISSION, shoe, windows=DynamicWindows())
    for replayed in dynamic[: known - 1]:
        assert "player_pair" in replayed.offer.offered
        assert replayed.offer.suspended == ()
    turned = dynamic[known - 1]
    assert {s.bet_id for s in turned.offer.suspended} >= {"player_pair", "banker_pair"}
    assert "player_pair" not in turned.offer.offered
    # Later, as the rest of the shoe comes out, the pair edge turns back: offered again.
    resumed = [r for r in dynamic if "player_pair" in r.offer.resumed]
    assert resumed
    assert resumed[0].round_no > known
    edge = resumed[0].house_edge("player_pair")
    assert edge is not None
    assert edge >= 0


def test_a_foreign_card_ends_the_edges_of_the_shoe() -> None:
    ace = Card.parse("AS")
    rounds = (
        PlayedRound(round_no=1, cards=(ace,) * 4),
        PlayedRound(round_no=2, cards=(ace,) * 5),  # a ninth ace: one more than 8 decks hold
        PlayedRound(round_no=3, cards=cards("2H 3H 4H 5H")),
        PlayedRound(round_no=4, cards=cards("2H 3H 4H 5H")),
    )
    replayed = replay_edges(COMMISSION, RecordedShoe(shoe_id="S-F", rounds=rounds))
    assert [isinstance(r.edges, RoundEdges) for r in replayed] == [True, True, False, False]
    stopped = replayed[2].edges
    assert isinstance(stopped, NoEdges)
    assert stopped.reason == "AS seen 9 times; the shoe holds 8"
    assert replayed[2].house_edge("banker") is None


def test_unread_cards_count_as_gone() -> None:
    rounds = (
        PlayedRound(round_no=1, cards=(None, *cards("2H 3H 4H"))),
        PlayedRound(round_no=2, cards=cards("2H 3H 4H 5H")),
    )
    replayed = replay_edges(COMMISSION, RecordedShoe(shoe_id="S-U", rounds=rounds))
    second = replayed[1].edges
    assert isinstance(second, RoundEdges)
    assert second.cards_left == 416 - 4


def test_a_virtual_table_reshuffles_every_round() -> None:
    flat = fair_shoe(6, random.Random(8))[:60]
    shoe = split_rounds("S-M", flat, burn=False)
    replayed = replay_edges(MINI, shoe)
    full = analyse(MINI, Composition.full(6), with_events=False).bets
    assert len(replayed) >= 5
    for round_ in replayed:
        assert isinstance(round_.edges, RoundEdges)
        assert round_.edges.bets == full
        assert round_.edges.cards_left == 312


def test_edge_series_lists_each_bet_round_by_round() -> None:
    shoe = split_rounds("S-1", fair_shoe(8, random.Random(4))[:80], burn=True)
    replayed = replay_edges(COMMISSION, shoe)
    series = edge_series(replayed)
    assert list(series) == list(COMMISSION.bet_ids)
    assert [round_no for round_no, _ in series["tie"]] == [r.round_no for r in replayed]
    assert (
        series["tie"][0][1]
        == analyse(COMMISSION, Composition.full(8).without(gone_before(shoe, 1)), with_events=False)
        .bets["tie"]
        .house_edge
    )
    only = edge_series(replayed, ["big"])
    assert list(only) == ["big"]


@pytest.mark.parametrize("seed", range(3))
def test_a_fair_shoe_replays_without_a_gap(seed: int) -> None:
    flat = fair_shoe(8, random.Random(seed))[:402]  # the cut card 14 cards from the end
    shoe = split_rounds(f"S-{seed}", flat, burn=True)
    replayed = replay_edges(COMMISSION, shoe)
    assert len(replayed) == len(shoe.rounds) > 60
    for round_ in replayed:
        assert isinstance(round_.edges, RoundEdges)
        for alarm in round_.alarms:
            assert alarm.bet_id in COMMISSION.offered_on(round_.round_no)
            assert round_.edges.bets[alarm.bet_id].ev > 0
