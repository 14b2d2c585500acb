# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``recall`` at the command ingress: limited per operator, journaled by its seal, made again.

The real command ingress and table service, over a real journal and the real outbox in the same
SQLite file; the shoe link is in memory. A flood of recalls from one operator is answered up to
the limit and refused ``rate_limited`` past it, and grows the journal by a few hundred bytes a
command where each reply is tens of kilobytes. The recalls are given while rounds are dealt, so
a recall's turn in the queue matters; recovering the journal into a fresh outbox gives every
message again byte for byte, replies included, and a row whose seal does not match the rounds
made again is logged and not published.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from structlog.testing import capture_logs

from table_controller.history.pace import Pace
from table_controller.ingress.authorisation import AuthorisationPolicy
from table_controller.mqtt.outbox import Outbox
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.clock import utc_now
from table_controller.runtime.command_intake import CommandIngress
from table_controller.runtime.journal.format import AUDIT_ROW, RECALL_ANSWER_KEY
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.outbox_sink import OutboxSink
from table_controller.runtime.service import TableService
from tests.reliability.harness import journal_query
from tests.support.dealing import LinkedService, ScriptedDealer, seeded_shoe
from tests.support.journal_files import execute_sql
from tests.support.links import MemoryLink
from tests.support.observers import Heard

ROOT: Final = "baccarat/tables/T07"
#: The rounds dealt before and while the recalls come.
ROUNDS: Final = 12
#: The recalls one operator sends, and how many a minute the table answers.
FLOOD: Final = 600
PER_MINUTE: Final = 5


def recall(command_id: str, operator: str = "pit-12", rounds: int = 50) -> bytes:
    body = {"id": command_id, "command": "recall", "operator": operator, "args": {"rounds": rounds}}
    return json.dumps(body).encode()


@dataclass
class Clock:
    """The ingress's monotonic seconds, moved on by the test."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Table:
    service: TableService
    ingress: CommandIngress
    dealt: LinkedService


def payload_bytes(path: Path, table: str) -> int:
    """The bytes of every stored payload of ``table`` (``events``: the journal; ``outbox``)."""
    sql = f"SELECT coalesce(sum(length(payload)), 0) FROM {table}"
    return int(journal_query(path, sql)[0][0])


@asynccontextmanager
async def running_table(path: Path, clock: Callable[[], float]) -> AsyncIterator[Table]:
    """A table service with its ingress, journal and outbox in ``path``, running."""
    with Journal.open(path, table_id="T07") as journal, Outbox.open(path, clock=utc_now) as box:
        link = MemoryLink(journal)
        heard = Heard()
        service = TableService(
            procedure=TableProcedure(VARIANTS["commission"], table_id="T07"),
            journal=journal,
            sink=OutboxSink(box, table_id="T07", topic_root=ROOT),
            pace=Pace(),
            observers=[heard],
            link=link,
        )
        ingress = CommandIngress(
            service, AuthorisationPolicy(), recalls_per_minute=PER_MINUTE, clock=clock
        )
        task = asyncio.create_task(service.run())
        try:
            dealt = LinkedService(service, link, heard)
            await dealt.hello()
            yield Table(service, ingress, dealt)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task


async def deal(table: Table, dealer: ScriptedDealer) -> None:
    await table.dealt.give(dealer.command("new_shoe", shoe_id="S-1"))
    await table.dealt.play(dealer)


def recovered_outbox(journal: Path, copy: Path) -> list[tuple[str, str, str]]:
    """``(key, topic, payload)`` of every message a service recovering ``journal`` publishes.

    The journal is recovered into a fresh outbox in ``copy``, as after a crash that lost the
    whole outbox: what the table publishes again must be what it published live.
    """
    copy.write_bytes(journal.read_bytes())
    execute_sql(copy, "DELETE FROM outbox")
    execute_sql(copy, "DELETE FROM outbox_meta")
    with Journal.open(copy) as rows, Outbox.open(copy, clock=utc_now) as box:
        service = TableService(
            procedure=TableProcedure(VARIANTS["commission"], table_id="T07"),
            journal=rows,
            sink=OutboxSink(box, table_id="T07", topic_root=ROOT),
            pace=Pace(),
        )
        service.recover()
        return [(row.key, row.topic, row.payload) for row in box.rows()]


async def test_a_recall_flood_is_limited_and_journaled_by_its_seal_and_recovers_as_it_was_live(
    tmp_path: Path,
) -> None:
    path = tmp_path / "T07.journal"
    clock = Clock()
    async with running_table(path, clock) as table:
        dealer = ScriptedDealer(seeded_shoe(3), rounds=ROUNDS - 3)
        await deal(table, dealer)
        journal_before, outbox_before = payload_bytes(path, "events"), payload_bytes(path, "outbox")

        # One operator's flood, while the last rounds are dealt: each recall takes its turn.
        more = ScriptedDealer(seeded_shoe(3), rounds=3, ids=itertools.count(1000))
        dealing = asyncio.create_task(table.dealt.play(more))
        replies = [await table.ingress.handle(recall(f"r-{n}")) for n in range(FLOOD)]
        await dealing
        answered = [reply for reply in replies if reply["ok"]]
        refused = [reply for reply in replies if not reply["ok"]]
        assert [reply["id"] for reply in answered] == [f"r-{n}" for n in range(PER_MINUTE)]
        assert {reply["error"] for reply in refused} == {"rate_limited"}
        assert refused[0]["message"] == (
            f"operator 'pit-12' asked for {PER_MINUTE} recalls in the last minute, the most this"
            " table takes; the next is taken in 60 s"
        )
        reply_bytes = min(len(json.dumps(reply)) for reply in answered)
        assert reply_bytes > 10_000, "each recall answered holds rounds of steps"
        journal_growth = payload_bytes(path, "events") - journal_before
        # Each row holds the id, the rounds and the seal, or a refusal: never the rounds.
        assert journal_growth < FLOOD * 250, journal_growth

        # Other operators are counted on their own; a repeated id is answered as it was.
        other = await table.ingress.handle(recall("o-1", operator="pit-7", rounds=2))
        assert other["ok"], other
        assert isinstance(other["rounds"], list)
        assert len(other["rounds"]) == 2
        assert await table.ingress.handle(recall("r-0")) == answered[0]
        clock.now += 60.0  # a minute on: the operator is answered again
        later = await table.ingress.handle(recall("r-late", rounds=ROUNDS + 5))
        assert later["ok"], later
        assert isinstance(later["rounds"], list)
        assert len(later["rounds"]) == ROUNDS
    assert refused, "the flood went past the limit"
    # The outbox's copies are written by the service's writer thread, which a stopped service
    # has finished: read before the stop, the last reply may not be there yet.
    outbox_growth = payload_bytes(path, "outbox") - outbox_before
    with Outbox.open(path, clock=utc_now) as box:
        live = [(row.key, row.topic, row.payload) for row in box.rows()]

    with Journal.open_read_only(path) as journal:
        audit = [row.payload for row in journal.rows() if row.type == AUDIT_ROW]
    recalled = [row[RECALL_ANSWER_KEY] for row in audit if RECALL_ANSWER_KEY in row]
    assert [row["id"] for row in recalled] == [
        *(f"r-{n}" for n in range(PER_MINUTE)),
        "o-1",
        "r-0",
        "r-late",
    ]
    assert all(set(row) == {"id", "rounds", "seal"} for row in recalled)
    assert all(len(json.dumps(row)) < 150 for row in recalled)
    # The outbox holds every reply until the broker has it (no broker here): the rounds too.
    assert outbox_growth > (PER_MINUTE + 3) * reply_bytes

    assert recovered_outbox(path, tmp_path / "recovered.journal") == live


async def test_a_recall_answer_that_does_not_match_its_seal_is_logged_not_published(
    tmp_path: Path,
) -> None:
    path = tmp_path / "T07.journal"
    async with running_table(path, Clock()) as table:
        await deal(table, ScriptedDealer(seeded_shoe(5), rounds=2))
        assert (await table.ingress.handle(recall("r-1")))["ok"]
        assert (await table.ingress.handle(recall("r-2", rounds=1)))["ok"]
    rows = journal_query(
        path, "SELECT seq, payload FROM events WHERE payload LIKE '%recall_answer%' ORDER BY seq"
    )
    (first_seq, first), (second_seq, _) = rows
    forged: dict[str, Any] = json.loads(first)
    forged[RECALL_ANSWER_KEY]["seal"] = "0" * 64  # no reply the journal makes again has it
    with Journal.open(path) as journal:  # a new row: the chain stays whole
        journal.append(AUDIT_ROW, forged, ts_utc="2026-11-29T12:00:00.000Z", monotonic_ns=0)
        forged_seq = journal.head[0]
    with capture_logs() as logs:
        keys = {key for key, _, _ in recovered_outbox(path, tmp_path / "recovered.journal")}
    assert {f"{first_seq}.0", f"{second_seq}.0"} <= keys
    assert f"{forged_seq}.0" not in keys
    [failed] = [log for log in logs if log["event"].startswith("journaled recall")]
    assert failed["row"] == str(forged_seq)
    assert "does not match its seal" in failed["error"]
