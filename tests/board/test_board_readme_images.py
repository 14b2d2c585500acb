# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The README's pictures of the players' board are made here, so they never drift from the code.

The board of a real table at 1920x1080, in English and in Simplified Chinese, well into a shoe
(roads with a dragon tail, the last round's result on the banner), is written to
``docs/images/board-<lang>.png``. A picture whose size (width and height) differs from the one
rendered, or that is missing, fails the test; either way the file is rewritten, so the next
run passes and ``git diff`` shows what changed. A picture that differs only by Chromium's
anti-aliasing (a few faint pixels from one run to the next) is left as it is; any visible
change (a text, a colour, a mark) rewrites it.
"""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageChops
from playwright.async_api import Browser

from table_controller.contract.payloads.state import BetLimits, TableLimits
from tests.board.board_pages import FULL_HD, board_page, shown, to_a_result
from tests.display.display_harness import ROOT, running_table, seed_for_the_scoreboards

pytestmark = pytest.mark.browser

IMAGES = ROOT / "docs" / "images"
README = ROOT / "README.md"
#: Rounds dealt before the picture: the roads well filled, a long run among them.
ROUNDS = 24
#: A Macau floor's limits, in patacas: the main bets, the Tie and the pairs.
LIMITS = TableLimits(
    currency="MOP",
    limits={
        bet: BetLimits(min=Fraction(low), max=Fraction(high))
        for bet, low, high in (
            ("player", 300, 30_000),
            ("banker", 300, 30_000),
            ("tie", 100, 3_000),
            ("player_pair", 100, 2_000),
            ("banker_pair", 100, 2_000),
        )
    },
)
#: Anti-aliasing moves a few pixels a little between runs; a change shown moves more, or further.
NOISE_PIXELS = 1000
NOISE_LEVEL = 96


def size_of(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size


def visibly_different(before: bytes, after: bytes) -> bool:
    """Whether two pictures of the same size differ by more than anti-aliasing noise."""
    with Image.open(io.BytesIO(before)) as old, Image.open(io.BytesIO(after)) as new:
        difference = np.asarray(ImageChops.difference(old.convert("RGB"), new.convert("RGB")))
    changed = difference.max(axis=2)
    return int((changed > 0).sum()) > NOISE_PIXELS or int(changed.max()) > NOISE_LEVEL


@pytest.mark.slow  # rewrites the README's images; the board's fit and glyph tests are default
@pytest.mark.parametrize("lang", ["en", "zh-Hans"])
async def test_the_readme_shows_the_board_as_it_is(
    tmp_path: Path, browser: Browser, lang: str
) -> None:
    target = IMAGES / f"board-{lang}.png"
    assert f"(docs/images/{target.name})" in README.read_text(encoding="utf-8")
    async with (
        running_table(tmp_path, seed=seed_for_the_scoreboards(ROUNDS), limits=LIMITS) as table,
        board_page(browser, f"{table.display.url}board?lang={lang}", FULL_HD) as (page, errors),
    ):
        await to_a_result(table, ROUNDS)
        await shown(page, "result")
        await page.wait_for_function("(tag) => document.documentElement.lang === tag", arg=lang)
        picture = await page.screenshot(animations="disabled", caret="hide")
    assert not errors, errors
    before = target.read_bytes() if target.exists() else None
    same_size = before is not None and size_of(before) == size_of(picture)
    if before is None or not same_size or visibly_different(before, picture):
        target.write_bytes(picture)
    assert size_of(picture) == (1920, 1080)
    assert before is not None, f"{target} was missing: written now"
    assert same_size, f"{target} was {size_of(before)}, not {size_of(picture)}: rewritten"


def test_anti_aliasing_is_no_change_and_a_mark_is() -> None:
    def png(image: Image.Image) -> bytes:
        out = io.BytesIO()
        image.save(out, format="PNG")
        return out.getvalue()

    board = Image.new("RGB", (200, 100), (16, 20, 26))
    faint = board.copy()
    for x in range(50):
        faint.putpixel((x, 10), (40, 44, 50))
    mark = board.copy()
    mark.putpixel((120, 60), (220, 40, 40))
    assert not visibly_different(png(board), png(faint))
    assert visibly_different(png(board), png(mark))
