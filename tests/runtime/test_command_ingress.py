# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The command ingress in front of a real service and journal: overloads are answered in bulk.

The ingress receives payloads before the table takes any (as while its journal refuses
writes): the queue's few are carried out once it runs, the next ones are answered
``overloaded`` together in one transaction of the journal, and beyond the bound of answers
waiting, payloads are dropped, counted and logged. The broker's side of a flood is in
``tests/mqtt/test_command_flood.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

from structlog.testing import capture_logs

from table_controller.ingress.authorisation import AuthorisationPolicy
from table_controller.runtime.command_intake import CommandIngress
from table_controller.runtime.journal.format import ANSWER_KEY, AUDIT_ROW
from table_controller.runtime.journal.journal import Journal
from tests.support.virtual_tables import published, running, virtual_service
from tests.support.waiting import until


def close_betting(number: int) -> bytes:
    command = {"id": f"c-{number}", "command": "close_betting", "operator": "pit"}
    return json.dumps(command).encode()


async def test_overloads_wait_for_the_journal_up_to_a_bound_then_are_answered_together(
    tmp_path: Path,
) -> None:
    events = tmp_path / "events.jsonl"
    with Journal.open(tmp_path / "V1.journal", table_id="V1") as journal:
        service = virtual_service(journal, events)
        ingress = CommandIngress(service, AuthorisationPolicy(), max_waiting=2, max_unanswered=5)
        with capture_logs() as logs:
            for number in range(10):  # the table takes nothing yet
                ingress.receive(close_betting(number))
            assert (ingress.received, ingress.refused["overloaded"], ingress.dropped) == (10, 5, 3)
            async with running(service):
                taking = asyncio.create_task(ingress.run())
                try:
                    await until(lambda: len(published(events, "command_reply")) == 7, 10.0)
                finally:
                    taking.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await taking
        rows = [row for row in journal.rows() if row.type == AUDIT_ROW]
    replies = {reply["id"]: reply for reply in published(events, "command_reply")}
    assert sorted(replies) == [f"c-{number}" for number in range(7)]  # c-7 to c-9 dropped
    assert [replies[f"c-{n}"]["error"] for n in range(7)] == ["wrong_phase"] * 2 + [
        "overloaded"
    ] * 5
    assert all(replies[f"c-{n}"]["message"].endswith("send it again later") for n in range(2, 7))
    overloads = [row for row in rows if row.payload[ANSWER_KEY]["error"] == "overloaded"]
    assert [row.payload[ANSWER_KEY]["id"] for row in overloads] == [f"c-{n}" for n in range(2, 7)]
    assert len({(row.ts_utc, row.monotonic_ns) for row in overloads}) == 1  # one transaction
    assert [entry["event"] for entry in logs if entry["log_level"] != "info"] == [
        "command ingress overloaded: commands answered overloaded",
        "command ingress cannot answer: payloads dropped",
        "command ingress takes commands again",
    ]
