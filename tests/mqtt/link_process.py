# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A table's MQTT link in its own process, for kill -9 tests: ``python link_process.py ...``.

It adds ``--add`` card messages to the outbox first (keys ``in:<n>``, idempotent), prints
``connected`` once the birth is out, drains at a deliberately slow pace (a short pause on
each read of the outbox file and a backlog memory of 20 rows, so the drainer goes back to the
file often and a test can kill it mid-stream), and stops cleanly on SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from table_controller.mqtt.client.link import MqttLink
from table_controller.mqtt.outbox import Outbox, OutboxRow
from table_controller.mqtt.settings import MqttSettings
from table_controller.runtime.clock import utc_now
from tests.mqtt.mqtt_test_support import card_message, fast


class SlowOutbox(Outbox):
    """The drainer's outbox with a pause per read and per ack batch: a slow disk."""

    def unacked_after(self, seq: int, *, limit: int) -> tuple[list[OutboxRow], int]:
        time.sleep(0.05)
        return super().unacked_after(seq, limit=limit)

    def mark_acked_many(self, seqs: Sequence[int]) -> None:
        super().mark_acked_many(seqs)
        time.sleep(0.01)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--add", type=int, default=0)
    args = parser.parse_args()
    with Outbox.open(args.db, clock=utc_now) as writer:
        writer.add([card_message(args.table, n) for n in range(args.add)])
    settings = replace(fast(MqttSettings.from_url(args.url, table_id=args.table)), memory_rows=20)
    with SlowOutbox.open(args.db, clock=utc_now) as drainer:
        link = MqttLink(settings, drainer)
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, link.request_stop)
        task = asyncio.create_task(link.run())
        await link.wait_connected()
        print("connected", flush=True)
        await task
        print("stopped", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
