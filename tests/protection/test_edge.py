# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Live exact edges, the odds payload, edge_positive findings and dynamic windows."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.contract.envelope import envelope
from table_controller.contract.schema.models import MESSAGE_MODELS
from table_controller.protection.edge import (
    DynamicWindows,
    EdgePositive,
    EdgeWatch,
    ImpossibleCount,
    NoEdges,
    RoundEdges,
    RoundOffer,
    ShoeLeft,
    positive_edges,
    round_edges,
    settle_offered,
    shoe_left,
)
from table_controller.rules.bets import MAIN_BETS
from table_controller.rules.cards import Card, all_cards
from table_controller.rules.composition import CARD_ORDER, Composition
from table_controller.rules.exact import analyse
from table_controller.rules.tableau import Coup
from table_controller.rules.variants import (
    COMMISSION,
    LUCKY,
    NOT_OFFERED,
    SUPER_SIX,
    Variant,
    settle_round,
)
from tests.protection.shoes import cards, fair_shoe


def pair_probability(composition: Composition) -> Fraction:
    """P(the first two cards of a hand are a pair), counted directly: same rank, any suits."""
    by_rank = Counter[str]()
    for card, count in zip(CARD_ORDER, composition.counts, strict=True):
        by_rank[card.rank] += count
    total = composition.total
    return Fraction(sum(n * (n - 1) for n in by_rank.values()), total * (total - 1))


def edges_for(composition: Composition, round_no: int = 1, shoe_id: str = "S-1") -> RoundEdges:
    edges = round_edges(
        COMMISSION, shoe_id=shoe_id, round_no=round_no, left=ShoeLeft(composition=composition)
    )
    assert isinstance(edges, RoundEdges)
    return edges


# --- shoe_left ----------------------------------------------------------------------------------


def test_shoe_left_counts_burned_dealt_and_discarded_cards_as_gone() -> None:
    left = shoe_left(8, cards("AS AS KH"))
    assert isinstance(left, ShoeLeft)
    assert left.composition.count(Card.parse("AS")) == 6
    assert left.composition.count(Card.parse("KH")) == 7
    assert left.cards_left == 416 - 3
    assert left.unread == 0


def test_unread_cards_are_gone_by_count_but_not_from_the_composition() -> None:
    left = shoe_left(8, [Card.parse("AS"), None, None])
    assert isinstance(left, ShoeLeft)
    assert left.composition.total == 415
    assert left.cards_left == 413


def test_a_card_seen_more_often_than_the_shoe_holds_is_an_impossible_count() -> None:
    left = shoe_left(8, [Card.parse("7D")] * 9 + [Card.parse("AS")])
    assert left == ImpossibleCount(card=Card.parse("7D"), seen=9, held=8)
    assert "7D seen 9 times" in left.message


def test_more_cards_out_than_the_shoe_holds_is_an_impossible_count() -> None:
    left = shoe_left(1, [*all_cards(), None])
    assert left == ImpossibleCount(card=None, seen=53, held=52)
    assert "53 cards out of a shoe of 52" in left.message


def test_unread_cards_do_not_change_the_odds_of_the_next_round() -> None:
    """Why unread cards stay in the composition: averaging over what the unseen card was.

    The odds after one unseen card, averaged over every card it could have been (weighted by
    how many of it the shoe holds), equal the odds without removing anything, exactly.
    """
    rng = random.Random(7)
    composition = Composition.full(1).without(fair_shoe(1, rng)[:20])
    before = analyse(COMMISSION, composition, with_events=False)
    averaged = dict.fromkeys(before.bets, Fraction(0))
    for card, count in zip(CARD_ORDER, composition.counts, strict=True):
        if not count:
            continue
        after = analyse(COMMISSION, composition.without([card]), with_events=False)
        for bet_id, odds in after.bets.items():
            averaged[bet_id] += Fraction(count, composition.total) * odds.ev
    assert averaged == {bet_id: odds.ev for bet_id, odds in before.bets.items()}


# --- round_edges and the odds payload ------------------------------------------------------------


def test_round_edges_of_a_full_shoe_are_the_analysers() -> None:
    edges = edges_for(Composition.full(8), round_no=1)
    full = analyse(COMMISSION, Composition.full(8))
    assert list(edges.bets) == list(COMMISSION.bet_ids)
    assert edges.bets == full.bets
    assert edges.cards_left == 416
    # The textbook figures: banker 1.06 %, player 1.24 %.
    assert round(float(edges.house_edge("banker")), 4) == 0.0106
    assert round(float(edges.house_edge("player")), 4) == 0.0124


def test_a_shoe_with_too_few_cards_has_no_edges() -> None:
    composition = Composition.from_mapping({"AS": 1, "2S": 1, "3S": 1, "4S": 1, "5S": 1})
    edges = round_edges(
        COMMISSION, shoe_id="S-1", round_no=70, left=ShoeLeft(composition=composition)
    )
    assert isinstance(edges, NoEdges)
    assert edges.round_no == 70
    assert "5 cards left" in edges.reason


def test_the_odds_payload_is_what_the_odds_message_accepts() -> None:
    edges = edges_for(Composition.full(8).without(cards("AS KH 9D 9D")), round_no=3)
    payload = edges.payload()
    bets = payload["bets"]
    assert isinstance(bets, dict)
    assert set(bets) == set(COMMISSION.bet_ids)
    banker = bets["banker"]
    assert isinstance(banker["ev"], Fraction)  # exact until the publishing edge
    assert banker["house_edge"] == -banker["ev"]
    assert banker["rtp"] == 1 + banker["ev"]
    assert sum(banker["probabilities"].values()) == 1
    message: Any = MESSAGE_MODELS["odds"].model_validate(
        envelope("odds", payload, table_id="T07", seq=5, ts="2026-01-01T00:00:00Z")
    )
    assert message.round_no == 3
    assert message.cards_left == 412
    assert message.bets["banker"].house_edge == pytest.approx(float(banker["house_edge"]))


# --- edge_positive --------------------------------------------------------------------------------


def test_pair_edge_matches_a_direct_count_of_pairs() -> None:
    rng = random.Random(3)
    composition = Composition.full(8).without(fair_shoe(8, rng)[:200])
    edges = edges_for(composition)
    # player_pair pays 11 to 1: ev = 11 p - (1 - p).
    assert edges.bets["player_pair"].ev == 12 * pair_probability(composition) - 1


def test_no_finding_while_the_house_has_the_edge_on_every_bet() -> None:
    edges = edges_for(Composition.full(8))
    assert positive_edges(edges, COMMISSION.bet_ids) == ()


def test_a_bet_below_the_threshold_is_named_with_its_edge_and_round() -> None:
    # Every Q and K gone: a pair is more likely than 1 in 12, so 11 to 1 favours the player.
    gone = [card for card in all_cards() if card.rank in "QK" for _ in range(8)]
    composition = Composition.full(8).without(gone)
    edges = edges_for(composition, round_no=17, shoe_id="S-9")
    findings = positive_edges(edges, COMMISSION.offered_on(17))
    assert {f.bet_id for f in findings} == {"player_pair", "banker_pair"}
    finding = findings[0]
    assert finding.house_edge == 1 - 12 * pair_probability(composition) < 0
    assert finding.round_no == 17
    assert finding.round_id == "S-9-17"
    assert finding.alarm_details() == {
        "shoe_id": "S-9",
        "round_no": 17,
        "bet": "player_pair",
        "house_edge": finding.house_edge,
    }
    assert finding.message.startswith("player_pair: house edge -")
    assert "round 17 of shoe S-9" in finding.message


def test_only_offered_bets_are_reported() -> None:
    gone = [card for card in all_cards() if card.rank in "QK" for _ in range(8)]
    edges = edges_for(Composition.full(8).without(gone), round_no=61)
    assert positive_edges(edges, COMMISSION.offered_on(61)) == ()  # pairs close after 60


def test_the_threshold_is_configurable() -> None:
    edges = edges_for(Composition.full(8))
    banker_edge = edges.house_edge("banker")
    strict = positive_edges(edges, ["banker"], threshold=banker_edge + Fraction(1, 10**9))
    assert [f.bet_id for f in strict] == ["banker"]
    assert positive_edges(edges, ["banker"], threshold=banker_edge) == ()


def test_the_watch_alarms_once_per_crossing() -> None:
    gone = [card for card in all_cards() if card.rank in "QK" for _ in range(8)]
    positive = Composition.full(8).without(gone)
    fair = Composition.full(8)
    watch = EdgeWatch()
    history: list[tuple[int, list[str]]] = []
    for round_no, composition in enumerate([fair, positive, positive, fair, positive], start=1):
        edges = edges_for(composition, round_no=round_no)
        watch, alarms = watch.observe(edges, ["player", "player_pair"])
        history.append((round_no, [a.bet_id for a in alarms]))
    assert history == [(1, []), (2, ["player_pair"]), (3, []), (4, []), (5, ["player_pair"])]


def test_a_new_shoe_starts_the_watch_afresh() -> None:
    gone = [card for card in all_cards() if card.rank in "QK" for _ in range(8)]
    positive = Composition.full(8).without(gone)
    watch, first = EdgeWatch().observe(edges_for(positive, 5, "S-1"), ["player_pair"])
    watch, second = watch.observe(edges_for(positive, 1, "S-2"), ["player_pair"])
    assert [a.bet_id for a in first] == [a.bet_id for a in second] == ["player_pair"]


# --- dynamic windows ------------------------------------------------------------------------------


def positive_pairs() -> Composition:
    gone = [card for card in all_cards() if card.rank in "QK" for _ in range(8)]
    return Composition.full(8).without(gone)


def test_dynamic_windows_suspend_a_bet_while_the_player_has_the_edge_and_say_so() -> None:
    windows = DynamicWindows()
    edges = edges_for(positive_pairs(), round_no=12)
    offer = windows.decide(COMMISSION, shoe_id="S-1", round_no=12, edges=edges)
    assert not offer.fallback
    assert [s.bet_id for s in offer.suspended] == ["player_pair", "banker_pair"]
    assert "player_pair" not in offer.offered
    assert {"player", "banker", "tie", "big", "small"} <= set(offer.offered)
    payload = offer.payload()
    assert payload["bets_suspended"] == [
        {"bet": "player_pair", "house_edge": edges.house_edge("player_pair")},
        {"bet": "banker_pair", "house_edge": edges.house_edge("banker_pair")},
    ]


def test_dynamic_windows_offer_the_bet_again_when_the_edge_turns_back() -> None:
    windows = DynamicWindows()
    first = windows.decide(
        COMMISSION, shoe_id="S-1", round_no=12, edges=edges_for(positive_pairs(), 12)
    )
    second = windows.decide(
        COMMISSION,
        shoe_id="S-1",
        round_no=13,
        edges=edges_for(Composition.full(8).without(cards("AS 2S")), 13),
        previous=first,
    )
    assert second.suspended == ()
    assert second.resumed == ("player_pair", "banker_pair")
    assert "player_pair" in second.offered


def test_without_fixed_windows_side_bets_stay_open_while_the_house_has_the_edge() -> None:
    edges = edges_for(Composition.full(8), round_no=45)
    dynamic = DynamicWindows().decide(COMMISSION, shoe_id="S-1", round_no=45, edges=edges)
    fixed = DynamicWindows(keep_fixed_windows=True).decide(
        COMMISSION, shoe_id="S-1", round_no=45, edges=edges
    )
    assert "big" in dynamic.offered  # the fixed window closes big after round 30
    assert "big" not in fixed.offered
    assert fixed.offered == COMMISSION.offered_on(45)


def test_main_bets_are_never_suspended_unless_configured() -> None:
    # A threshold of a 100 % edge puts every bet "below" it: only the rule decides.
    edges = edges_for(Composition.full(8), round_no=1)
    windows = DynamicWindows(threshold=Fraction(1))  # every bet "below" a 100 % edge
    offer = windows.decide(COMMISSION, shoe_id="S-1", round_no=1, edges=edges)
    assert set(offer.offered) == set(MAIN_BETS)
    everything = DynamicWindows(threshold=Fraction(1), never_suspended=frozenset())
    offer = everything.decide(COMMISSION, shoe_id="S-1", round_no=1, edges=edges)
    assert offer.offered == ()


def test_missing_or_stale_edges_fall_back_to_the_fixed_windows_keeping_suspensions() -> None:
    windows = DynamicWindows()
    suspended = windows.decide(
        COMMISSION, shoe_id="S-1", round_no=12, edges=edges_for(positive_pairs(), 12)
    )
    stale = edges_for(Composition.full(8), round_no=12)  # computed for the round before
    for edges in (None, stale):
        offer = windows.decide(
            COMMISSION, shoe_id="S-1", round_no=13, edges=edges, previous=suspended
        )
        assert offer.fallback
        assert offer.suspended == suspended.suspended
        expected = tuple(b for b in COMMISSION.offered_on(13) if not b.endswith("_pair"))
        assert offer.offered == expected


def test_a_previous_offer_of_another_shoe_is_ignored() -> None:
    windows = DynamicWindows()
    old = windows.decide(
        COMMISSION, shoe_id="S-1", round_no=40, edges=edges_for(positive_pairs(), 40, "S-1")
    )
    offer = windows.decide(COMMISSION, shoe_id="S-2", round_no=1, edges=None, previous=old)
    assert offer.offered == COMMISSION.offered_on(1)
    assert offer.suspended == ()


@pytest.mark.parametrize("variant", [COMMISSION, SUPER_SIX, LUCKY], ids=lambda v: v.name)
def test_settling_on_the_fixed_offer_is_settle_round(variant: Variant) -> None:
    coup = Coup.from_cards(cards("2D 4C 3H 2S 9H"))
    for round_no in (1, 35, 61):
        offer = RoundOffer(shoe_id="S-1", round_no=round_no, offered=variant.offered_on(round_no))
        assert settle_offered(variant, coup, offer) == settle_round(variant, coup, round_no)


def test_a_suspended_bet_settles_as_not_offered_and_a_late_one_settles() -> None:
    coup = Coup.from_cards(cards("2D 4C 3H 2S 9H"))
    offer = RoundOffer(shoe_id="S-1", round_no=50, offered=("player", "banker", "tie", "big"))
    settlement = settle_offered(COMMISSION, coup, offer)
    assert settlement["player_pair"] == NOT_OFFERED
    assert coup.cards_dealt == 5
    assert settlement["big"] == Fraction(1, 2)  # offered past its fixed window
    assert settle_round(COMMISSION, coup, 50)["big"] == NOT_OFFERED


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dealt=st.integers(0, 400))
def test_edge_positive_means_positive_expected_value(seed: int, dealt: int) -> None:
    shoe = fair_shoe(8, random.Random(seed))
    left = shoe_left(8, shoe[:dealt])
    assert isinstance(left, ShoeLeft)
    edges = round_edges(COMMISSION, shoe_id="S", round_no=1, left=left)
    assert isinstance(edges, RoundEdges)
    for finding in positive_edges(edges, COMMISSION.bet_ids):
        assert isinstance(finding, EdgePositive)
        assert edges.bets[finding.bet_id].ev > 0
    for bet_id, odds in edges.bets.items():
        assert odds.house_edge == -odds.ev
        assert sum(odds.probabilities.values()) == 1, bet_id
