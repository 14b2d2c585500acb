# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Live odds through the table service: analysed off the dealing path, journaled, replayed alike."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import random
import time
from collections.abc import Mapping, Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from drivers.events import CardSeen, Delivery
from table_controller.cli import main
from table_controller.history.pace import Pace
from table_controller.procedure.machine import TableProcedure
from table_controller.protection.advisor import AdvisorSettings, RoundAdvisor
from table_controller.protection.edge import DynamicWindows
from table_controller.rules.cards import RANKS, all_cards
from table_controller.rules.variants import COMMISSION
from table_controller.runtime.journal.format import INPUT_ROW
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.jsonl_sink import JsonLinesSink
from table_controller.runtime.service import TableService
from tests.protection.shoes import fair_shoe, stacked_shoe
from tests.support.dealing import LinkedService, ScriptedDealer
from tests.support.links import MemoryLink, MemorySink
from tests.support.observers import Heard
from tests.support.table_process import events_log

ROOT = "baccarat/tables/T07"


@dataclass(frozen=True, slots=True, kw_only=True)
class Shoe:
    """One shoe for :func:`live`: its id, its cards in order, how many rounds, whether cut.

    The cut card, if any, comes out after the last round.
    """

    shoe_id: str
    order: Sequence[str]
    rounds: int
    cut: bool = False


async def live(
    tmp_path: Path, shoes: Sequence[Shoe], settings: AdvisorSettings | None = None
) -> list[dict[str, Any]]:
    """Shoes dealt through a live service with live odds (journal ``t.journal``); its events."""
    log = tmp_path / "events.jsonl"
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        link = MemoryLink(journal)
        sink = JsonLinesSink(log, table_id="T07", topic_root=ROOT)
        heard = Heard()
        service = TableService(
            procedure=TableProcedure(COMMISSION, table_id="T07"),
            journal=journal,
            sink=sink,
            pace=Pace(),
            observers=[heard],
            link=link,
            advisor=RoundAdvisor(COMMISSION, settings),
            wall_clock=lambda: "2026-11-29T12:00:00.000Z",
        )
        task = asyncio.create_task(service.run())
        table = LinkedService(service, link, heard)
        ids = itertools.count(1)
        try:
            await table.hello()
            for shoe in shoes:
                dealer = ScriptedDealer(shoe.order, operator="pit", rounds=shoe.rounds, ids=ids)
                await table.give(dealer.command("new_shoe", shoe_id=shoe.shoe_id))
                await table.play(dealer)  # the burn, then the rounds
                if shoe.cut:
                    await table.give({"cut": True})
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            sink.close()
        journaled = [row for row in journal.rows() if "assessed" in row.payload]
        assert len(journaled) == service.assessments, "each assessment is a journaled input"
    return events_log(log)


def stacked() -> list[str]:
    """Pairs turn player-favourable late in this shoe."""
    return [card.code for card in stacked_shoe("23456789T", "9", seed=1)]


async def play(tmp_path: Path, settings: AdvisorSettings, rounds: int) -> list[dict[str, Any]]:
    """A stacked shoe (pairs turn player-favourable late) through the service; its events."""
    return await live(tmp_path, [Shoe(shoe_id="S-1", order=stacked(), rounds=rounds)], settings)


def replayed(inputs: Path, *flags: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["replay", "--inputs", str(inputs), "--table-id", "T07", "--json", *flags])
    assert status == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def recorded_inputs(journal: Path, *, assessments: bool = False) -> Path:
    """The journal's inputs as a JSON-lines inputs file, without the assessments by default."""
    with Journal.open_read_only(journal) as opened:
        lines = [
            json.dumps({**row.payload, "ts": row.ts_utc})
            for row in opened.rows()
            if row.type == INPUT_ROW and (assessments or "assessed" not in row.payload)
        ]
    path = journal.with_suffix(".assessed.jsonl" if assessments else ".inputs.jsonl")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def alarms(events: Sequence[Mapping[str, Any]], code: str) -> list[Mapping[str, Any]]:
    return [e for e in events if e["type"] == "alarm" and e["code"] == code]


async def test_odds_and_the_edge_alarm_come_live_and_replay_identically(tmp_path: Path) -> None:
    events = await play(tmp_path, AdvisorSettings(), rounds=34)
    odds = [e for e in events if e["type"] == "odds"]
    assert [o["round_no"] for o in odds] == list(range(1, 36))
    pair_rounds = [a["round_no"] for a in alarms(events, "edge_positive")
                   if a["bet"] == "player_pair"]  # fmt: skip
    assert len(pair_rounds) == 1
    below = [o["round_no"] for o in odds if o["bets"]["player_pair"]["house_edge"] < 0]
    assert pair_rounds == [below[0]], "the alarm comes with the first odds below zero"
    # odds come before the round they are for, and after the result of the one before
    order = [(e["type"], e.get("round_no")) for e in events]
    first = pair_rounds[0]
    assert order.index(("odds", first)) < order.index(("betting_opened", first))
    assert order.index(("round_result", first - 1)) < order.index(("odds", first))
    assert replayed(tmp_path / "t.journal") == events, "replay numbers them as published"
    inputs = recorded_inputs(tmp_path / "t.journal")
    assert replayed(inputs) == events, "recorded inputs are assessed as the table assessed them"
    without = replayed(inputs, "--no-assess")
    assert not [e for e in without if e["type"] == "odds" or e["type"] == "alarm"]
    results = [{**e, "seq": None} for e in events if e["type"] == "round_result"]
    assert [{**e, "seq": None} for e in without if e["type"] == "round_result"] == results


async def test_dynamic_windows_suspend_through_the_service(tmp_path: Path) -> None:
    events = await play(tmp_path, AdvisorSettings(dynamic_windows=DynamicWindows()), rounds=34)
    pair_alarms = [e for e in events if e["type"] == "alarm" and e.get("bet") == "player_pair"]
    first = pair_alarms[0]["round_no"]
    opened = {e["round_no"]: e for e in events if e["type"] == "betting_opened"}
    results = {e["round_no"]: e for e in events if e["type"] == "round_result"}
    assert "player_pair" in [s["bet"] for s in opened[first]["bets_suspended"]]
    assert results[first]["settlement"]["player_pair"] == "not_offered"
    assert results[first - 1]["settlement"]["player_pair"] != "not_offered"
    assert replayed(tmp_path / "t.journal") == events


def sorted_shoe() -> list[str]:
    """Eight decks in rank order: every ace, then every 2, and so on."""
    return [card.code for rank in RANKS for card in all_cards() if card.rank == rank
            for _ in range(8)]  # fmt: skip


async def test_a_sorted_shoe_raises_shuffle_pattern_in_replay_as_live(tmp_path: Path) -> None:
    events = await live(tmp_path, [Shoe(shoe_id="S-1", order=sorted_shoe(), rounds=3)])
    patterns = alarms(events, "shuffle_pattern")
    assert "one_rank" in [a["kind"] for a in patterns]
    inputs = recorded_inputs(tmp_path / "t.journal")
    assert replayed(inputs) == events
    assert not alarms(replayed(inputs, "--no-assess"), "shuffle_pattern")


async def test_the_same_shoe_twice_raises_shoe_repeated_in_replay_as_live(tmp_path: Path) -> None:
    order = [card.code for card in fair_shoe(8, random.Random(11))]
    shoes = [Shoe(shoe_id="S-1", order=order, rounds=6, cut=True),
             Shoe(shoe_id="S-2", order=order, rounds=6)]  # fmt: skip
    events = await live(tmp_path, shoes)
    repeated = alarms(events, "shoe_repeated")
    assert [(a["shoe_id"], a["past_shoe_id"]) for a in repeated] == [("S-2", "S-1")]
    inputs = recorded_inputs(tmp_path / "t.journal")
    assert replayed(inputs) == events
    # Inputs that hold the assessments are replayed as recorded, never assessed again.
    assert replayed(tmp_path / "t.journal") == events
    assert replayed(recorded_inputs(tmp_path / "t.journal", assessments=True)) == events


class WatchedAdvisor(RoundAdvisor):
    """The real advisor, noting when its warm-up ran; the warm-up lasts at least 0.2 s."""

    def __init__(self, order: list[str]) -> None:
        super().__init__(COMMISSION)
        self.order = order

    def warm_up(self) -> None:
        self.order.append("warm-up started")
        super().warm_up()
        time.sleep(0.2)  # longer than an input takes, whatever this process already computed
        self.order.append("warm-up done")


async def test_the_warm_up_is_done_before_the_first_input_is_processed(tmp_path: Path) -> None:
    order: list[str] = []
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        link = MemoryLink(journal)
        heard = Heard(lambda message: order.append(f"message {message.event_type}"))
        service = TableService(
            procedure=TableProcedure(COMMISSION, table_id="T07"),
            journal=journal,
            sink=MemorySink(),
            pace=Pace(),
            observers=[heard],
            link=link,
            advisor=WatchedAdvisor(order),
        )
        await link.events.put(CardSeen(card="5H", delivery=Delivery(epoch=1, seq=0)))
        record = {"command": "new_shoe", "id": "c-1", "operator": "pit",
                  "args": {"shoe_id": "S-1"}}  # fmt: skip
        task = asyncio.create_task(service.run())
        try:
            reply = await service.submit(record)
            async with asyncio.timeout(20):
                while not link.confirmed:  # noqa: ASYNC110 - the link's own event is shared
                    await asyncio.sleep(0.005)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert reply["ok"]
        assert order[:2] == ["warm-up started", "warm-up done"], order
        assert len(order) > 2, "the inputs were processed after it"
