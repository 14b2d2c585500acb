# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
import pytest

from table_controller.rules.cards import (
    Card,
    CardError,
    Colour,
    all_cards,
    hand_total,
    is_pair,
    parse_cards,
)


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("QH", "Q", "H"),
        ("AS", "A", "S"),
        ("TD", "T", "D"),
        ("9S", "9", "S"),
    ],
)
def test_parse_accepts_shoe_codes(text: str, rank: str, suit: str) -> None:
    assert Card.parse(text) == Card(rank, suit)


@pytest.mark.parametrize(
    "text",
    ["", "Q", "QX", "1H", "11H", "HQ", "QHH", "ZZ", "10", "0H", "Q H", "qh", "5h", "10H", " 9S"],
)
def test_parse_refuses_anything_else_naming_the_text(text: str) -> None:
    with pytest.raises(CardError, match=repr(text).replace("\\", "\\\\")):
        Card.parse(text)


def test_parse_refuses_non_text() -> None:
    with pytest.raises(CardError, match="not a card"):
        Card.parse(12)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("code", "point"),
    [("AS", 1), ("2H", 2), ("5D", 5), ("9C", 9), ("TS", 0), ("JH", 0), ("QD", 0), ("KC", 0)],
)
def test_points(code: str, point: int) -> None:
    assert Card.parse(code).point == point


@pytest.mark.parametrize(
    ("code", "count"),
    [("AS", 1), ("7H", 7), ("9C", 9), ("TS", 10), ("JH", 10), ("QD", 10), ("KC", 10)],
)
def test_burn_counts_face_cards_as_ten(code: str, count: int) -> None:
    assert Card.parse(code).burn_count == count


def test_colours() -> None:
    assert [Card.parse(c).colour for c in ("AH", "AD", "AS", "AC")] == [
        Colour.RED,
        Colour.RED,
        Colour.BLACK,
        Colour.BLACK,
    ]


def test_pairs_are_by_rank_not_points() -> None:
    qs, qh, ts, ks = parse_cards(["QS", "QH", "TS", "KS"])
    assert is_pair(qs, qh)
    assert not is_pair(ts, ks)


def test_hand_total_is_modulo_ten() -> None:
    assert hand_total([7, 8]) == 5
    assert hand_total([9, 9, 9]) == 7
    assert hand_total([0, 0]) == 0


def test_the_deck_has_52_distinct_cards_and_codes_round_trip() -> None:
    cards = list(all_cards())
    assert len(set(cards)) == 52
    assert all(Card.parse(card.code) == card for card in cards)
    assert sum(card.point for card in cards) == 4 * 45
