# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``resend``'s republishing: stored outbox rows published again, paced, behind the live ones.

Adapter (asyncio, the MQTT link's connection). The MQTT link owns one :class:`Republisher`
and tells it about each connection (:meth:`Republisher.connected`, with a test of whether the
live drain has anything to send). :meth:`Republisher.republish` then:

* reads the range from the outbox a page at a time (on the link's file thread);
* publishes each stored row exactly as stored (the same bytes: ``seq``, ``sig``) on its
  topic, QoS 1, **never retained**, so a resent ``state`` cannot replace the broker's
  current retained value;
* one row at a time (one publish in flight, beside the live window of at most
  ``max_inflight``; paho's own limit is above both), at most ``per_second`` rows a second,
  and only while the live drain has nothing waiting to be sent or acknowledged: a live
  message offered meanwhile is sent at once by the link, never queued behind a resent one;
* across a reconnect, from the row it was publishing (the range is not read again).

Resends are taken one at a time, in the order asked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Final, TypeAlias

import aiomqtt
import structlog

from table_controller.mqtt.client.connect import heed_cancel
from table_controller.mqtt.outbox import OutboxRow
from table_controller.mqtt.resend import Republished, missing_seqs

#: Rows read from the outbox at a time.
PAGE_ROWS: Final = 250
#: How often a waiting resend looks again whether the live drain is idle, in seconds.
LIVE_POLL_S: Final = 0.002
#: How long a resend waits before it tries a row again after the connection failed.
RETRY_PAUSE_S: Final = 0.1

#: Reads ``first..last`` from the outbox, at most ``limit`` rows; with the outbox's last seq.
RangeReader: TypeAlias = Callable[[int, int, int], Awaitable[tuple[list[OutboxRow], int]]]

_LOG = structlog.get_logger("table_controller.mqtt")


class Republisher:
    """Publishes ranges of stored rows again for ``resend``.

    Args:
        read: reads a range of rows from the outbox (off the event loop).
        per_second: the most rows republished in a second.
        timeout_s: how long one publish may wait for its PUBACK.
    """

    def __init__(self, *, read: RangeReader, per_second: float, timeout_s: float) -> None:
        if per_second <= 0:
            raise ValueError("the resend pace must be above zero messages a second")
        self._read = read
        self._interval_s = 1.0 / per_second
        self._timeout_s = timeout_s
        self._client: aiomqtt.Client | None = None
        self._live_idle: Callable[[], bool] = lambda: True
        self._up = asyncio.Event()
        self._turn = asyncio.Lock()
        self._next_at = 0.0
        #: Rows published again since start, and resends done.
        self.resent = 0
        self.resends = 0

    def connected(self, client: aiomqtt.Client, *, live_idle: Callable[[], bool]) -> None:
        """A connection is up and drained; ``live_idle`` says whether live rows wait."""
        self._client = client
        self._live_idle = live_idle
        self._up.set()

    def disconnected(self) -> None:
        self._client = None
        self._up.clear()

    async def republish(self, first: int, last: int) -> Republished:
        """Publish the stored rows of ``first..last`` again; returns once all are acknowledged.

        The range is checked beforehand (``resend.range_problem``). A ``seq`` at most the
        outbox's last one that it no longer holds is ``gone``; one above it was not given yet.
        """
        async with self._turn:
            rows, last_seq = await self._read(first, last, PAGE_ROWS)
            upto = min(last, last_seq)
            gone: list[int] = []
            resent = 0
            start = first
            while start <= upto:
                page_end = rows[-1].seq if len(rows) == PAGE_ROWS else upto
                gone.extend(missing_seqs(start, page_end, [row.seq for row in rows]))
                for row in rows:
                    await self._publish(row)
                    resent += 1
                start = page_end + 1
                if start <= upto:
                    rows, _ = await self._read(start, upto, PAGE_ROWS)
            self.resends += 1
            _LOG.info("resend done", first=first, last=last, resent=resent, gone=len(gone))
            return Republished(resent=resent, gone=gone, last_seq=last_seq)

    async def _publish(self, row: OutboxRow) -> None:
        """One row, at its turn and behind the live rows; again after a lost connection."""
        loop = asyncio.get_running_loop()
        while True:
            await self._up.wait()
            wait_s = self._next_at - loop.time()
            if wait_s > 0:
                await asyncio.sleep(wait_s)
            while not self._live_idle():  # noqa: ASYNC110 - the live drain posts no event
                await asyncio.sleep(LIVE_POLL_S)
            client = self._client
            if client is None:
                continue  # the connection went while waiting
            self._next_at = max(self._next_at, loop.time()) + self._interval_s
            try:
                await client.publish(
                    row.topic, row.payload, qos=row.qos, retain=False, timeout=self._timeout_s
                )
            except aiomqtt.MqttError as error:
                _LOG.info("resend waits for the connection", seq=row.seq, error=str(error))
                await asyncio.sleep(RETRY_PAUSE_S)
                continue
            heed_cancel()
            self.resent += 1
            return
