# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor in each of the six languages draws every character in its language's face.

One floor (a table dealing with an open alarm, signed in as a supervisor) switched through the
languages with its picker, as a pit supervisor would: in each, no character falls back to a
missing-glyph box and each script comes from its language's face (``tests/support/glyphs.py``).
The picker writes each language's name in itself, in that language's face: it is checked for
boxes on its own, and left out of the check of each language's faces.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from table_controller.screens import LANGUAGES
from tests.floor.harness import SUPERVISOR, SUPERVISOR_PIN, floor_stack, new_shoe, raise_alarm
from tests.floor.test_floor_browser import floor_page, sign_in
from tests.mosquitto import Mosquitto
from tests.support.glyphs import assert_drawn_in, assert_no_tofu

pytestmark = [pytest.mark.broker, pytest.mark.browser]
#: Hides the language picker (``"none"``) or shows it again (``""``).
PICKER = "(how) => { document.querySelector('.language').style.display = how; }"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_floor_draws_every_character_in_every_language(
    tmp_path: Path, broker: Mosquitto, database_url: str, browser: Browser
) -> None:
    async with floor_stack(tmp_path, broker, database_url) as stack:
        f1 = stack.backends["F1"]
        await new_shoe(f1, "S-1")
        await raise_alarm(f1, 1)
        async with floor_page(browser, f"{stack.url}/") as (page, errors):
            await sign_in(page, SUPERVISOR, SUPERVISOR_PIN)
            await expect(page.locator("#alarm-items li")).to_have_count(1)
            await assert_no_tofu(page, "the floor with its language picker")
            for language in LANGUAGES:
                await page.click(f'#language button[data-lang="{language.tag}"]')
                await expect(page.locator("html")).to_have_attribute("lang", language.tag)
                await page.evaluate(PICKER, "none")
                await assert_drawn_in(page, language.tag, f"the floor in {language.tag}")
                await page.evaluate(PICKER, "")
        assert not errors, errors
