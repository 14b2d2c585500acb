# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Each bet's exact edge round by round over a recorded shoe (``table-controller replay``).

Pure: no I/O, no clock, no randomness.

The input is a shoe as it was dealt: the burn, then each round's cards (dealt or discarded) in
order. The edge of round ``n`` is computed, as the live table computes it, from the cards out
of the shoe before round ``n`` began. A flat card sequence (a simulator's shoe, or the cards
of a journal) is split into the burn and rounds by the drawing rules with
:func:`split_rounds`; the events a replay of recorded inputs publishes are gathered into
shoes, round by round as the procedure numbered them, with :class:`ShoeRecorder`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

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
from table_controller.rules import Card, CardError, Reshuffle, Variant, next_hand


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


# --- the cards of each shoe, from the events a replay publishes ------------------------------

#: Alarms that report a card out of the shoe that no ``card`` or ``round_voided`` event carries.
_DISCARD_ALARMS: Final = frozenset({"unnecessary_card", "foreign_card"})


@dataclass(slots=True)
class _RoundDraft:
    #: The round's dealt cards, as the ``card`` events gave them (corrections applied).
    dealt: list[Card | None] = field(default_factory=list)
    #: Cards that left the shoe for the round but were not dealt into its hands.
    discarded: list[Card | None] = field(default_factory=list)
    #: Cards that came out unread in the dealing and are not yet entered by hand.
    unread: int = 0

    def close(self) -> None:
        """The round is settled or voided: a card still unread stays unknown."""
        self.discarded.extend([None] * self.unread)
        self.unread = 0


@dataclass(slots=True)
class _ShoeDraft:
    shoe_id: str
    burn: list[Card | None] = field(default_factory=list)
    rounds: dict[int, _RoundDraft] = field(default_factory=dict)
    leftover: list[Card | None] = field(default_factory=list)
    over: bool = False

    def round(self, round_no: int) -> _RoundDraft:
        return self.rounds.setdefault(round_no, _RoundDraft())

    def set_aside(self, round_no: int | None, card: Card | None) -> None:
        """A card out of the shoe that is not dealt: with its round, or where the shoe is now."""
        if self.over:
            self.leftover.append(card)
        elif round_no is not None:
            self.round(round_no).discarded.append(card)
        elif self.rounds:
            self.rounds[max(self.rounds)].discarded.append(card)
        else:
            self.burn.append(card)

    def recorded(self) -> RecordedShoe:
        return RecordedShoe(
            shoe_id=self.shoe_id,
            burn=tuple(self.burn),
            rounds=tuple(
                PlayedRound(
                    round_no=round_no,
                    cards=(*draft.dealt, *draft.discarded, *[None] * draft.unread),
                )
                for round_no, draft in sorted(self.rounds.items())
            ),
            leftover=tuple(self.leftover),
        )


def _card(value: object) -> Card | None:
    if not isinstance(value, str):
        return None
    try:
        return Card.parse(value)
    except CardError:
        return None


def _cards(value: object) -> list[Card | None]:
    return [_card(code) for code in value] if isinstance(value, list | tuple) else []


def _round_no(payload: Mapping[str, object]) -> int | None:
    value = payload.get("round_no")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class ShoeRecorder:
    """Each shoe's cards, round by round, gathered from the events a replay publishes.

    Feed it every published event in order (:meth:`observe`); :meth:`shoes` gives the shoes
    seen so far. Round ``n``'s cards are every card that left the shoe for it, so the cards
    before round ``n`` (``burn`` and rounds ``1 .. n-1``) are exactly those out of the shoe
    when round ``n`` began (when its betting opened, or, with no betting phase, when it was
    dealt), as the procedure counted them:

    * ``burn`` (``done``): the face-up card and the cards it ordered burned;
    * ``card``: a dealt card (one entered by hand for an unread one replaces it);
    * ``round_voided`` of a round not settled: its cards beyond those dealt (an exposed card,
      cards dealt behind a hold); a ``misread`` alarm of the round not followed by a card
      entered by hand is an unread card (``None``);
    * ``unnecessary_card`` and ``foreign_card`` alarms: a card set aside, with the round the
      alarm names (the last one, between rounds), or with the burn before any round;
    * ``result_corrected``: the round's dealt cards are the corrected hands';
    * after ``shoe_ended`` or ``shoe_voided``: cards (after the last round, discarded with the
      shoe) are ``leftover``; the invalid round after the last round is not a round.

    Rounds voided after they were settled keep their cards (they left the shoe). Other event
    types (``roads``, ``prompt``, those added later) are ignored.
    """

    def __init__(self) -> None:
        self._shoes: dict[str, _ShoeDraft] = {}
        self._current: _ShoeDraft | None = None

    def observe(self, event_type: str, payload: Mapping[str, object]) -> None:
        """Take one published event (its ``type`` and payload), in the order published."""
        if event_type == "shoe_started":
            shoe_id = str(payload.get("shoe_id"))
            self._current = self._shoes.setdefault(shoe_id, _ShoeDraft(shoe_id=shoe_id))
            return
        shoe = self._current
        if shoe is None:
            return
        handler = _HANDLERS.get(event_type)
        if handler is not None:
            handler(shoe, payload)

    def shoes(self) -> tuple[RecordedShoe, ...]:
        """Every shoe seen, in the order the shoes started."""
        return tuple(draft.recorded() for draft in self._shoes.values())


def _on_burn(shoe: _ShoeDraft, payload: Mapping[str, object]) -> None:
    first = _card(payload.get("first_card"))
    shoe.burn = [first, *_cards(payload.get("cards"))] if payload.get("done") else [first]


def _on_round_opened(shoe: _ShoeDraft, payload: Mapping[str, object]) -> None:
    round_no = _round_no(payload)
    if round_no is not None and not shoe.over:
        shoe.round(round_no)


def _on_card(shoe: _ShoeDraft, payload: Mapping[str, object]) -> None:
    round_no = _round_no(payload)
    if round_no is None or shoe.over:
        return
    draft = shoe.round(round_no)
    if payload.get("manual") and draft.unread:
        draft.unread -= 1  # the unread card, entered by hand
    draft.dealt.append(_card(payload.get("card")))


def _on_round_voided(shoe: _ShoeDraft, payload: Mapping[str, object]) -> None:
    round_no = _round_no(payload)
    if round_no is None or shoe.over or payload.get("was_settled"):
        return  # after the last round: the card is in the alarm that came with it
    draft = shoe.round(round_no)
    draft.discarded.extend(_cards(payload.get("cards"))[len(draft.dealt) :])
    draft.close()


def _on_round_result(shoe: _ShoeDraft, payload: Mapping[str, object]) -> None:
    round_no = _round_no(payload)
    if round_no is not None and not shoe.over:
        shoe.round(round_no).close()


def _on_corrected(shoe: _ShoeDraft, payload: Mapping[str, object]) -> None:
    round_no = _round_no(payload)
    draft = None if round_no is None else shoe.rounds.get(round_no)
    if draft is None:
        return
    hands = [payload.get("player"), payload.get("banker")]
    draft.dealt = [
        card for hand in hands if isinstance(hand, Mapping) for card in _cards(hand.get("cards"))
    ]


def _on_alarm(shoe: _ShoeDraft, payload: Mapping[str, object]) -> None:
    code = payload.get("code")
    round_no = _round_no(payload)
    if code == "misread" and round_no is not None and not shoe.over:
        shoe.round(round_no).unread += 1
    elif code in _DISCARD_ALARMS:
        shoe.set_aside(round_no, _card(payload.get("card")))
    elif code == "card_after_last_round":
        shoe.leftover.append(_card(payload.get("card")))


def _on_shoe_over(shoe: _ShoeDraft, payload: Mapping[str, object]) -> None:
    for draft in shoe.rounds.values():
        draft.close()
    shoe.leftover.extend(_cards(payload.get("cards_discarded")))
    shoe.over = True


_HANDLERS: Final[Mapping[str, Callable[[_ShoeDraft, Mapping[str, object]], None]]] = {
    "burn": _on_burn,
    "betting_opened": _on_round_opened,
    "card": _on_card,
    "round_voided": _on_round_voided,
    "round_result": _on_round_result,
    "result_corrected": _on_corrected,
    "alarm": _on_alarm,
    "shoe_ended": _on_shoe_over,
    "shoe_voided": _on_shoe_over,
}
