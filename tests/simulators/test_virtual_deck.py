# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The virtual shoe's deck (pure) and the adapter that orders it (seeded, secure, stacked)."""

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulators.virtual_shoe.deck import (
    CardDrawn,
    CutCardDrawn,
    Shoe,
    ShoeEmpty,
    deck_codes,
    default_cut_depth,
    normalise_card_code,
    unshuffled_codes,
)
from simulators.virtual_shoe.shuffle import (
    StackError,
    parse_stack,
    read_stack,
    secure_order,
    seeded_order,
)


def test_one_deck_holds_each_of_the_52_cards_once() -> None:
    codes = deck_codes()
    assert len(codes) == 52
    assert len(set(codes)) == 52
    assert {code[0] for code in codes} == set("A23456789TJQK")
    assert {code[1] for code in codes} == set("SHDC")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("QH", "QH"),
        ("qh", "QH"),
        (" 10s ", "TS"),
        ("TD", "TD"),
        ("1S", None),
        ("QX", None),
        ("", None),
        ("10", None),
        ("QHH", None),
    ],
)
def test_card_codes_are_normalised_or_refused(text: str, code: str | None) -> None:
    assert normalise_card_code(text) == code


def test_a_shoe_deals_its_cards_in_order_with_the_cut_card_after_the_given_depth() -> None:
    shoe = Shoe(cards=["AS", "2H", "3D", "4C"], cut_depth=2)
    draws = [shoe.draw() for _ in range(6)]
    assert draws == [
        CardDrawn(card="AS"),
        CardDrawn(card="2H"),
        CutCardDrawn(),
        CardDrawn(card="3D"),
        CardDrawn(card="4C"),
        ShoeEmpty(),
    ]
    assert shoe.remaining == 0
    assert shoe.drawn == 4
    assert shoe.cut_card_drawn


def test_the_cut_card_can_sit_in_front_or_at_the_very_back() -> None:
    front = Shoe(cards=["AS", "2H"], cut_depth=0)
    assert front.draw() == CutCardDrawn()
    back = Shoe(cards=["AS", "2H"], cut_depth=2)
    assert [back.draw() for _ in range(4)] == [
        CardDrawn(card="AS"),
        CardDrawn(card="2H"),
        CutCardDrawn(),
        ShoeEmpty(),
    ]


def test_a_shoe_without_a_cut_card_never_deals_one() -> None:
    shoe = Shoe(cards=["AS", "2H"], cut_depth=None)
    assert list(shoe.draw_all()) == [CardDrawn(card="AS"), CardDrawn(card="2H")]
    assert shoe.draw() == ShoeEmpty()


@pytest.mark.parametrize(
    ("cards", "depth", "message"),
    [
        (["AS", "ZZ"], 1, "not card codes"),
        (["AS"], 2, "cut depth 2"),
        (["AS"], -1, "cut depth -1"),
        (["as"], 0, "not card codes"),
    ],
)
def test_an_impossible_shoe_is_refused(cards: list[str], depth: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Shoe(cards=cards, cut_depth=depth)


def test_the_default_cut_card_lies_fourteen_cards_from_the_back() -> None:
    assert default_cut_depth(416) == 402
    assert default_cut_depth(10) == 0


@given(
    cards=st.lists(st.sampled_from(deck_codes()), max_size=60),
    depth_fraction=st.floats(min_value=0, max_value=1),
)
def test_drawing_a_whole_shoe_gives_every_card_once_in_order_and_one_cut_card(
    cards: list[str], depth_fraction: float
) -> None:
    depth = round(len(cards) * depth_fraction)
    draws = list(Shoe(cards=cards, cut_depth=depth).draw_all())
    assert draws.index(CutCardDrawn()) == depth
    assert [d.card for d in draws if isinstance(d, CardDrawn)] == cards
    assert len(draws) == len(cards) + 1


def test_a_seed_always_gives_the_same_shuffle_of_every_card() -> None:
    first = seeded_order(8, seed=42)
    assert first == seeded_order(8, seed=42)
    assert first != seeded_order(8, seed=43)
    assert Counter(first) == Counter(unshuffled_codes(8))
    assert first != unshuffled_codes(8)


def test_the_secure_shuffle_holds_every_card_and_differs_between_shoes() -> None:
    first, second = secure_order(8), secure_order(8)
    assert Counter(first) == Counter(unshuffled_codes(8))
    # Two equal shuffles of 416 cards have a probability far below 1e-800.
    assert first != second


def test_a_shoe_holds_at_least_one_deck() -> None:
    with pytest.raises(ValueError, match="at least one deck"):
        unshuffled_codes(0)


def test_a_stack_lists_cards_one_or_several_a_line_with_comments() -> None:
    text = "# the first coup\nAS 2h, 10D\n\n  KC # a comment\n#only a comment\nqs,\n"
    assert parse_stack(text) == ("AS", "2H", "TD", "KC", "QS")


@pytest.mark.parametrize(
    ("text", "message"),
    [("AS\nKC XX\n", "line 2: 'XX' is not a card"), ("# nothing\n\n", "lists no card")],
)
def test_a_bad_stack_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(StackError, match=message):
        parse_stack(text)


def test_a_stack_file_is_read_and_a_missing_one_named(tmp_path: Path) -> None:
    path = tmp_path / "stack.txt"
    path.write_text("9H 9H 9H\n", encoding="utf-8")
    assert read_stack(path) == ("9H", "9H", "9H")
    with pytest.raises(StackError, match="cannot read stack file"):
        read_stack(tmp_path / "missing.txt")
    path.write_text("9H 1\n", encoding="utf-8")
    with pytest.raises(StackError, match=r"stack\.txt: line 1"):
        read_stack(path)
