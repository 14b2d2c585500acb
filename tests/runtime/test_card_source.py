# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Virtual tables: the RNG card source through the real service and journal."""

from __future__ import annotations

import json
import math
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.contract.payloads.state import TableSnapshot
from table_controller.procedure.inputs import (
    CardDrawn,
    Input,
    StartNewShoe,
)
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import input_to_record
from table_controller.rules.composition import Composition
from table_controller.rules.exact import analyse
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.card_source import RngCardSource
from table_controller.runtime.journal.format import INPUT_ROW
from table_controller.runtime.journal.journal import Journal
from tests.support.dealing import rng_round
from tests.support.journal_files import execute_sql
from tests.support.snapshots import snapshot
from tests.support.table_process import events_log
from tests.support.virtual_tables import (
    command,
    published,
    quiet,
    refused,
    released_and_played,
    running,
    settle,
    state_of,
    virtual_service,
)

#: The tests' significance level: a fair RNG fails a check this way once in a thousand runs.
SIGNIFICANCE = 0.001


async def test_a_virtual_mini_table_deals_itself_and_replays_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "events.jsonl"
    with Journal.open(tmp_path / "v.journal", table_id="V1") as journal:
        service = virtual_service(journal, log, "mini", seed=1)
        service.recover()
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="M-1")
            for round_no in range(1, 61):
                await command(service, "open_betting", 2 * round_no)
                await command(service, "close_betting", 2 * round_no + 1)
                state = await settle(service)
                assert state["prompt"]["action"] == "result"
    results = published(log, "round_result")
    assert [r["round_id"] for r in results] == [f"M-1-{n}" for n in range(1, 61)]
    assert not published(log, "alarm")
    assert (
        main(["replay", "--variant", "mini", "--inputs", str(tmp_path / "v.journal"), "--json"])
        == 0
    )
    replayed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert replayed == events_log(log)


async def test_a_virtual_shoe_burns_deals_and_ends_at_its_cut_card(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    with Journal.open(tmp_path / "v.journal", table_id="V1") as journal:
        service = virtual_service(journal, log, "commission", seed=2)
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="S-1")
            await settle(service)
            number = 1
            while state_of(service)["phase"] != "shoe_over":
                await command(service, "open_betting", number)
                await command(service, "close_betting", number + 1)
                number += 2
                await settle(service)
            state = state_of(service)
    burn = published(log, "burn")[-1]
    assert len(burn["cards"]) == burn["count"]
    cards_left = int(str(state["cards_left"]))
    assert 14 - 6 <= cards_left <= 26  # cut card 14-26 from the end; its round completes
    assert published(log, "last_round")
    assert not published(log, "alarm")
    assert len(published(log, "round_result")) > 60


async def test_a_crash_in_mid_round_resumes_with_the_same_cards(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    path = tmp_path / "v.journal"
    with Journal.open(path, table_id="V1") as journal:
        service = virtual_service(journal, log, "mini", seed=3)
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="M-1")
            for number in range(1, 7, 2):
                await command(service, "open_betting", number)
                await command(service, "close_betting", number + 1)
                await settle(service)
        rows = list(journal.rows())
    # The last round's rows: its close_betting, then its cards. Keep the first two cards only:
    # what a SIGKILL after them leaves on disk.
    close = max(r.seq for r in rows if r.payload.get("command") == "close_betting")
    cards = [r for r in rows if r.seq > close and "card" in r.payload]
    assert len(cards) >= 4
    kept = cards[1].seq
    crashed = tmp_path / "crashed.journal"
    shutil.copy(path, crashed)
    execute_sql(crashed, "DELETE FROM events WHERE seq > ?", (kept,))
    restart_log = tmp_path / "restart.jsonl"
    with Journal.open(crashed, table_id="V1") as journal:
        service = virtual_service(journal, restart_log, "mini", seed=99)  # another RNG state
        service.recover()
        async with running(service):
            state = await settle(service)
    assert state["prompt"]["action"] == "result"
    result = published(restart_log, "round_result")[-1]
    dealt = [c.payload["card"] for c in cards[:2]]
    assert [result["player"]["cards"][0], result["banker"]["cards"][0]] == dealt


def test_mini_results_and_cards_pass_chi_square_against_the_exact_odds() -> None:
    """1,000 rounds of the virtual mini table against the exact analyser (seeded RNG)."""
    scipy_stats = pytest.importorskip("scipy.stats")
    variant = VARIANTS["mini"]
    procedure = TableProcedure(variant, table_id="V1")
    source = RngCardSource(variant, rng=random.Random(20261129))
    procedure.handle(StartNewShoe(at=0.0, command_id="c-0", operator="t", shoe_id="M-1"))
    winners: Counter[str] = Counter()
    first_ranks: Counter[str] = Counter()
    rounds = 1000
    for number in range(rounds):
        cards, result = rng_round(procedure, source, number, operator="t")
        first_ranks[cards[0].rank] += 1
        winners[result.winner.value] += 1
    assert sum(winners.values()) == rounds
    exact = analyse(variant, Composition.full(variant.decks)).events
    observed = [winners["banker"], winners["player"], winners["tie"]]
    expected = [float(exact[name]) * rounds for name in ("banker_wins", "player_wins", "tie")]
    chi2 = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    p_value = math.exp(-chi2 / 2)  # the chi-square survival function with 2 degrees of freedom
    assert p_value > SIGNIFICANCE, (observed, expected, p_value)
    ranks = "A23456789TJQK"
    rank_test = scipy_stats.chisquare([first_ranks[rank] for rank in ranks], [rounds / 13] * 13)
    assert rank_test.pvalue > SIGNIFICANCE, (first_ranks, rank_test)


@pytest.mark.parametrize("betting_phase", [True, False], ids=["betting", "no_betting"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_every_virtual_table_deals_each_round_when_told_and_only_then(
    tmp_path: Path, variant: str, *, betting_phase: bool
) -> None:
    """Each round is dealt by its own command, whatever the variant and betting phase.

    Without a betting phase ``deal`` deals each round, round 1 included; with one, closing the
    betting does. ``mini`` starts each round from full decks, betting phase or not.
    """
    log = tmp_path / "events.jsonl"
    rounds = 5
    with Journal.open(tmp_path / "v.journal", table_id="V1") as journal:
        service = virtual_service(journal, log, variant, seed=7, betting_phase=betting_phase)
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="S-1")
            for round_no in range(1, rounds + 1):
                state = await quiet(service)
                assert state["phase"] == "between_rounds", state
                assert state["round_no"] == (round_no - 1 or None), state  # not dealt by itself
                if betting_phase:
                    await command(service, "open_betting", 2 * round_no)
                    await command(service, "close_betting", 2 * round_no + 1)
                else:
                    await command(service, "deal", 2 * round_no)
                state = await quiet(service)
                assert state["prompt"]["action"] == "result", state
                assert state["round_id"] == f"S-1-{round_no}"
    results = published(log, "round_result")
    assert [r["round_id"] for r in results] == [f"S-1-{n}" for n in range(1, rounds + 1)]
    assert not published(log, "alarm")
    for result in results:  # each round's cards were drawn for it, after its command
        cards = [c["card"] for c in published(log, "card") if c["round_id"] == result["round_id"]]
        assert cards == [*result["player"]["cards"][:1], *result["banker"]["cards"][:1],
                         *result["player"]["cards"][1:2], *result["banker"]["cards"][1:2],
                         *result["player"]["cards"][2:], *result["banker"]["cards"][2:]]


def test_a_mini_source_draws_the_first_card_before_any_round_has_an_id() -> None:
    """The source's own "no shoe yet" never stood for a round id of None (the empty shoe)."""
    source = RngCardSource(VARIANTS["mini"], rng=random.Random(3))
    state = snapshot("deal", shoe_id="M-1", round_no=None, round_id=None, card_wanted=True)
    first = source.draw(state, at=0.0)
    assert isinstance(first, CardDrawn)
    dealing = snapshot("deal", shoe_id="M-1", round_no=1, round_id="M-1-1", card_wanted=True)
    source.observe(first, dealing)
    assert isinstance(source.draw(dealing, at=0.1), CardDrawn)


class FailingSource:
    """The real RNG source with a bug: its ``n``-th draw, or its ``n``-th card seen, raises."""

    def __init__(
        self, variant: str, seed: int, *, draw_fails: int = 0, observe_fails: int = 0
    ) -> None:
        self._source = RngCardSource(VARIANTS[variant], rng=random.Random(seed))
        self._draw_fails = draw_fails
        self._observe_fails = observe_fails
        self.draws = 0
        self.cards = 0

    def observe(self, event: Input, state: TableSnapshot) -> None:
        if isinstance(event, CardDrawn):
            self.cards += 1
            if self.cards == self._observe_fails:
                raise RuntimeError(f"the source choked on {event.card.code}")
        self._source.observe(event, state)

    def draw(self, state: TableSnapshot, *, at: float) -> Input:
        self.draws += 1
        if self.draws == self._draw_fails:
            raise RuntimeError("the virtual shoe is empty")
        return self._source.draw(state, at=at)


async def test_a_draw_that_raises_holds_the_table_and_replays_to_the_same_fault(
    tmp_path: Path,
) -> None:
    log = tmp_path / "events.jsonl"
    path = tmp_path / "v.journal"
    with Journal.open(path, table_id="V1") as journal:
        source = FailingSource("mini", 5, draw_fails=3)
        service = virtual_service(journal, log, source=source, betting_phase=False)
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="M-1")
            await command(service, "deal", 1)
            state = await quiet(service)
            assert (state["phase"], state["holds"], state["lamp"]) == (
                "faulted", ["procedure_fault"], "HOLD")
            assert await refused(service, "deal", 2) == "faulted"
            await released_and_played(service, 3, betting=False)
        rows = list(journal.rows())
    failed = [row for row in rows if "runtime_failed" in row.payload]
    assert len(failed) == 1
    last_card = max(row.seq for row in rows if row.seq < failed[0].seq)
    alarm = published(log, "alarm")
    assert [(a["code"], a["round_id"], a["message"]) for a in alarm] == [(
        "procedure_fault", "M-1-1",
        (f"the card source could not draw after journal row {last_card}: "
         "RuntimeError: the virtual shoe is empty"))]
    # A restart replays the journal (the failure included) to the same messages and state.
    with Journal.open(path, table_id="V1") as journal:
        again = virtual_service(journal, tmp_path / "again.jsonl",
                                source=FailingSource("mini", 9), betting_phase=False)
        again.recover()
    assert (tmp_path / "again.jsonl").read_text() == log.read_text()
    assert again.procedure.snapshot() == service.procedure.snapshot()


async def test_an_input_whose_carrying_out_raises_holds_the_table_instead_of_the_service(
    tmp_path: Path,
) -> None:
    log = tmp_path / "events.jsonl"
    path = tmp_path / "v.journal"
    with Journal.open(path, table_id="V1") as journal:
        service = virtual_service(journal, log, source=FailingSource("mini", 6, observe_fails=3),
                                  betting_phase=True)
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="M-1")
            await command(service, "open_betting", 1)
            await command(service, "close_betting", 2)
            state = await quiet(service)
            assert (state["phase"], state["round_id"]) == ("faulted", "M-1-1")
            assert await refused(service, "open_betting", 3) == "faulted"
            await released_and_played(service, 4, betting=True)
        third = [row for row in journal.rows() if "card" in row.payload][2]
    code = third.payload["card"]
    alarm = published(log, "alarm")
    assert [(a["code"], a["message"]) for a in alarm] == [(
        "procedure_fault", (f"journal row {third.seq} (card {code}) could not be carried out: "
                            f"RuntimeError: the source choked on {code}"))]
    with Journal.open(path, table_id="V1") as journal:  # the same bug, the same replay
        again = virtual_service(journal, tmp_path / "again.jsonl", betting_phase=True,
                                source=FailingSource("mini", 9, observe_fails=3))
        again.recover()
    assert (tmp_path / "again.jsonl").read_text() == log.read_text()


def test_a_journal_row_that_is_no_input_comes_up_held_not_down(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    records: list[dict[str, object]] = [
        input_to_record(StartNewShoe(at=0.0, command_id="c-0", operator="pit", shoe_id="M-1")),
        {"v": 2, "card": "5H"},  # written by a newer version, say
    ]
    with Journal.open(tmp_path / "v.journal", table_id="V1") as journal:
        for number, record in enumerate(records):
            journal.append(INPUT_ROW, record, ts_utc="2026-12-01T12:00:00.000Z",
                           monotonic_ns=number)
        service = virtual_service(journal, log, source=FailingSource("mini", 1),
                                  betting_phase=False)
        assert service.recover() == len(records)
    state = state_of(service)
    assert (state["phase"], state["holds"]) == ("faulted", ["procedure_fault"])
    alarm = published(log, "alarm")
    assert [a["message"] for a in alarm] == [
        "journal row 2 could not be carried out: not an input: record version 2 is not 1"]
