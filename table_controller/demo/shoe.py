# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's shoe: the virtual shoe on a pseudo-terminal, and the automatic dealer.

Adapter: asyncio, a pseudo-terminal and randomness; it holds no rules. The table service
opens the pseudo-terminal through ``link`` exactly as it would open a real shoe's port. The
dealer is the simulator's own (:func:`simulators.virtual_shoe.dealer.auto_deal`): it deals
the next card ``card_s`` after the shoe's lamp asks for one (``PLAYER`` or ``BANKER``) and the
table has acknowledged the last. :meth:`DemoShoe.load_new_shoe` puts a newly shuffled shoe
in, as a dealer does when the pit asks for a new shoe: from the operating system's
cryptographic RNG, or with ``seed`` from one seeded generator, so that a seed gives the same
sequence of shoes every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Self

from simulators.virtual_shoe.dealer import auto_deal
from simulators.virtual_shoe.deck import Shoe, default_cut_depth
from simulators.virtual_shoe.device import ShoeDevice
from simulators.virtual_shoe.server import PtyPort, VirtualShoe
from simulators.virtual_shoe.shuffle import secure_order, seeded_order


class ShoeMaker:
    """Shuffled shoes of ``decks`` decks, with the cut card 14 cards from the back or none.

    Args:
        decks: Decks per shoe.
        cut_card: Whether the shoe has a cut card (False for a variant that reshuffles every
            round: it never runs to a cut card).
        seed: None for the cryptographic RNG; a number for a reproducible sequence of shoes.
    """

    def __init__(self, *, decks: int, cut_card: bool, seed: int | None) -> None:
        self.decks = decks
        self.cut_card = cut_card
        self._seeds = None if seed is None else random.Random(seed)  # noqa: S311 - reproducible on purpose
        #: How many shoes were made.
        self.made = 0

    def next_shoe(self) -> Shoe:
        """A newly shuffled shoe."""
        if self._seeds is None:
            cards = secure_order(self.decks)
        else:
            cards = seeded_order(self.decks, self._seeds.getrandbits(64))
        self.made += 1
        cut_depth = default_cut_depth(len(cards)) if self.cut_card else None
        return Shoe(cards=cards, cut_depth=cut_depth)


class DemoShoe:
    """A virtual SRP/1 shoe on a pseudo-terminal (kept linked from ``link``) and its dealer.

    An async context manager: entering serves the shoe and starts the dealer; leaving stops
    the dealer and unplugs the shoe.

    Args:
        link: The path kept as a symbolic link to the pseudo-terminal (the table's port).
        maker: Where the shoes come from.
        card_s: The dealer's pause before each card.
        on_draw: Called after each draw of the dealer.
    """

    def __init__(
        self,
        *,
        link: Path,
        maker: ShoeMaker,
        card_s: float,
        on_draw: Callable[[], None] | None = None,
    ) -> None:
        self.link = link
        self.maker = maker
        self.card_s = card_s
        self._on_draw = on_draw or (lambda: None)
        self.virtual = VirtualShoe(
            shoe=maker.next_shoe(), session=ShoeDevice(), port=PtyPort(link=link)
        )
        self._refilled = asyncio.Event()
        self._dealer: asyncio.Task[None] | None = None

    @property
    def address(self) -> str:
        """``link -> /dev/pts/N``, where the table's port is."""
        return self.virtual.address

    async def __aenter__(self) -> Self:
        await self.virtual.__aenter__()
        self._dealer = asyncio.create_task(self._deal(), name="demo dealer")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop_dealing()
        await self.virtual.close()

    async def stop_dealing(self) -> None:
        """Stop the dealer (the shoe stays served)."""
        dealer, self._dealer = self._dealer, None
        if dealer is not None:
            dealer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await dealer

    def load_new_shoe(self) -> None:
        """Put a newly shuffled shoe in (what is left of the old one is set aside)."""
        self.virtual.shoe = self.maker.next_shoe()
        self._refilled.set()

    async def _deal(self) -> None:
        """Deal as the lamp asks; a shoe that ran out waits to be refilled."""
        while True:
            self._refilled.clear()
            await auto_deal(self.virtual, speed=1.0 / self.card_s, announce=self._announce)
            await self._refilled.wait()

    def _announce(self, _text: str) -> None:
        self._on_draw()
