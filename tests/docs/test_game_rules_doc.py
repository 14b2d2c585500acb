# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""docs/game-rules.md against ``table_controller/rules``: variants, bet ids, payouts, windows."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from table_controller.rules.bets import BETS
from table_controller.rules.composition import Composition
from table_controller.rules.exact import analyse
from table_controller.rules.variants import VARIANTS, Reshuffle, Variant, default_offer
from tests.docs.markdown import Table, code_spans, sections, table_with

DOC = Path(__file__).resolve().parents[2] / "docs/game-rules.md"
NOT_OFFERED = "—"
_RESHUFFLE = {
    Reshuffle.CUT_CARD: "when the cut card comes out",
    Reshuffle.EVERY_ROUND: "after every round",
}
#: "rounds 1 to 60", written with an en dash (U+2013) between the numbers.
_WINDOW = re.compile(r"^rounds (?P<first>\d+)\u2013(?P<last>\d+)$")
_TIER = re.compile(r"`(?P<tier>[a-z0-9_]+)` (?P<payout>[0-9.]+)")


def _section(title: str) -> str:
    found = sections(DOC.read_text(encoding="utf-8"), 2)
    assert title in found, f"docs/game-rules.md has no section {title!r}"
    return found[title]


def _by_variant(table: Table) -> dict[str, dict[str, str]]:
    """Bet id -> variant name -> the cell, for a table with one column per variant."""
    variants = [code_spans(cell)[0] for cell in table.header[1:]]
    assert variants == list(VARIANTS), "one column per variant, in the code's order"
    return {code_spans(row[0])[0]: dict(zip(variants, row[1:], strict=True)) for row in table.rows}


def test_the_bets_described_are_every_bet_of_the_code() -> None:
    table = table_with(_section("3. Bets and what they pay"), "bet")
    described = [span for cell in table.column(0) for span in code_spans(cell)]
    assert sorted(described) == sorted(BETS)


def test_the_variants_are_those_of_the_code() -> None:
    table = table_with(_section("4. The variants"), "variant")
    rows = {code_spans(row[0])[0]: row for row in table.rows}
    assert list(rows) == list(VARIANTS)
    for name, variant in VARIANTS.items():
        _, title, decks, burn, reshuffle = rows[name]
        assert title == variant.title
        assert int(decks) == variant.decks
        assert burn == ("yes" if variant.burn else "no")
        assert reshuffle == _RESHUFFLE[variant.reshuffle]


def _offered_cells(variant: Variant, title: str) -> list[tuple[str, str]]:
    """Bet id and cell of each bet ``variant`` offers in the per-bet table of section ``title``.

    Checks on the way that the table has a row for every bet of the code and that the bets
    the variant does not offer are marked as not offered.
    """
    cells = _by_variant(table_with(_section(title), "bet"))
    assert set(cells) == set(BETS)
    offered = []
    for bet_id, by_variant in cells.items():
        cell = by_variant[variant.name]
        if bet_id in variant.bet_ids:
            offered.append((bet_id, cell))
        else:
            assert cell == NOT_OFFERED, bet_id
    return offered


def _payouts_written(cell: str) -> dict[str, Fraction] | Fraction:
    tiers = _TIER.findall(cell)
    if tiers:
        return {tier: Fraction(payout) for tier, payout in tiers}
    return Fraction(cell)


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda variant: variant.name)
def test_each_variant_pays_what_the_page_says(variant: Variant) -> None:
    for bet_id, cell in _offered_cells(variant, "4. The variants"):
        payouts = dict(variant.offer(bet_id).payouts)
        written = _payouts_written(cell)
        if isinstance(written, Fraction):
            assert set(payouts.values()) == {written}, bet_id
        else:
            assert written == payouts, bet_id


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=lambda variant: variant.name)
def test_each_variant_offers_each_bet_on_the_rounds_the_page_says(variant: Variant) -> None:
    for bet_id, cell in _offered_cells(variant, "5. Windows: on which rounds a bet is offered"):
        window = variant.offer(bet_id).window
        if window is None or variant.virtual:
            assert cell == "every round", bet_id
            continue
        written = _WINDOW.match(cell)
        assert written is not None, f"{bet_id}: {cell!r}"
        assert (int(written["first"]), int(written["last"])) == (window.first, window.last)
        assert variant.offered(bet_id, window.last)
        assert not variant.offered(bet_id, window.last + 1)


def test_the_page_stands_alone() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "spec/" not in text
    assert "**Decision" not in text


def test_the_dragon_bonus_pay_table_is_the_catalogues() -> None:
    table = table_with(_section("8. EZ Baccarat and the Dragon bets"), "tier")
    written = {code_spans(row[0])[0]: Fraction(row[2]) for row in table.rows}
    for hand in ("player", "banker"):
        assert written == BETS[f"{hand}_dragon_bonus"].default_payouts


def test_the_house_edges_are_those_odds_prints() -> None:
    table = table_with(_section("8. EZ Baccarat and the Dragon bets"), "bet")
    composed = replace(
        VARIANTS["ez"],
        name="dragon_bonus",
        bets=tuple(
            default_offer(bet_id) for bet_id in ("player_dragon_bonus", "banker_dragon_bonus")
        ),
    )
    edges = {
        bet_id: odds.house_edge
        for variant in (VARIANTS["ez"], composed)
        for bet_id, odds in analyse(variant, Composition.full(8)).bets.items()
    }
    assert len(table.rows) == 6
    for row in table.rows:
        bet_id = code_spans(row[0])[0]
        assert row[2] == f"{float(edges[bet_id]) * 100:.4f} %", bet_id
