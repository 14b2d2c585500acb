# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fixtures for the dealer display tests: hygiene checks and pages of the shared Chromium.

The ``browser`` is the test process's one Chromium (tests/support/chromium.py); the async
fixtures that use it run in its event loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, ViewportSize

from tests.display.display_harness import ROOT
from tests.support.browser_pages import watched_page
from tests.support.chromium import SHARED_LOOP

#: Screenshots of each phase, kept by CI as test artefacts (git-ignored); those of the page
#: measured at each screen size in ``fit/``.
ARTIFACTS = ROOT / "artifacts" / "display"
VIEWPORT: ViewportSize = {"width": 1600, "height": 900}
#: The screen of the ``1280x800-*`` screenshots in ``fit/``: the integrity and limits screens.
SCREEN_1280X800: ViewportSize = {"width": 1280, "height": 800}


@pytest.fixture(autouse=True)
def _every_test_cleans_up(no_leaks: None) -> None:
    """Every test here leaves no task running and no file descriptor open (tests/conftest.py)."""


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def display_page(browser: Browser) -> AsyncIterator[Page]:
    """The display's page, checked as it closes (tests/support/browser_pages.py).

    No script error, nothing the page's policy had to block, no text missing from a catalogue.
    """
    async with watched_page(browser, viewport=VIEWPORT) as (page, _):
        yield page


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def page_1280x800(display_page: Page) -> Page:
    """The display page on a 1280x800 screen (:data:`SCREEN_1280X800`)."""
    await display_page.set_viewport_size(SCREEN_1280X800)
    return display_page


@pytest.fixture
def artifacts() -> Path:
    (ARTIFACTS / "fit").mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
