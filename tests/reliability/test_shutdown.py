# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A clean stop publishes everything the table recorded before it exits (found by the soak).

Through the real ``table-controller run`` with the virtual shoe on a pseudo-terminal and a
real mosquitto: the shoe is unplugged and the service gets SIGTERM at once, as when a table
is switched off for the night. The reader going offline is an input: it is recorded in the
journal, and its ``alarm`` (``reader_offline``) and ``state`` messages go to the outbox.

Stated outcome: when the service exits (status 0) the broker has acknowledged every message
in its outbox, so a backend has them that night and not at the next start.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mosquitto import Mosquitto
from tests.reliability import harness

pytestmark = pytest.mark.broker


@pytest.mark.timeout(120)
async def test_a_clean_stop_leaves_nothing_unpublished(tmp_path: Path, broker: Mosquitto) -> None:
    link = tmp_path / "shoe"
    journal = tmp_path / "T07.journal"
    args = harness.run_args(journal=journal, port=link, broker_url=broker.url("T07"))
    left: list[tuple[int, str]] = []
    session = 0
    async with harness.backend(broker) as feed:
        for attempt in range(3):
            async with harness.service(args, tmp_path / "run.log") as table:
                async with harness.mqtt_table(broker, feed, link) as hand:
                    session = await hand.online(session)
                    if attempt == 0:
                        await hand.command("new_shoe", shoe_id="N-1")
                    await hand.barrier()
                # The shoe is unplugged (the reader goes offline): stop at once.
                assert await table.stop() == 0, table.log_tail()
            left += harness.unacknowledged(journal)
    assert left == []
