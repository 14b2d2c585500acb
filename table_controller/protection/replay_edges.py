"""Each bet's exact edge round by round over a recorded shoe (``table-controller replay``).

Pure: no I/O, no clock, no randomness.

The input is a shoe as it was dealt: the burn, then each round's cards (dealt or discarded) in
order. The edge of round ``n`` is computed, as the live table computes it, from the cards out
of the shoe before round ``n`` began. A flat card sequence (a simulator's shoe, or the cards
of a journal) is split into the burn and rounds by the drawing rules with
:func:`split_rounds`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from table_controller.protection.edge import (
    DEFAULT_EDGE_THRESHOLD,
    DynamicWindows,
    EdgePositive,
    EdgeWatch,
    ImpossibleCount,
    NoEdges,
    RoundEdges,
    RoundOffer,
    round_edges,
    shoe_left,
)
from table_controller.rules.cards import Card
from table_controller.rules.tableau import next_hand
from table_controller.rules.variants import Reshuffle, Variant


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayedRound:
    """One round of a recorded shoe: every card that left the shoe for it, in order.

    Dealt cards and discarded ones (an exposed or unnecessary card, a voided round's cards)
    alike; ``None`` for a card the reader could not read.
    """

    round_no: int
    cards: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedShoe:
    """A shoe as it was dealt."""

    shoe_id: str
    #: The face-up first card and the cards it ordered burned.
    burn: tuple[Card | None, ...] = ()
    rounds: tuple[PlayedRound, ...] = ()
    #: Cards after the last complete round (e.g. an invalid round after the cut card).
    leftover: tuple[Card | None, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayedRound:
    """The odds before one round, what was offered on it, and the alarms they raise."""

    round_no: int
    edges: RoundEdges | NoEdges
    offer: RoundOffer
    #: ``edge_positive`` alarms raised before this round (a bet dropping below the threshold).
    alarms: tuple[EdgePositive, ...] = ()

    def house_edge(self, bet_id: str) -> Fraction | None:
        """The bet's house edge this round; ``None`` without odds."""
        if isinstance(self.edges, NoEdges):
            return None
        return self.edges.house_edge(bet_id)


def split_rounds(shoe_id: str, cards: Sequence[Card], *, burn: bool) -> RecordedShoe:
    """Split a flat sequence of cards into burn and rounds by the drawing rules.

    ``burn``: the first card is turned up and orders its burn count of further cards burned.
    Cards that do not complete a round are kept as ``leftover``.
    """
    position = 0
    burned: tuple[Card, ...] = ()
    if burn and cards:
        count = 1 + cards[0].burn_count
        burned = tuple(cards[:count])
        position = len(burned)
    rounds: list[PlayedRound] = []
    while position < len(cards):
        points: list[int] = []
        end = position
        while end < len(cards) and next_hand(points) is not None:
            points.append(cards[end].point)
            end += 1
        if next_hand(points) is not None:
            break
        rounds.append(PlayedRound(round_no=len(rounds) + 1, cards=tuple(cards[position:end])))
        position = end
    return RecordedShoe(
        shoe_id=shoe_id, burn=burned, rounds=tuple(rounds), leftover=tuple(cards[position:])
    )


def _fixed_offer(variant: Variant, shoe_id: str, round_no: int) -> RoundOffer:
    return RoundOffer(shoe_id=shoe_id, round_no=round_no, offered=variant.offered_on(round_no))


def replay_edges(
    variant: Variant,
    shoe: RecordedShoe,
    *,
    threshold: Fraction = DEFAULT_EDGE_THRESHOLD,
    windows: DynamicWindows | None = None,
) -> tuple[ReplayedRound, ...]:
    """Every round's edges, offer and ``edge_positive`` alarms, as the live table decides them.

    With ``windows`` the offers are the dynamic windows' (and their threshold is used for the
    alarms); without, the variant's fixed windows. After an impossible card count every later
    round has :class:`~table_controller.protection.edge.NoEdges`.
    """
    if windows is not None:
        threshold = windows.threshold
    watch = EdgeWatch(threshold=threshold)
    gone: list[Card | None] = list(shoe.burn)
    impossible: ImpossibleCount | None = None
    previous: RoundOffer | None = None
    replayed: list[ReplayedRound] = []
    edges: RoundEdges | NoEdges
    for played in shoe.rounds:
        if variant.reshuffle is Reshuffle.EVERY_ROUND:
            gone = []
        if impossible is None:
            left = shoe_left(variant.decks, gone)
            if isinstance(left, ImpossibleCount):
                impossible = left
            else:
                edges = round_edges(
                    variant, shoe_id=shoe.shoe_id, round_no=played.round_no, left=left
                )
        if impossible is not None:
            edges = NoEdges(
                shoe_id=shoe.shoe_id, round_no=played.round_no, reason=impossible.message
            )
        fresh = edges if isinstance(edges, RoundEdges) else None
        if windows is None:
            offer = _fixed_offer(variant, shoe.shoe_id, played.round_no)
            candidates: Iterable[str] = offer.offered
        else:
            offer = windows.decide(
                variant,
                shoe_id=shoe.shoe_id,
                round_no=played.round_no,
                edges=fresh,
                previous=previous,
            )
            candidates = windows.candidates(variant, played.round_no)
        alarms: tuple[EdgePositive, ...] = ()
        if fresh is not None:
            watch, alarms = watch.observe(fresh, candidates)
        replayed.append(
            ReplayedRound(round_no=played.round_no, edges=edges, offer=offer, alarms=alarms)
        )
        previous = offer
        gone.extend(played.cards)
    return tuple(replayed)


def edge_series(
    rounds: Sequence[ReplayedRound], bets: Iterable[str] | None = None
) -> Mapping[str, tuple[tuple[int, Fraction], ...]]:
    """Per bet, ``(round_no, house_edge)`` for every round that has odds (for tables, plots)."""
    with_odds = [r for r in rounds if isinstance(r.edges, RoundEdges)]
    if bets is None:
        names: list[str] = []
        for replayed in with_odds:
            assert isinstance(replayed.edges, RoundEdges)
            names.extend(b for b in replayed.edges.bets if b not in names)
    else:
        names = list(bets)
    series: dict[str, tuple[tuple[int, Fraction], ...]] = {}
    for bet_id in names:
        points = []
        for replayed in with_odds:
            edge = replayed.house_edge(bet_id)
            if edge is not None:
                points.append((replayed.round_no, edge))
        series[bet_id] = tuple(points)
    return series
