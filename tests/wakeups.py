# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Waiting for a condition on what arrives: the backends of the benches and the soak use it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Wakeups:
    """Coroutines that wait until a condition holds, tested again at each :meth:`wake`."""

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []

    def wake(self) -> None:
        """Something arrived: let every :meth:`until` test its condition again."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def until(self, test: Callable[[], bool], timeout_s: float) -> None:
        """Return once ``test()`` holds.

        Raises:
            TimeoutError: it did not hold within ``timeout_s`` (callers name what they awaited).
        """
        async with asyncio.timeout(timeout_s):
            while not test():
                waiter = asyncio.get_running_loop().create_future()
                self._waiters.append(waiter)
                await waiter
