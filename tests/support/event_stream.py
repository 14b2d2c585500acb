# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A screen's server-sent events read as a browser's ``EventSource`` would read them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp


class EventStream:
    """A server-sent event reader over an aiohttp response."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response = response

    async def next(self) -> dict[str, str]:
        event: dict[str, str] = {}
        async with asyncio.timeout(5):
            while True:
                line = (await self.response.content.readline()).decode().rstrip("\r\n")
                if not line:
                    if event:
                        return event
                    continue
                if line.startswith(":"):
                    continue
                key, _, value = line.partition(": ")
                event[key] = event.get(key, "") + value if key == "data" else value

    async def until(self, name: str) -> dict[str, Any]:
        while True:
            event = await self.next()
            if event.get("event") == name:
                return {"id": event.get("id"), "data": json.loads(event["data"])}
