# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a broker client subscribed in a test received: until a condition holds, or for a while."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from table_controller.mqtt.client.subscriber import Received, Subscription


async def collect(
    subscription: Subscription,
    *,
    until: Callable[[list[Received]], bool],
    within_s: float = 10.0,
) -> list[Received]:
    """Messages until ``until(messages)`` holds; fails the test after ``within_s``."""
    got: list[Received] = []
    async with asyncio.timeout(within_s):
        while not until(got):
            got.append(await subscription.get())
    return got


async def quiet(subscription: Subscription, seconds: float) -> list[Received]:
    """Whatever arrives within ``seconds`` (to show that something does NOT arrive)."""
    got: list[Received] = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            while True:
                got.append(await subscription.get())
    return got
