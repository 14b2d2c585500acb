# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A ``recall`` flood at a real table: ``table-controller run`` over a real mosquitto.

A signing virtual table deals rounds; then one operator publishes 600 recalls on one
connection, 100 more come from as many operators, and one id is sent again. Past the
operator's limit a recall is refused ``rate_limited``; the journal grows by a few hundred
bytes a command, not by the rounds each reply holds, and the outbox lets every recall's reply
go once the broker has it.
``table-controller replay`` of the journal numbers every message as the table did, and the
table started again on its journal with its outbox emptied publishes every message again,
recall replies included, byte for byte (the same ``seq`` and signature).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import pytest

from table_controller.mqtt.client.connect import new_client
from table_controller.mqtt.client.subscriber import Received
from tests.mosquitto import Mosquitto
from tests.reliability.harness import journal_query
from tests.resend.test_resend_table import (
    ROOT,
    TABLE,
    deal_rounds,
    first_deliveries,
    resending_table,
    start_shoe,
)
from tests.support.backend import Backend, listening
from tests.support.journal_files import execute_sql
from tests.support.table_process import table_controller

pytestmark = pytest.mark.broker

ROUNDS: Final = 10
#: One operator's recalls, and the table's limit for each operator.
FLOOD: Final = 600
PER_MINUTE: Final = 5
#: Recalls from as many operators as recalls: no operator's limit is reached.
OPERATORS: Final = 100


def journal_bytes(journal: Path) -> int:
    """The bytes of the journal's payloads (the outbox's rows are not the journal's)."""
    return int(journal_query(journal, "SELECT sum(length(payload)) FROM events")[0][0])


def recall_replies(journal: Path) -> list[tuple[int, str]]:
    """``(seq, key)`` of the acknowledged outbox rows that hold a recall's rounds."""
    rows = journal_query(
        journal, "SELECT seq, key, payload FROM outbox WHERE acked_at IS NOT NULL ORDER BY seq"
    )
    return [(int(seq), str(key)) for seq, key, payload in rows if '"rounds":[' in payload]


async def flood(backend: Backend, ids: list[str], operators: list[str]) -> dict[str, Any]:
    """Publish a recall for each id on one connection; the replies, by id, once all came."""
    async with new_client(backend.endpoint, identifier="recall-flood", persistent=False) as client:
        for command_id, operator in zip(ids, operators, strict=True):
            body = {"id": command_id, "command": "recall", "operator": operator,
                    "args": {"rounds": 50}}  # fmt: skip
            await client.publish(f"{ROOT}/commands", json.dumps(body), qos=1)
    replies: dict[str, Any] = {}
    async with asyncio.timeout(120):
        while len(replies) < len(ids):
            message = await backend.feed.get()
            backend.received.append(message)
            if message.topic == f"{ROOT}/commands/replies":
                reply = json.loads(message.payload)
                if reply["id"] in ids:
                    replies[reply["id"]] = reply
    return replies


def unsent(body: dict[str, Any]) -> dict[str, Any]:
    """A reply without what each publication has of its own (``seq``, ``ts``, ``sig``)."""
    return {key: value for key, value in body.items() if key not in {"seq", "ts", "sig"}}


def unsigned(body: dict[str, Any]) -> dict[str, Any]:
    """A message as ``replay`` prints it: without the device's ``kid`` and ``sig``."""
    return {key: value for key, value in body.items() if key not in {"kid", "sig"}}


@pytest.mark.timeout(300)
async def test_a_recall_flood_is_limited_costs_the_journal_little_and_replays_as_published(
    tmp_path: Path, broker: Mosquitto
) -> None:
    journal = tmp_path / f"{TABLE}.journal"
    async with listening(broker, ROOT, "backend-recall-flood") as backend:
        async with resending_table(tmp_path, broker, recall_requests_per_minute=PER_MINUTE):
            await backend.wait_online()
            await start_shoe(backend)
            await deal_rounds(backend, 1, ROUNDS)
            journal_before = journal_bytes(journal)

            ids = [f"r-{n}" for n in range(FLOOD)]
            started = time.monotonic()
            replies = await flood(backend, ids, ["pit-12"] * FLOOD)
            minutes = 1 + int((time.monotonic() - started) // 60)
            answered = [command_id for command_id in ids if replies[command_id]["ok"]]
            assert answered[:PER_MINUTE] == ids[:PER_MINUTE]
            assert len(answered) <= PER_MINUTE * minutes  # a loaded machine may pass a minute
            limited = replies[ids[PER_MINUTE]]
            assert (limited["ok"], limited["error"]) == (False, "rate_limited"), limited
            assert "operator 'pit-12' asked for 5 recalls in the last minute" in limited["message"]
            assert {r["error"] for r in replies.values() if not r["ok"]} == {"rate_limited"}
            assert len(replies[ids[0]]["rounds"]) == ROUNDS
            reply_bytes = len(json.dumps(replies[ids[0]]))

            others = [f"o-{n}" for n in range(OPERATORS)]
            spread = await flood(backend, others, [f"desk-{n}" for n in range(OPERATORS)])
            assert all(reply["ok"] for reply in spread.values())
            repeated = await backend.send({"id": ids[0], "command": "recall",
                                           "operator": "pit-12", "args": {"rounds": 50}})
            assert unsent(repeated) == unsent(replies[ids[0]])  # answered as first given
            grown = journal_bytes(journal) - journal_before
            last_live = max(first_deliveries(backend.received))

        # Each recall answered grew the journal by its whole reply before (13 KB a recall).
        assert reply_bytes > 10_000
        assert grown < (FLOOD + OPERATORS) * 250, grown
        kept = recall_replies(journal)  # acknowledged, they leave: but the newest row
        assert len(kept) <= 1, kept

        heard = first_deliveries(backend.received)
        live = {seq: heard[seq] for seq in range(1, last_live + 1)}
        await replayed_as_published(journal, live)

        # Started again with its outbox lost: every message is made again from the journal.
        execute_sql(journal, "DELETE FROM outbox")
        execute_sql(journal, "DELETE FROM outbox_meta")
        heard_from = len(backend.received)
        async with resending_table(tmp_path, broker, recall_requests_per_minute=PER_MINUTE):
            await backend.wait_online()
            async with asyncio.timeout(60):
                while not set(range(1, last_live + 1)) <= set(
                    first_deliveries(backend.received[heard_from:])
                ):
                    backend.received.append(await backend.feed.get())
    again = first_deliveries(backend.received[heard_from:])
    published_again(live, again, last_live)
    replies_again = [
        json.loads(again[seq].payload) for seq in range(1, last_live + 1)
        if again[seq].topic.endswith("/commands/replies")
    ]  # fmt: skip
    assert sum(1 for reply in replies_again if "rounds" in reply) == len(answered) + OPERATORS + 1


async def replayed_as_published(journal: Path, live: Mapping[int, Received]) -> None:
    """``replay`` of the journal prints the events the backend got, with the same ``seq``.

    ``replay`` numbers every message, replies included: a recall's reply it did not make again
    would shift every ``seq`` after it.
    """
    events = [
        unsigned(json.loads(live[seq].payload))
        for seq in sorted(live)
        if "/events/" in live[seq].topic or live[seq].topic.endswith(("/roads", "/odds"))
    ]
    status, out, err = await table_controller(
        "replay", "--variant", "commission", "--no-betting-phase", "--inputs", str(journal),
        "--json",
    )  # fmt: skip
    assert status == 0, err[-2000:]
    assert "not published" not in err
    assert [json.loads(line) for line in out.splitlines()] == events


def published_again(
    live: Mapping[int, Received], again: Mapping[int, Received], last_live: int
) -> None:
    """Every message up to ``last_live`` made again from the journal is the one published live."""
    assert [seq for seq in range(1, last_live + 1) if again[seq].topic != live[seq].topic] == []
    # ``odds`` come back from the journal's canonical JSON with their bets in sorted order
    # (and so another signature): the same content; every other message byte for byte.
    odds = {seq for seq in live if live[seq].topic.endswith("/odds")}
    assert [
        seq for seq in odds
        if unsigned(json.loads(again[seq].payload)) != unsigned(json.loads(live[seq].payload))
    ] == []  # fmt: skip
    different = [
        seq for seq in range(1, last_live + 1)
        if seq not in odds and again[seq].payload != live[seq].payload
    ]  # fmt: skip
    assert different == []
