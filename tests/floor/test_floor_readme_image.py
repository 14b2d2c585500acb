# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The README's picture of the floor view is made here, from real tables, so it never drifts.

Four tables of two pits: one dealing with an open alarm, one dealing, one held by a dispute,
one stopped (offline), and a table the settings name that never published; the floor's page
signed in as a supervisor, at 1600x1000, is written to ``docs/images/floor.png``. Its times
differ at every run, so the picture is written each time; the test fails only when it was
missing or its size changed, or when the README no longer shows it.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from playwright.async_api import Browser, expect

from tests.display.display_harness import ROOT
from tests.floor.harness import (
    SUPERVISOR,
    SUPERVISOR_PIN,
    deal_rounds,
    floor_stack,
    new_shoe,
    raise_alarm,
    sign_in_dealer,
)
from tests.floor.test_floor_browser import floor_page, sign_in
from tests.mosquitto import Mosquitto
from tests.support.table_process import stop

pytestmark = [pytest.mark.broker, pytest.mark.browser]

TARGET = ROOT / "docs" / "images" / "floor.png"
SIZE = (1600, 1000)


@pytest.mark.slow  # rewrites the README's picture; the floor's browser tests are default
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_readme_shows_the_floor_as_it_is(
    tmp_path: Path, broker: Mosquitto, database_url: str, browser: Browser
) -> None:
    assert "(docs/images/floor.png)" in (ROOT / "README.md").read_text(encoding="utf-8")
    tables = ("F1", "F2", "F3", "F4")
    async with floor_stack(tmp_path, broker, database_url, tables=tables) as stack:
        f1, f2, f3 = (stack.backends[table_id] for table_id in ("F1", "F2", "F3"))
        await sign_in_dealer(f1, "D-207")
        await sign_in_dealer(f2, "D-104")
        for backend, shoe in ((f1, "S-0041"), (f2, "S-0107"), (f3, "S-0212")):
            await new_shoe(backend, shoe)
        await deal_rounds(f1, 9)
        await raise_alarm(f1, 10)
        await deal_rounds(f2, 6)
        await deal_rounds(f3, 3)
        disputed = await f3.command(
            "dispute",
            operator=SUPERVISOR,
            reason="patron says the banker had 7",
            rounds=["S-0212-2"],
        )
        assert disputed["ok"], disputed
        await stop(stack.tables["F4"])
        async with floor_page(browser, f"{stack.url}/") as (page, errors):
            await page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
            await sign_in(page, SUPERVISOR, SUPERVISOR_PIN)
            await expect(page.locator("#alarm-items li")).to_have_count(1)
            await expect(page.locator('.tile[data-table="F4"]')).to_have_attribute(
                "data-status", "offline", timeout=20_000
            )
            await expect(page.locator('.tile[data-table="F3"] .dispute')).to_be_visible()
            await page.locator("#alarm-items .comment").fill("checking the camera")
            picture = await page.screenshot(animations="disabled", caret="hide")
        assert not errors, errors
    before = TARGET.read_bytes() if TARGET.exists() else None
    TARGET.write_bytes(picture)
    with Image.open(io.BytesIO(picture)) as image:
        assert image.size == SIZE
    assert before is not None, f"{TARGET} was missing: written now"
