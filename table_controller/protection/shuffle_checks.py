# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Shuffle integrity: a shoe too orderly for a fair shuffle (its runs, their chances, the limits).

Pure: no I/O, no clock, no randomness. Probabilities are computed, not sampled.

**Too orderly (``shuffle_pattern``).** Three detectors look at the cards in the order they left
the shoe (burn cards included; an unread card, ``None``, breaks every run):

* the longest run of *consecutive ranks*, ascending or descending by one in the rank order
  ``A23456789TJQK`` (no wrap from K to A), e.g. ``4H 5S 6S 7D``;
* the longest run of *one rank*, e.g. ``QH QS QD``;
* the longest run of *one suit*.

Each detector flags a run at least as long as its limit. The limits come from a configurable
false-alarm rate ``alpha``: the probability that a fairly shuffled shoe raises *any* of the three
alarms is at most ``alpha``. How the chance of a run is known, for a uniformly random
permutation of the full shoe (``decks`` copies of each of the 52 cards):

* *One rank, one suit: exact.* The number of arrangements of a multiset whose runs are all
  shorter than ``k`` is a coefficient of a generating function: a word is a sequence of
  maximal blocks, no two neighbours of one letter (a Smirnov word, generating function
  ``1 / (1 - sum x_i / (1 + x_i))``), each block 1 to ``k - 1`` letters long. Substituting
  the block series gives ``1 / (1 - sum g(x_i))`` with ``g(x) = x (1 - x^(k-1)) / (1 - x^k)``;
  expanding it, the count is ``sum over (m_i) of multinomial(m_1 + ... ; m_i) * prod [x^n_i]
  g(x)^m_i``, computed in exact integers by folding in one letter at a time. Divided by the
  number of arrangements, it is the exact probability (checked against brute-force enumeration
  of small multisets in the tests).
* *Consecutive ranks: an upper bound* (Boole's inequality). Let ``N_k`` be the number of
  places where a maximal run of length ``>= k`` *starts*: ``k`` cards ascending by one, not
  preceded by the rank below (likewise descending). Its expectation is exact under the
  permutation model, since ``k`` given positions hold ranks ``r, r+1, ..., r+k-1`` with
  probability ``(4 d)^k / (N (N-1) ... (N-k+1))``; and ``P(longest >= k) <= E[N_k]``. At the
  levels that are alarmed on the bound is tight: ``1 - exp(-E[N_k])`` (the Poisson clumping
  estimate) differs from it by under 1 %. The expectation is checked against enumeration of
  every arrangement of small multisets in the tests. Measured over 200,000 seeded 8-deck shoes
  (``python -m tests.protection.measure_false_alarms --shoes 200000``), chance of a run
  ``>= k``: ``k = 5``: bound 0.01905, measured 0.01949 +- 0.00031; ``k = 6``: bound 0.001316,
  measured 0.00144 +- 0.00008; ``k = 7``: bound 0.000090, measured 0.000060 +- 0.00002: all
  within two standard errors of the bound (the mean of ``N_k`` in the same run: 0.01965 and
  0.00145 against the exact 0.01905 and 0.001316, also within two).

The limits are for the *whole* shoe. The cards actually dealt are a prefix of it (the cards
behind the cut card are never seen) and unread cards only break runs, so the longest run seen
is never longer than the whole shoe's: the false-alarm rate is at most ``alpha`` at any point
of the shoe, however often the check runs. Checking after each round costs no extra false
alarms; a run flagged once stays flagged.

Splitting ``alpha``: each detector starts at the shortest length whose chance is at most
``alpha / 3``; then, while the sum of the three chances stays within ``alpha``, the detector
whose limit can come down by one card for the smallest added chance does so. The sum (a union
bound) is :attr:`ShuffleLimits.designed_rate`.

The repeated shoe (``shoe_repeated``) is checked in
:mod:`~table_controller.protection.shoe_repeats`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import ClassVar, Final

from table_controller.rules import RANKS, SUITS, Card

#: Default chance that a fair shoe raises a ``shuffle_pattern`` alarm: about one false alarm in a
#: thousand shoes.
DEFAULT_FALSE_ALARM_RATE: Final = 0.001
_RANK_INDEX: Final = {rank: index for index, rank in enumerate(RANKS)}
_SUIT_INDEX: Final = {suit: index for index, suit in enumerate(SUITS)}


class RunKind(enum.StrEnum):
    """What makes a run of cards orderly."""

    #: Ranks rising or falling by one, A23456789TJQK, e.g. ``4H 5S 6S 7D``.
    CONSECUTIVE_RANKS = "consecutive_ranks"
    #: One rank, e.g. ``QH QS QD``.
    ONE_RANK = "one_rank"
    #: One suit, e.g. ``2H 9H KH``.
    ONE_SUIT = "one_suit"


_KIND_WORDS: Final = {
    RunKind.CONSECUTIVE_RANKS: "consecutive ranks",
    RunKind.ONE_RANK: "cards of one rank",
    RunKind.ONE_SUIT: "cards of one suit",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """A stretch of cards that left the shoe one after another."""

    kind: RunKind
    #: Index of the run's first card in the shoe's sequence (0 is the first card out).
    start: int
    cards: tuple[Card, ...]

    @property
    def length(self) -> int:
        return len(self.cards)

    def describe(self) -> str:
        """E.g. ``cards 12-15 (4H 5S 6S 7D)``, counting the shoe's cards from 1."""
        codes = " ".join(card.code for card in self.cards)
        return f"cards {self.start + 1}-{self.start + self.length} ({codes})"


def _values(cards: Sequence[Card | None], kind: RunKind) -> list[int | None]:
    """Each card as the number a run compares: its rank's index, or its suit's."""
    if kind is RunKind.ONE_SUIT:
        return [None if card is None else _SUIT_INDEX[card.suit] for card in cards]
    return [None if card is None else _RANK_INDEX[card.rank] for card in cards]


def longest_run(cards: Sequence[Card | None], kind: RunKind) -> Run | None:
    """The first longest run of this kind; ``None`` when no card was read.

    An unread card (``None``) ends every run: a run is only what the reader saw.
    """
    values = _values(cards, kind)
    # A run steps by +1 or -1 rank (consecutive ranks), or by 0 (one rank, one suit).
    steps = (1, -1) if kind is RunKind.CONSECUTIVE_RANKS else (0,)
    best_start, best_length = 0, 0
    for step in steps:
        start = 0
        previous: int | None = None
        for index, value in enumerate(values):
            if value is None:
                previous = None
                continue
            if previous is None or value - previous != step:
                start = index
            previous = value
            length = index - start + 1
            if length > best_length or (length == best_length and start < best_start):
                best_start, best_length = start, length
    if not best_length:
        return None
    run_cards = tuple(c for c in cards[best_start : best_start + best_length] if c is not None)
    return Run(kind=kind, start=best_start, cards=run_cards)


# --- the chance of a run in a fair shoe ------------------------------------------------------


def _block_coefficients(n: int, k: int) -> tuple[int, ...]:
    """``[x^n] g(x)^m`` for ``m = 0..n``, with ``g(x) = x (1 - x^(k-1)) / (1 - x^k)``.

    Signed integers (inclusion-exclusion): the letter's share in the count of arrangements of a
    multiset whose runs are all shorter than ``k``.
    """
    power = [1] + [0] * n  # g(x)^m truncated after x^n, starting from m = 0
    coefficients = [power[n]]
    for _ in range(n):
        shifted = [0, *power[:-1]]  # times x
        product = list(shifted)
        for j in range(k - 1, n + 1):  # times (1 - x^(k-1))
            product[j] -= shifted[j - (k - 1)]
        for j in range(k, n + 1):  # divided by (1 - x^k): a running sum with stride k
            product[j] += product[j - k]
        power = product
        coefficients.append(power[n])
    return tuple(coefficients)


def _arrangements(counts: Sequence[int]) -> int:
    total = math.factorial(sum(counts))
    for count in counts:
        total //= math.factorial(count)
    return total


@cache
def probability_all_runs_shorter(counts: tuple[int, ...], length: int) -> Fraction:
    """Exact chance that a uniformly random arrangement of this multiset has no run ``>= length``.

    ``counts`` is how many copies of each letter; a run is a stretch of one letter.
    """
    if length <= 1:
        return Fraction(0) if sum(counts) else Fraction(1)
    # A new letter's m blocks interleave with b earlier ones in (b + m)! / (b! m!) ways, so the
    # signed count of arrangements as b blocks is kept divided by b!: folding a letter in is
    # then a plain product of polynomials. Its coefficients are scaled by count! / m! to stay
    # integers; ``scale`` is the product of those count!.
    by_blocks = [1]
    scale = 1
    for count in counts:
        top = math.factorial(count)
        letter = [
            (more, coefficient * (top // math.factorial(more)))
            for more, coefficient in enumerate(_block_coefficients(count, length))
            if coefficient
        ]
        folded = [0] * (len(by_blocks) + count)
        for blocks, ways in enumerate(by_blocks):
            if ways:
                for more, coefficient in letter:
                    folded[blocks + more] += ways * coefficient
        by_blocks = folded
        scale *= top
    total = sum(ways * math.factorial(blocks) for blocks, ways in enumerate(by_blocks) if ways)
    return Fraction(total, scale * _arrangements(counts))


def falling(n: int, k: int) -> int:
    """The falling factorial ``n (n - 1) ... (n - k + 1)``."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


def _expected_runs(ranks: int, copies: int, length: int) -> Fraction:
    """Expected maximal runs ``>= length`` of consecutive values, both directions.

    In a uniformly random arrangement of ``copies`` cards of each of ``ranks`` values in a row.
    """
    cards = ranks * copies

    def stretch(k: int) -> Fraction:
        """Chance that k given positions in a row ascend by one (any starting rank)."""
        starts = max(ranks - k + 1, 0)
        return Fraction(starts * copies**k, falling(cards, k)) if k <= cards else Fraction(0)

    # Run starts: the first position, then each later position not preceded by the rank below.
    rising = stretch(length) + (cards - length) * (stretch(length) - stretch(length + 1))
    return 2 * rising


def _expected_letter_runs(letters: int, copies: int, length: int) -> Fraction:
    """Expected maximal runs ``>= length`` of one letter.

    In a uniformly random arrangement of ``copies`` of each of ``letters`` letters in a row:
    ``length`` given positions hold one given letter with probability
    ``copies_(length) / N_(length)`` (falling factorials), and a run starts at the first
    position or after another letter.
    """
    cards = letters * copies

    def same(k: int) -> Fraction:
        return Fraction(falling(copies, k), falling(cards, k)) if k <= cards else Fraction(0)

    return letters * (same(length) + (cards - length) * (same(length) - same(length + 1)))


def _tail_bound(kind: RunKind, decks: int, length: int) -> float:
    """An upper bound on :func:`run_tail` that costs next to nothing (Boole's inequality).

    The expected number of runs of ``length`` or more bounds the chance of one. For one rank
    and one suit it is within a few per cent of the exact chance at the lengths alarmed on,
    so the exact computation, the costly part, is needed for a length or two only.
    """
    if length <= 1:
        return 1.0
    if kind is RunKind.CONSECUTIVE_RANKS:
        return run_tail(kind, decks, length)
    if kind is RunKind.ONE_RANK:
        expected = _expected_letter_runs(len(RANKS), len(SUITS) * decks, length)
    else:
        expected = _expected_letter_runs(len(SUITS), len(RANKS) * decks, length)
    return min(float(expected), 1.0)


def _shortest_within(kind: RunKind, decks: int, rate: float) -> int:
    """The shortest run length (2 or more) whose :func:`run_tail` is at most ``rate``.

    The tail falls as the length grows. The cheap bound gives a length that is surely within
    the rate; the exact tails then walk down from it while the shorter length still is.
    """
    length = 2
    while _tail_bound(kind, decks, length) > rate:
        length += 1
    while length > 2 and run_tail(kind, decks, length - 1) <= rate:
        length -= 1
    return length


def expected_consecutive_runs(decks: int, length: int) -> Fraction:
    """Exact expected number of maximal runs of ``length`` or more consecutive ranks.

    Both directions, in a fairly shuffled shoe of ``decks`` decks: an upper bound on the
    chance that there is one.
    """
    return _expected_runs(len(RANKS), len(SUITS) * decks, length)


@cache
def run_tail(kind: RunKind, decks: int, length: int) -> float:
    """Chance that a fairly shuffled shoe of ``decks`` decks has a run of ``length`` or more.

    Exact for one rank and one suit; for consecutive ranks an upper bound, tight at the
    levels alarmed on (see the module docstring for its measured accuracy).
    """
    if decks < 1:
        raise ValueError(f"decks must be >= 1, got {decks}")
    if length <= 1:
        return 1.0
    if kind is RunKind.CONSECUTIVE_RANKS:
        return min(float(expected_consecutive_runs(decks, length)), 1.0)
    if kind is RunKind.ONE_RANK:
        counts = (len(SUITS) * decks,) * len(RANKS)
    else:
        counts = (len(RANKS) * decks,) * len(SUITS)
    return float(1 - probability_all_runs_shorter(counts, length))


# --- limits ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RunLimit:
    """The shortest run of one kind that is flagged, and how often a fair shoe has one."""

    kind: RunKind
    length: int
    #: Chance that a fair shoe has a run at least ``length`` long: exact, or an upper bound.
    false_alarm_rate: float
    #: False when ``false_alarm_rate`` is an upper bound (consecutive ranks).
    exact: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ShuffleLimits:
    """The run limits of a shoe of ``decks`` decks for a configured false-alarm rate."""

    decks: int
    #: The configured chance that a fair shoe raises any ``shuffle_pattern`` alarm.
    false_alarm_rate: float
    limits: Mapping[RunKind, RunLimit]

    @property
    def designed_rate(self) -> float:
        """Sum of the detectors' chances: a bound on the real rate, at most the configured one."""
        return math.fsum(limit.false_alarm_rate for limit in self.limits.values())


def check_rate(rate: float) -> None:
    """Refuse a false-alarm rate outside (0, 1)."""
    if not 0 < rate < 1:
        raise ValueError(f"a false-alarm rate must be between 0 and 1, got {rate}")


@cache
def shuffle_limits(decks: int, false_alarm_rate: float = DEFAULT_FALSE_ALARM_RATE) -> ShuffleLimits:
    """The run limits for shoes of ``decks`` decks (computed once per setting and process)."""
    check_rate(false_alarm_rate)
    share = false_alarm_rate / len(RunKind)
    lengths = {kind: _shortest_within(kind, decks, share) for kind in RunKind}

    def total(candidate: Mapping[RunKind, int]) -> float:
        return math.fsum(run_tail(kind, decks, length) for kind, length in candidate.items())

    while True:
        options = []
        for kind, length in lengths.items():
            if length <= 2:
                continue
            lowered = {**lengths, kind: length - 1}
            if total(lowered) <= false_alarm_rate:
                added = run_tail(kind, decks, length - 1) - run_tail(kind, decks, length)
                options.append((added, list(RunKind).index(kind), kind))
        if not options:
            break
        _, _, kind = min(options)
        lengths[kind] -= 1
    limits = {
        kind: RunLimit(
            kind=kind,
            length=length,
            false_alarm_rate=run_tail(kind, decks, length),
            exact=kind is not RunKind.CONSECUTIVE_RANKS,
        )
        for kind, length in lengths.items()
    }
    return ShuffleLimits(decks=decks, false_alarm_rate=false_alarm_rate, limits=limits)


# --- shuffle_pattern ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ShufflePattern:
    """A run longer than a fair shuffle allows at the configured false-alarm rate."""

    CODE: ClassVar[str] = "shuffle_pattern"

    run: Run
    limit: RunLimit
    decks: int
    #: Chance that a fair shoe has a run of this kind at least this long (exact, or at most).
    p_value: float

    @property
    def message(self) -> str:
        run = self.run
        chance = f"{self.p_value:.2g}" if self.limit.exact else f"at most {self.p_value:.2g}"
        return (
            f"shuffle too orderly: {run.length} {_KIND_WORDS[run.kind]} in a row, "
            f"{run.describe()}; a fair shuffle of {self.decks} decks has a run that long "
            f"with probability {chance} (alarm from {self.limit.length})"
        )

    def alarm_details(self) -> dict[str, object]:
        """The evidence, for the alarm's payload."""
        return {
            "kind": self.run.kind.value,
            "length": self.run.length,
            "first_card_no": self.run.start + 1,
            "cards": [card.code for card in self.run.cards],
            "limit": self.limit.length,
            "p_value": self.p_value,
        }


def check_shuffle(
    cards: Sequence[Card | None], limits: ShuffleLimits
) -> tuple[ShufflePattern, ...]:
    """Every detector whose longest run reaches its limit, in :class:`RunKind` order.

    ``cards`` are the shoe's cards in the order they left it, burn cards included, ``None`` for
    a card the reader could not read.
    """
    findings: list[ShufflePattern] = []
    for kind in RunKind:
        run = longest_run(cards, kind)
        limit = limits.limits[kind]
        if run is not None and run.length >= limit.length:
            p_value = run_tail(kind, limits.decks, run.length)
            findings.append(
                ShufflePattern(run=run, limit=limit, decks=limits.decks, p_value=p_value)
            )
    return tuple(findings)
