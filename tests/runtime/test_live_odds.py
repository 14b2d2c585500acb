# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Live odds through the table service: analysed off the dealing path, journaled, replayed alike."""

from __future__ import annotations

import asyncio
import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from drivers.events import CardSeen, Delivery, ReaderHello
from table_controller.cli import main
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.states import Phase
from table_controller.protection.advisor import AdvisorSettings, RoundAdvisor
from table_controller.protection.edge import DynamicWindows
from table_controller.rules.variants import COMMISSION
from table_controller.runtime.journal import INPUT_ROW, Journal
from table_controller.runtime.jsonl_sink import JsonLinesSink
from table_controller.runtime.service import TableService
from tests.protection.test_replay_edges import stacked_shoe
from tests.runtime.test_service import MemoryLink

ROOT = "baccarat/tables/T07"


class Dealer:
    """Deals a shoe into a running service through its shoe link, a card at a time."""

    def __init__(self, service: TableService, link: MemoryLink) -> None:
        self.service = service
        self.link = link
        self.seq = 0
        self.commands = 0

    async def hello(self) -> None:
        await self.link.events.put(
            ReaderHello(model="VS", firmware="1", serial="1", delivery=self._next())
        )
        await self._confirmed()

    def _next(self) -> Delivery:
        delivery = Delivery(epoch=1, seq=self.seq)
        self.seq += 1
        return delivery

    async def _confirmed(self) -> None:
        async with asyncio.timeout(20):
            while len(self.link.confirmed) < self.seq:
                await self.link.changed.wait()
                self.link.changed.clear()

    async def card(self, code: str) -> None:
        await self.link.events.put(CardSeen(card=code, delivery=self._next()))
        await self._confirmed()
        await asyncio.sleep(0)  # the input is handled right after its acknowledgement

    async def command(self, name: str, **args: object) -> dict[str, object]:
        self.commands += 1
        record = {"command": name, "id": f"c-{self.commands}", "operator": "pit", "args": args}
        return await self.service.submit(record)

    async def assessed(self, count: int) -> None:
        """Wait until ``count`` assessments were handed to the table (the pit waits too)."""
        async with asyncio.timeout(20):
            while self.service.assessments < count or self.service.queue_depth:  # noqa: ASYNC110
                await asyncio.sleep(0.005)


def events_log(path: Path) -> list[dict[str, Any]]:
    messages = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if "/events/" in entry["topic"] or entry["topic"].endswith(("/roads", "/odds")):
            messages.append(entry["message"])
    return messages


async def play(tmp_path: Path, settings: AdvisorSettings, rounds: int) -> list[dict[str, Any]]:
    """A stacked shoe (pairs turn player-favourable late) through the service; its events."""
    shoe = [card.code for card in stacked_shoe("23456789T", "9", seed=1)]
    log = tmp_path / "events.jsonl"
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        link = MemoryLink(journal)
        sink = JsonLinesSink(log, table_id="T07", topic_root=ROOT)
        service = TableService(
            procedure=TableProcedure(COMMISSION, table_id="T07"),
            journal=journal,
            sink=sink,
            link=link,
            advisor=RoundAdvisor(COMMISSION, settings),
            wall_clock=lambda: "2026-11-29T12:00:00.000Z",
        )
        task = asyncio.create_task(service.run())
        dealer = Dealer(service, link)
        try:
            await dealer.hello()
            assert (await dealer.command("new_shoe", shoe_id="S-1"))["ok"]
            cards = iter(shoe)
            while service.procedure.phase is not Phase.BETWEEN_ROUNDS:
                await dealer.card(next(cards))  # the burn
            for round_no in range(1, rounds + 1):
                await dealer.assessed(round_no)
                assert (await dealer.command("open_betting"))["ok"]
                assert (await dealer.command("close_betting"))["ok"]
                while service.procedure.phase is not Phase.BETWEEN_ROUNDS:
                    await dealer.card(next(cards))
            await dealer.assessed(rounds + 1)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            sink.close()
        kinds = [next(iter(set(row.payload) - {"v", "at"})) for row in journal.rows()
                 if row.type == INPUT_ROW]  # fmt: skip
        assert kinds.count("assessed") == rounds + 1, "each assessment is a journaled input"
    return events_log(log)


def replayed(journal: Path) -> list[dict[str, Any]]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["replay", "--inputs", str(journal), "--json"])
    assert status == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def test_odds_and_the_edge_alarm_come_live_and_replay_identically(tmp_path: Path) -> None:
    events = await play(tmp_path, AdvisorSettings(), rounds=34)
    odds = [e for e in events if e["type"] == "odds"]
    assert [o["round_no"] for o in odds] == list(range(1, 36))
    alarms = [e for e in events if e["type"] == "alarm" and e["code"] == "edge_positive"]
    pair_rounds = [a["round_no"] for a in alarms if a["bet"] == "player_pair"]
    assert len(pair_rounds) == 1
    below = [o["round_no"] for o in odds if o["bets"]["player_pair"]["house_edge"] < 0]
    assert pair_rounds == [below[0]], "the alarm comes with the first odds below zero"
    # odds come before the round they are for, and after the result of the one before
    order = [(e["type"], e.get("round_no")) for e in events]
    first = pair_rounds[0]
    assert order.index(("odds", first)) < order.index(("betting_opened", first))
    assert order.index(("round_result", first - 1)) < order.index(("odds", first))
    assert replayed(tmp_path / "t.journal") == events, "replay numbers them as published"


async def test_dynamic_windows_suspend_through_the_service(tmp_path: Path) -> None:
    events = await play(tmp_path, AdvisorSettings(dynamic_windows=DynamicWindows()), rounds=34)
    alarms = [e for e in events if e["type"] == "alarm" and e.get("bet") == "player_pair"]
    first = alarms[0]["round_no"]
    opened = {e["round_no"]: e for e in events if e["type"] == "betting_opened"}
    results = {e["round_no"]: e for e in events if e["type"] == "round_result"}
    assert "player_pair" in [s["bet"] for s in opened[first]["bets_suspended"]]
    assert results[first]["settlement"]["player_pair"] == "not_offered"
    assert results[first - 1]["settlement"]["player_pair"] != "not_offered"
    assert replayed(tmp_path / "t.journal") == events
