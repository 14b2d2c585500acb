# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The card source of a virtual table: cards drawn by the operating system's cryptographic RNG.

Runtime adapter (randomness lives here, never in a core). A virtual table has no reader: when
the table asks for a card (its lamp lights PLAYER or BANKER and nothing holds it), the service
asks this source for the next draw and records it in the journal like a card from a shoe, so
``replay`` reproduces a virtual table exactly and a crash never draws a recorded card again.

Drawing uniformly from the cards still in the shoe, one at a time, is the same as dealing from
a uniformly shuffled shoe, and nothing about the future order exists before it is drawn.

* A new shoe (a new ``shoe_id``) is a full shoe of the variant's decks, with the cut card placed
  by the RNG between ``cut_from_end`` cards from its end.
* ``mini`` (reshuffle every round): every round (a new ``round_id``) starts from full decks, and
  there is no cut card. The table starts each round before it asks for the round's first card
  (``open_betting`` or ``deal``), so every draw of a round is keyed on that round's id.
* After a restart the source rebuilds what has left the shoe from the journal's cards (the
  service shows it every input it replays). It cannot know where the cut card was placed, so it
  places it again, never behind the cards already drawn.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

from table_controller.contract import TableSnapshot
from table_controller.procedure import CardDrawn, CutCardDrawn, Input
from table_controller.rules import CARD_INDEX, CARD_ORDER, Reshuffle, Variant

#: Where the RNG places the cut card: this many cards from the end of the shoe, both included.
DEFAULT_CUT_FROM_END = (14, 26)


@dataclass(slots=True)
class _Shoe:
    #: The shoe id, or for ``mini`` the round id, the cards are drawn for (None: not known yet).
    key: str | None
    counts: list[int]
    cut_at_remaining: int | None


class RngCardSource:
    """Draws the next card of a virtual table; follows what the table has already dealt."""

    def __init__(
        self,
        variant: Variant,
        *,
        rng: random.Random | None = None,
        cut_from_end: tuple[int, int] = DEFAULT_CUT_FROM_END,
    ) -> None:
        low, high = cut_from_end
        if not 0 < low <= high < variant.cards:
            raise ValueError(
                f"cut_from_end {cut_from_end} must lie inside a {variant.cards}-card shoe"
            )
        self._variant = variant
        self._rng = rng or secrets.SystemRandom()
        self._cut_from_end = cut_from_end
        #: None until the first card is drawn or observed: no key, not even None, matches it.
        self._shoe: _Shoe | None = None
        self.draws = 0

    def _key(self, state: TableSnapshot) -> str | None:
        """What a fresh shuffle is tied to: the round for ``mini``, else the shoe."""
        if self._variant.reshuffle is Reshuffle.EVERY_ROUND:
            return state.state.round_id
        return state.state.shoe_id

    def _current(self, state: TableSnapshot) -> _Shoe:
        key = self._key(state)
        if self._shoe is None or key != self._shoe.key:
            counts = [self._variant.decks] * len(CARD_ORDER)
            cut = None
            if self._variant.reshuffle is Reshuffle.CUT_CARD:
                cut = self._rng.randint(*self._cut_from_end)
            self._shoe = _Shoe(key=key, counts=counts, cut_at_remaining=cut)
        return self._shoe

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The table took an input (live or replayed); ``state`` is its snapshot after it."""
        if isinstance(event, CardDrawn):
            shoe = self._current(state)
            index = CARD_INDEX[event.card]
            if shoe.counts[index] > 0:
                shoe.counts[index] -= 1

    def draw(self, state: TableSnapshot, *, at: float) -> Input:
        """The next thing out of the shoe: a card, or the cut card where it was placed."""
        shoe = self._current(state)
        remaining = sum(shoe.counts)
        cut = shoe.cut_at_remaining
        if cut is not None and remaining <= cut and not state.state.last_round:
            shoe.cut_at_remaining = None
            return CutCardDrawn(at=at)
        if remaining == 0:
            msg = "the virtual shoe is empty"  # the cut card ends every shoe long before
            raise RuntimeError(msg)
        pick = self._rng.randrange(remaining)
        for index, count in enumerate(shoe.counts):
            if pick < count:
                self.draws += 1
                return CardDrawn(at=at, card=CARD_ORDER[index])
            pick -= count
        raise AssertionError("a pick below the total always lands on a card")
