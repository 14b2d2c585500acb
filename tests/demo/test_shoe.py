# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's shoe on a real pseudo-terminal, read by the real driver: the dealer and new shoes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from drivers.events import CardSeen, CutCardSeen, ReaderEvent, ReaderHello
from drivers.shoe_reader import ShoeReader
from drivers.srp.constants import Lamp
from simulators.virtual_shoe.deck import CardDrawn, CutCardDrawn, Shoe
from table_controller.demo.shoe import DemoShoe, ShoeMaker

pytestmark = pytest.mark.usefixtures("no_leaks")

CARD_S = 0.005


def draws(shoe: Shoe) -> list[str]:
    """What the shoe gives, in order: card codes and ``CUT``."""
    return [
        draw.card if isinstance(draw, CardDrawn) else "CUT"
        for draw in shoe.draw_all()
        if isinstance(draw, CardDrawn | CutCardDrawn)
    ]


def test_a_seed_gives_the_same_sequence_of_different_shoes() -> None:
    one, two = (
        ShoeMaker(decks=8, cut_card=True, seed=42),
        ShoeMaker(decks=8, cut_card=True, seed=42),
    )
    first, second = one.next_shoe(), one.next_shoe()
    assert first.cards == two.next_shoe().cards
    assert second.cards == two.next_shoe().cards
    assert first.cards != second.cards
    assert sorted(first.cards) == sorted(second.cards)
    assert len(first.cards) == 416
    assert first.cut_depth == 416 - 14
    assert one.made == 2


def test_without_a_seed_shoes_come_from_the_system_rng_and_mini_has_no_cut_card() -> None:
    maker = ShoeMaker(decks=6, cut_card=False, seed=None)
    first, second = maker.next_shoe(), maker.next_shoe()
    assert first.cut_depth is None
    assert len(first.cards) == 312
    assert first.cards != second.cards  # equal by chance with probability 1/312!


async def read_until(
    reader: ShoeReader, seen: list[str], done: Callable[[list[str]], bool]
) -> None:
    """Confirm every delivery, note each card and cut card, until ``done(seen)``."""
    async with asyncio.timeout(20):
        async for event in reader:
            await note(reader, event, seen)
            if done(seen):
                return


async def note(reader: ShoeReader, event: ReaderEvent, seen: list[str]) -> None:
    match event:
        case CardSeen(card=card, delivery=delivery):
            seen.append(card)
            await reader.confirm(delivery)
        case CutCardSeen(delivery=delivery):
            seen.append("CUT")
            await reader.confirm(delivery)
        case ReaderHello(delivery=delivery):
            await reader.confirm(delivery)
        case _:
            pass


async def test_the_dealer_deals_only_while_the_lamp_asks(tmp_path: Path) -> None:
    expected = draws(ShoeMaker(decks=1, cut_card=True, seed=7).next_shoe())
    dealt: list[int] = []
    maker = ShoeMaker(decks=1, cut_card=True, seed=7)
    link = tmp_path / "shoe"
    async with (
        DemoShoe(link=link, maker=maker, card_s=CARD_S, on_draw=lambda: dealt.append(1)) as shoe,
        ShoeReader(str(link)) as reader,
    ):
        assert shoe.address.startswith(f"{link} -> /dev/pts/")
        seen: list[str] = []
        await read_until(reader, seen, lambda _seen: reader.session.online is True)
        await asyncio.sleep(20 * CARD_S)
        assert seen == []  # no lamp yet: nothing is dealt
        await reader.set_lamp(Lamp.PLAYER)
        await read_until(reader, seen, lambda seen: len(seen) == 3)
        await reader.set_lamp(Lamp.STAND)
        await asyncio.sleep(20 * CARD_S)
        assert shoe.virtual.draws == 3
        assert seen == expected[:3]
        assert len(dealt) == 3


async def test_an_empty_shoe_waits_for_a_new_one(tmp_path: Path) -> None:
    expected_maker = ShoeMaker(decks=1, cut_card=True, seed=3)
    first, second = draws(expected_maker.next_shoe()), draws(expected_maker.next_shoe())
    link = tmp_path / "shoe"
    async with (
        DemoShoe(link=link, maker=ShoeMaker(decks=1, cut_card=True, seed=3), card_s=CARD_S) as shoe,
        ShoeReader(str(link)) as reader,
    ):
        seen: list[str] = []
        await reader.set_lamp(Lamp.PLAYER)
        await read_until(reader, seen, lambda seen: len(seen) == len(first))
        assert seen == first  # 52 cards with the cut card 14 from the back
        await asyncio.sleep(20 * CARD_S)
        assert len(seen) == len(first)  # empty: the dealer waits
        await reader.set_lamp(Lamp.STAND)
        shoe.load_new_shoe()
        await reader.set_lamp(Lamp.BANKER)
        await read_until(reader, seen, lambda seen: len(seen) == len(first) + 2)
        assert seen[len(first) :] == second[:2]
