# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The test process's one Chromium (tests/support/chromium.py), as each browser test finds it.

Connected, with no context left open by an earlier test, and launched again after a test
closed it; the leak check of this folder holds around both, the driver's pipes being no leak.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from tests.support.chromium import SharedChromium

pytestmark = pytest.mark.browser


async def test_a_test_finds_the_browser_connected_with_no_context_open(browser: Browser) -> None:
    assert browser.is_connected()
    assert browser.contexts == []
    await browser.new_context()  # left open: closed after the test, before the next one


async def test_a_browser_a_test_closed_is_launched_again(
    browser: Browser, shared_chromium: SharedChromium
) -> None:
    await browser.close()
    again = await shared_chromium.browser()
    assert again is not browser
    assert again.is_connected()
    context = await again.new_context(viewport={"width": 640, "height": 480})
    try:
        page = await context.new_page()
        await page.set_content("<p>launched again</p>")
        assert await page.text_content("p") == "launched again"
    finally:
        await context.close()
