# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the hot path works out once and keeps gives what working it out afresh gives.

The table core keeps a variant's menu per round, the main bets' results per coup outcome, a
coup's outcome, a card count keyed by rank and suit, and the published form of the roads. Each
test here compares the kept answer with one worked out directly from the rules, one bet, one
card or one round at a time, and checks that nothing published changes afterwards.
"""

import copy
import random

from hypothesis import given
from hypothesis import strategies as st

from table_controller.procedure.shoe import CardAccounting
from table_controller.rules.bets import settle
from table_controller.rules.cards import Card, all_cards, hand_total, parse_cards
from table_controller.rules.roads import DerivedRoad, RoadEntry, Scoreboard
from table_controller.rules.tableau import Coup, Outcome, Winner, next_hand
from table_controller.rules.variants import MAX_ROUND, NOT_OFFERED, VARIANTS, Variant, settle_round

_VARIANTS = [*VARIANTS.values(), *(variant.as_virtual() for variant in VARIANTS.values())]


def dealt_coup(seed: int) -> Coup:
    """A complete coup dealt from a freshly shuffled deck."""
    deck = list(all_cards())
    random.Random(seed).shuffle(deck)
    cards: list[Card] = []
    while next_hand([card.point for card in cards]) is not None:
        cards.append(deck.pop())
    return Coup.from_cards(cards)


def settled_bet_by_bet(variant: Variant, coup: Coup, round_no: int) -> dict[str, object]:
    return {
        offer.bet_id: settle(offer.bet_id, coup, offer.payouts)
        if variant.offered(offer.bet_id, round_no) else NOT_OFFERED
        for offer in variant.bets
    }


@given(
    variant=st.sampled_from(_VARIANTS),
    seeds=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=6),
    round_no=st.integers(-3, MAX_ROUND + 5),
)
def test_a_round_settles_as_each_bet_settled_alone(
    variant: Variant, seeds: list[int], round_no: int
) -> None:
    for seed in seeds * 2:  # the second pass meets every outcome already kept
        coup = dealt_coup(seed)
        settlement = settle_round(variant, coup, round_no)
        expected = settled_bet_by_bet(variant, coup, round_no)
        assert settlement == expected
        assert list(settlement) == list(expected)  # menu order
        settlement.clear()  # the caller's own dict: changing it changes no later settlement
        assert settle_round(variant, coup, round_no) == expected


def test_each_round_offers_the_bets_whose_window_holds_it() -> None:
    for variant in _VARIANTS:
        for round_no in range(-2, MAX_ROUND + 4):
            expected = tuple(
                bet_id for bet_id in variant.bet_ids if variant.offered(bet_id, round_no)
            )
            assert variant.offered_on(round_no) == expected, (variant.name, round_no)


def test_the_side_bets_close_after_their_window() -> None:
    commission = VARIANTS["commission"]
    assert "big" in commission.offered_on(30)
    assert "big" not in commission.offered_on(31)
    assert "player_pair" in commission.offered_on(60)
    assert commission.offered_on(61) == ("player", "banker", "tie")
    assert commission.offered_on(0) == ("player", "banker", "tie")
    assert commission.as_virtual().offered_on(500) == commission.bet_ids


@given(seed=st.integers(0, 2**32 - 1))
def test_a_coup_outcome_is_its_hands_totals_and_sizes(seed: int) -> None:
    coup = dealt_coup(seed)
    assert coup.outcome == Outcome(
        player_total=hand_total(card.point for card in coup.player),
        banker_total=hand_total(card.point for card in coup.banker),
        player_cards=len(coup.player),
        banker_cards=len(coup.banker),
    )
    again = Coup(coup.player, coup.banker)
    assert again == coup
    assert hash(again) == hash(coup)
    assert repr(again) == f"Coup(player={coup.player!r}, banker={coup.banker!r})"


def test_a_coup_pair_is_read_from_each_hand_first_two_cards() -> None:
    coup = Coup.from_cards(parse_cards(["4H", "KS", "4C", "QS"]))  # a natural 8
    assert coup.player_pair
    assert not coup.banker_pair  # K and Q are both worth 0 but are not a pair
    assert coup.player_opening.pair == coup.player_pair


def test_card_accounting_takes_each_card_as_often_as_the_decks_hold_it() -> None:
    accounting = CardAccounting(decks=2)
    ace = Card("A", "S")
    assert accounting.take(ace)
    assert accounting.take(Card.parse("AS"))  # an equal card is the same card
    assert accounting.count(ace) == 2
    assert not accounting.admits(ace)
    assert not accounting.take(ace)
    assert accounting.count(ace) == 2  # a refused card is not counted
    assert accounting.count(Card("A", "H")) == 0
    accounting.remove(ace)
    assert accounting.admits(ace)
    accounting.add(ace)
    assert accounting.count(ace) == 2
    accounting.reset()
    assert accounting.count(ace) == 0


_ENTRIES = st.builds(
    RoadEntry,
    winner=st.sampled_from(list(Winner)),
    player_pair=st.booleans(),
    banker_pair=st.booleans(),
    natural=st.booleans(),
    player_total=st.integers(0, 9),
    banker_total=st.integers(0, 9),
)


@given(entries=st.lists(_ENTRIES, max_size=60))
def test_a_published_roads_payload_never_changes_afterwards(entries: list[RoadEntry]) -> None:
    board = Scoreboard()
    published = [board.payload("S-1", 416)]
    kept = [copy.deepcopy(published[0])]
    for entry in entries:
        board.record(entry)
        payload = board.payload("S-1", 416)
        published.append(payload)
        kept.append(copy.deepcopy(payload))
    assert published == kept  # later rounds (ties on the last cell too) changed none of them
    assert Scoreboard.from_entries(entries).payload("S-1", 416) == published[-1]


@given(entries=st.lists(_ENTRIES, max_size=60))
def test_the_typed_roads_read_back_what_is_published(entries: list[RoadEntry]) -> None:
    board = Scoreboard.from_entries(entries)
    payload = board.payload("S-1", None)
    letters = {Winner.BANKER: "B", Winner.PLAYER: "P"}
    assert [
        [{"winner": letters[cell.winner], "ties": cell.ties, "banker_pair": cell.banker_pair,
          "player_pair": cell.player_pair} for cell in column]
        for column in board.big_road
    ] == payload["big_road"]
    for road in DerivedRoad:
        marks = [[mark.value for mark in column] for column in board.derived_road(road)]
        assert marks == payload[road.value], road
