# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Waiting in a test for something another task or thread changes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:  # noqa: ASYNC109
    """Poll ``condition`` until it holds; ``TimeoutError`` after ``timeout`` seconds."""
    async with asyncio.timeout(timeout):
        while not condition():  # noqa: ASYNC110 - the state belongs to the code under test
            await asyncio.sleep(0.001)
