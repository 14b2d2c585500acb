# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The exact edge of every bet before each round, ``edge_positive`` findings, dynamic windows.

Pure: no I/O, no clock, no randomness. Money and probabilities stay
:class:`fractions.Fraction`; the publishing edge turns them into JSON numbers.

How the runtime uses it (the dealing path never waits for the analyser):

1. When a round settles (or is voided), the cards out of the shoe since the last shuffle
   (burn, dealt and discarded cards; ``None`` for an unread one) give :func:`shoe_left`.
2. In an executor, off the event loop: :func:`round_edges` for the next round (about 1 ms;
   every argument is an immutable value, so it is safe on any thread).
3. Back on the loop, if the shoe and round still match: publish :meth:`RoundEdges.payload`
   retained on ``<root>/odds``; feed :meth:`EdgeWatch.observe` for ``edge_positive`` alarms;
   with dynamic windows, :meth:`DynamicWindows.decide` makes the round's offer. An offer
   decided before the edges arrived falls back to the fixed windows (see :class:`RoundOffer`).

Unread cards: a card that left the shoe unseen is, to the next round, exactly like a card
still in the shoe (a fair shuffle makes every unseen card alike), so the odds are those of the
known composition; only ``cards_left`` counts it as gone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Final

from table_controller.rules import (
    BETS,
    DRAWS,
    MAIN_BETS,
    NOT_OFFERED,
    BetOdds,
    Card,
    Composition,
    Coup,
    Variant,
    analyse,
    net_result,
    verdict,
)

#: ``edge_positive`` fires when a bet's house edge drops below this (mqtt-api.md: below zero).
DEFAULT_EDGE_THRESHOLD: Final = Fraction(0)


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:+.3f}%"


# --- what is left in the shoe ------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ImpossibleCount:
    """More cards out than the shoe holds: the composition is unknowable.

    ``card`` is the card seen more often than the shoe holds it; ``None`` when it is the
    number of cards out (read or not) that exceeds the shoe.
    """

    card: Card | None
    seen: int
    held: int

    @property
    def message(self) -> str:
        if self.card is None:
            return f"{self.seen} cards out of a shoe of {self.held}"
        return f"{self.card} seen {self.seen} times; the shoe holds {self.held}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeLeft:
    """What is known of the cards still in the shoe."""

    #: Every card not seen to leave the shoe (cards that left unread are in it).
    composition: Composition
    #: Cards that left the shoe unread.
    unread: int = 0

    @property
    def cards_left(self) -> int:
        return self.composition.total - self.unread


def shoe_left(decks: int, gone: Iterable[Card | None]) -> ShoeLeft | ImpossibleCount:
    """The shoe after ``gone`` left it (burned, dealt, discarded; ``None`` when unread)."""
    seen: Counter[Card] = Counter()
    unread = 0
    for card in gone:
        if card is None:
            unread += 1
        else:
            seen[card] += 1
    for card, count in sorted(seen.items()):
        if count > decks:
            return ImpossibleCount(card=card, seen=count, held=decks)
    composition = Composition.full(decks).without(seen.elements())
    if unread > composition.total:
        out = sum(seen.values()) + unread
        return ImpossibleCount(card=None, seen=out, held=Composition.full(decks).total)
    return ShoeLeft(composition=composition, unread=unread)


# --- the edges of one round ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEdges:
    """Exact odds of every bet on the menu for the next round of a shoe."""

    shoe_id: str
    round_no: int
    cards_left: int
    #: Every bet of the variant, in menu order.
    bets: Mapping[str, BetOdds]

    def house_edge(self, bet_id: str) -> Fraction:
        return self.bets[bet_id].house_edge

    def payload(self) -> dict[str, object]:
        """The ``<root>/odds`` payload without the envelope (``OddsMessage``), Fractions kept."""
        return {
            "shoe_id": self.shoe_id,
            "round_no": self.round_no,
            "cards_left": self.cards_left,
            "bets": {
                bet_id: {
                    "ev": odds.ev,
                    "house_edge": odds.house_edge,
                    "rtp": odds.rtp,
                    "probabilities": dict(odds.probabilities),
                }
                for bet_id, odds in self.bets.items()
            },
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class NoEdges:
    """Why a round has no odds: too few cards left, or an impossible card count."""

    shoe_id: str
    round_no: int
    reason: str


def round_edges(
    variant: Variant, *, shoe_id: str, round_no: int, left: ShoeLeft
) -> RoundEdges | NoEdges:
    """The exact edges of every bet of ``variant`` for round ``round_no`` (about 1 ms).

    Safe to run on a worker thread: every argument is immutable.
    """
    if left.cards_left < DRAWS:
        return NoEdges(
            shoe_id=shoe_id,
            round_no=round_no,
            reason=f"{left.cards_left} cards left; a round may need {DRAWS}",
        )
    odds = analyse(variant, left.composition, with_events=False)
    return RoundEdges(
        shoe_id=shoe_id, round_no=round_no, cards_left=left.cards_left, bets=dict(odds.bets)
    )


# --- edge_positive ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class EdgePositive:
    """An offered bet whose house edge is below the threshold: the player has the edge."""

    CODE: ClassVar[str] = "edge_positive"

    shoe_id: str
    round_no: int
    bet_id: str
    house_edge: Fraction
    threshold: Fraction

    @property
    def round_id(self) -> str:
        return f"{self.shoe_id}-{self.round_no}"

    @property
    def message(self) -> str:
        return (
            f"{self.bet_id}: house edge {_percent(self.house_edge)} on round {self.round_no} "
            f"of shoe {self.shoe_id} (alarm below {_percent(self.threshold)})"
        )

    def alarm_details(self) -> dict[str, object]:
        """The alarm's own fields (mqtt-api.md: ``bet`` and its ``house_edge``)."""
        return {
            "shoe_id": self.shoe_id,
            "round_no": self.round_no,
            "bet": self.bet_id,
            "house_edge": self.house_edge,
        }


def positive_edges(
    edges: RoundEdges, offered: Iterable[str], *, threshold: Fraction = DEFAULT_EDGE_THRESHOLD
) -> tuple[EdgePositive, ...]:
    """Every offered bet whose house edge is below ``threshold`` this round, in menu order."""
    wanted = set(offered)
    return tuple(
        EdgePositive(
            shoe_id=edges.shoe_id,
            round_no=edges.round_no,
            bet_id=bet_id,
            house_edge=odds.house_edge,
            threshold=threshold,
        )
        for bet_id, odds in edges.bets.items()
        if bet_id in wanted and odds.house_edge < threshold
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class EdgeWatch:
    """Which offered bets are below the threshold, so that each crossing is alarmed once.

    A value: :meth:`observe` returns the next watch. A new shoe starts afresh.
    """

    threshold: Fraction = DEFAULT_EDGE_THRESHOLD
    shoe_id: str | None = None
    #: Bets below the threshold on the last round observed.
    below: frozenset[str] = frozenset()

    def observe(
        self, edges: RoundEdges, offered: Iterable[str]
    ) -> tuple[EdgeWatch, tuple[EdgePositive, ...]]:
        """The next watch, and an alarm for each bet that dropped below the threshold now.

        A bet that stays below raises nothing more; once it is back above (or not offered),
        a later drop alarms again.
        """
        below = self.below if edges.shoe_id == self.shoe_id else frozenset()
        findings = positive_edges(edges, offered, threshold=self.threshold)
        watch = EdgeWatch(
            threshold=self.threshold,
            shoe_id=edges.shoe_id,
            below=frozenset(finding.bet_id for finding in findings),
        )
        return watch, tuple(finding for finding in findings if finding.bet_id not in below)


# --- dynamic windows -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Suspension:
    """A bet not offered this round because the player has the edge on it."""

    bet_id: str
    house_edge: Fraction


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundOffer:
    """The bets taken on one round, and the ones suspended for their edge.

    ``fallback`` is set when no fresh edges were available for the round: then the variant's
    fixed windows apply, and bets suspended on the previous round stay suspended.
    """

    shoe_id: str
    round_no: int
    offered: tuple[str, ...]
    suspended: tuple[Suspension, ...] = ()
    #: Bets suspended on the previous round and offered again on this one.
    resumed: tuple[str, ...] = ()
    fallback: bool = False

    def is_offered(self, bet_id: str) -> bool:
        return bet_id in self.offered

    def payload(self) -> dict[str, object]:
        """Fields for the round's offer (``betting_opened``, ``state``), Fractions kept."""
        return {
            "bets_offered": list(self.offered),
            "bets_suspended": [
                {"bet": s.bet_id, "house_edge": s.house_edge} for s in self.suspended
            ],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class DynamicWindows:
    """Stop offering a bet while its house edge is below ``threshold``, offer it again after.

    With ``keep_fixed_windows`` the variant's windows still close bets as usual and the edge
    only closes them earlier; without it (the default) a side bet is offered on every round
    on which the house keeps its edge: that is what replaces the fixed window.
    """

    threshold: Fraction = DEFAULT_EDGE_THRESHOLD
    keep_fixed_windows: bool = False
    never_suspended: frozenset[str] = MAIN_BETS

    def candidates(self, variant: Variant, round_no: int) -> tuple[str, ...]:
        """The bets that would be offered on this round before their edge is considered."""
        if self.keep_fixed_windows:
            return variant.offered_on(round_no)
        return variant.bet_ids

    def decide(
        self,
        variant: Variant,
        *,
        shoe_id: str,
        round_no: int,
        edges: RoundEdges | None,
        previous: RoundOffer | None = None,
    ) -> RoundOffer:
        """The offer of round ``round_no``; ``previous`` is this shoe's last offer, if any.

        Edges of another shoe or round count as none (the analyser has not caught up).
        """
        last = previous if previous is not None and previous.shoe_id == shoe_id else None
        was_suspended = {s.bet_id for s in last.suspended} if last is not None else set()
        fresh = edges is not None and (edges.shoe_id, edges.round_no) == (shoe_id, round_no)
        if edges is None or not fresh:
            kept = last.suspended if last is not None else ()
            kept_ids = {s.bet_id for s in kept}
            offered = tuple(b for b in variant.offered_on(round_no) if b not in kept_ids)
            return RoundOffer(
                shoe_id=shoe_id,
                round_no=round_no,
                offered=offered,
                suspended=kept,
                fallback=True,
            )
        offered_list: list[str] = []
        suspended: list[Suspension] = []
        for bet_id in self.candidates(variant, round_no):
            edge = edges.house_edge(bet_id)
            if bet_id not in self.never_suspended and edge < self.threshold:
                suspended.append(Suspension(bet_id=bet_id, house_edge=edge))
            else:
                offered_list.append(bet_id)
        return RoundOffer(
            shoe_id=shoe_id,
            round_no=round_no,
            offered=tuple(offered_list),
            suspended=tuple(suspended),
            resumed=tuple(b for b in offered_list if b in was_suspended),
        )


def settle_offered(variant: Variant, coup: Coup, offer: RoundOffer) -> dict[str, Fraction | str]:
    """Every bet of the variant settled on the round's offer: ``not_offered`` if not taken.

    With dynamic windows this replaces ``settle_round``, which knows only the fixed windows.
    """
    return {
        bet.bet_id: (
            net_result(verdict(BETS[bet.bet_id], coup), bet.payouts)
            if offer.is_offered(bet.bet_id)
            else NOT_OFFERED
        )
        for bet in variant.bets
    }
