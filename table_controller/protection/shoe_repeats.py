# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Shuffle integrity: a shoe whose opening repeats the cards of a recent shoe in the same order.

Pure: no I/O, no clock, no randomness. The too-orderly shoe (``shuffle_pattern``) is checked in
:mod:`~table_controller.protection.shuffle_checks`.

The opening of a new shoe (its first 24 cards by default) is compared with the cards kept of the
last few shoes: the longest run of identical cards that appears in both, at any offsets (a
different burn shifts a repeated order). For two independent fair shuffles, ``m`` given consecutive
cards of one equal ``m`` given consecutive cards of the other with probability at most ``q_m =
prod_{t < m} d / (N - t)`` (the most likely sequence is one of distinct cards), so by Boole's
inequality a common run of length ``m`` somewhere happens with probability at most ``sum over past
shoes of (a - m + 1) (b - m + 1) q_m``. The limit is the shortest ``m`` whose bound is within the
configured rate: a rigorous upper bound on false alarms.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Final

from table_controller.protection.shuffle_checks import check_rate, falling
from table_controller.rules import Card

#: Default chance that a fair shoe raises a ``shoe_repeated`` alarm.
DEFAULT_REPEAT_FALSE_ALARM_RATE: Final = 0.001
#: How many cards of a new shoe's opening are compared with past shoes.
DEFAULT_OPENING_CARDS: Final = 24
#: How many past shoes the runtime is advised to keep for the comparison.
DEFAULT_PAST_SHOES: Final = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class PastShoe:
    """The cards kept of an earlier shoe (its opening, or all of it), in the order dealt."""

    shoe_id: str
    cards: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CommonRun:
    """Cards that left two shoes in the same order."""

    #: Index of the first common card in the new shoe, and in the past one.
    start: int
    past_start: int
    cards: tuple[Card, ...]

    @property
    def length(self) -> int:
        return len(self.cards)


def _match_length(
    new: Sequence[Card | None], past: Sequence[Card | None], start: int, past_start: int
) -> int:
    length = 0
    while start + length < len(new) and past_start + length < len(past):
        card = new[start + length]
        if card is None or card != past[past_start + length]:
            break
        length += 1
    return length


def longest_common_run(new: Sequence[Card | None], past: Sequence[Card | None]) -> CommonRun | None:
    """The longest stretch of identical cards in both sequences (the first found, if tied).

    Unread cards (``None``) match nothing. ``None`` when the sequences share no card at all.
    """
    positions: dict[Card, list[int]] = {}
    for index, card in enumerate(past):
        if card is not None:
            positions.setdefault(card, []).append(index)
    best: tuple[int, int, int] | None = None  # (length, start, past_start)
    for start, card in enumerate(new):
        if card is None:
            continue
        for past_start in positions.get(card, ()):
            # Only maximal matches: a start whose predecessors match is inside a longer one.
            continued = start and past_start and new[start - 1] is not None
            if continued and new[start - 1] == past[past_start - 1]:
                continue
            length = _match_length(new, past, start, past_start)
            if best is None or length > best[0]:
                best = (length, start, past_start)
    if best is None:
        return None
    length, start, past_start = best
    common = tuple(card for card in new[start : start + length] if card is not None)
    return CommonRun(start=start, past_start=past_start, cards=common)


def _same_start(new: Sequence[Card | None], past: Sequence[Card | None]) -> int:
    same = 0
    for mine, theirs in zip(new, past, strict=False):
        if mine is None or mine != theirs:
            break
        same += 1
    return same


def repeat_bound(new_length: int, past_lengths: Iterable[int], decks: int, length: int) -> float:
    """Upper bound on the chance that fair shoes share a run of ``length`` identical cards.

    ``new_length`` cards of the new shoe are compared with each past shoe's kept cards.
    """
    if length < 1:
        return 1.0
    cards = 52 * decks
    if length > cards:
        return 0.0
    match = Fraction(decks**length, falling(cards, length))
    pairs = sum(
        max(new_length - length + 1, 0) * max(past - length + 1, 0) for past in past_lengths
    )
    return min(float(pairs * match), 1.0)


def repeat_limit(new_length: int, past_lengths: Sequence[int], decks: int, rate: float) -> int:
    """The shortest common run that is flagged: its :func:`repeat_bound` is within ``rate``."""
    check_rate(rate)
    length = 1
    while repeat_bound(new_length, past_lengths, decks, length) > rate:
        length += 1
    return length


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeRepeated:
    """A new shoe's opening repeats cards of a recent shoe in the same order."""

    CODE: ClassVar[str] = "shoe_repeated"

    shoe_id: str
    past_shoe_id: str
    common: CommonRun
    #: How many cards both shoes start with, position by position.
    same_start: int
    limit: int
    #: Upper bound on the chance that fair shuffles share a run this long.
    p_bound: float

    @property
    def message(self) -> str:
        common = self.common
        codes = " ".join(card.code for card in common.cards)
        where = (
            f"both from card {common.start + 1}"
            if common.start == common.past_start
            else f"cards {common.start + 1}- of {self.shoe_id}, "
            f"cards {common.past_start + 1}- of {self.past_shoe_id}"
        )
        return (
            f"shoe {self.shoe_id} repeats shoe {self.past_shoe_id}: {common.length} cards in "
            f"the same order ({where}: {codes}); fair shuffles do this with probability "
            f"below {self.p_bound:.2g} (alarm from {self.limit})"
        )

    def alarm_details(self) -> dict[str, object]:
        """The evidence, for the alarm's payload."""
        return {
            "past_shoe_id": self.past_shoe_id,
            "length": self.common.length,
            "first_card_no": self.common.start + 1,
            "past_first_card_no": self.common.past_start + 1,
            "cards": [card.code for card in self.common.cards],
            "same_start": self.same_start,
            "limit": self.limit,
            "p_bound": self.p_bound,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RepeatCheck:
    """How a new shoe is compared with past ones."""

    decks: int
    false_alarm_rate: float = DEFAULT_REPEAT_FALSE_ALARM_RATE
    #: How many of the new shoe's first cards are compared.
    opening_cards: int = DEFAULT_OPENING_CARDS

    def __post_init__(self) -> None:
        check_rate(self.false_alarm_rate)
        if self.decks < 1 or self.opening_cards < 1:
            raise ValueError("decks and opening_cards must be >= 1")


def check_repeated(
    shoe_id: str, cards: Sequence[Card | None], past: Sequence[PastShoe], check: RepeatCheck
) -> tuple[ShoeRepeated, ...]:
    """One finding per past shoe whose cards share a run with this shoe's opening.

    ``cards`` are the new shoe's cards in order (only the first ``check.opening_cards`` are
    used), so the runtime calls this once those are out. The limit accounts for every past
    shoe passed.
    """
    opening = tuple(cards[: check.opening_cards])
    lengths = [len(shoe.cards) for shoe in past]
    limit = repeat_limit(len(opening), lengths, check.decks, check.false_alarm_rate)
    findings: list[ShoeRepeated] = []
    for shoe in past:
        common = longest_common_run(opening, shoe.cards)
        if common is None or common.length < limit:
            continue
        findings.append(
            ShoeRepeated(
                shoe_id=shoe_id,
                past_shoe_id=shoe.shoe_id,
                common=common,
                same_start=_same_start(opening, shoe.cards),
                limit=limit,
                p_bound=repeat_bound(len(opening), lengths, check.decks, common.length),
            )
        )
    return tuple(findings)
