# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A failure while carrying out an input, after the procedure took it, holds the table.

The sink, the shoe link or the advisor raising must not stop the service: the failure is
journaled as ``RuntimeFailed``, the table is held with an alarm naming the row, a replay of
the journal comes to the same fault, and a supervisor's ``void_shoe`` releases it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from table_controller.contract.outgoing import OutgoingMessage
from table_controller.procedure.machine import ShoeCount
from table_controller.protection.advisor import AdvisorSettings, AssessmentRequest, RoundAdvisor
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.jsonl_sink import JsonLinesSink
from tests.support.virtual_tables import (
    command,
    published,
    quiet,
    refused,
    released_and_played,
    running,
    virtual_service,
)


class FailingSink(JsonLinesSink):
    """The JSON-lines sink that raises when it stages a live ``betting_opened`` (and after)."""

    def __init__(self, path: Path, *, keeps_failing: bool = False) -> None:
        super().__init__(path, table_id="V1", topic_root="baccarat/tables/V1")
        self._keeps_failing = keeps_failing
        self.failed = False

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        opening = any(message.event_type == "betting_opened" for message in messages)
        if (opening and not self.failed) or (self.failed and self._keeps_failing):
            self.failed = True
            raise OSError("the sink's device went away")
        return super().stage(messages)


class AdvisorFailingOnce(RoundAdvisor):
    """The real advisor whose first request for an assessment raises."""

    def __init__(self) -> None:
        super().__init__(VARIANTS["mini"], AdvisorSettings())
        self.requests = 0

    def request(self, count: ShoeCount | None) -> AssessmentRequest | None:
        self.requests += 1
        if self.requests == 1:
            raise ValueError("a bug in the advisor")
        return super().request(count)


def fault_rows(journal: Journal) -> list[str]:
    return [str(row.payload["runtime_failed"]) for row in journal.rows()
            if "runtime_failed" in row.payload]


async def test_a_sink_that_raises_holds_the_table_and_a_replay_comes_to_the_same_fault(
    tmp_path: Path,
) -> None:
    log = tmp_path / "events.jsonl"
    path = tmp_path / "v.journal"
    with Journal.open(path, table_id="V1") as journal:
        sink = FailingSink(log)
        service = virtual_service(journal, sink)
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="M-1")
            reply = await service.submit(
                {"command": "open_betting", "id": "c-1", "operator": "pit"}
            )
            state = await quiet(service)
            assert (state["phase"], state["holds"]) == ("faulted", ["procedure_fault"])
            assert await refused(service, "close_betting", 2) == "faulted"
            await released_and_played(service, 3, betting=True)
        failures = fault_rows(journal)
        opened = next(row.seq for row in journal.rows() if row.payload.get("id") == "c-1")
    assert reply["id"] == "c-1"  # answered, whatever the failure: the submitter never hangs
    assert failures == [
        (f"journal row {opened} (open_betting command c-1) could not be carried out: "
         "OSError: the sink's device went away")
    ]
    assert [a["code"] for a in published(log, "alarm")] == ["procedure_fault"]
    assert failures[0] in published(log, "alarm")[0]["message"]
    with Journal.open(path, table_id="V1") as journal:
        again = virtual_service(journal, tmp_path / "again.jsonl")
        again.recover()
    assert again.procedure.snapshot() == service.procedure.snapshot()
    assert [a["message"] for a in published(tmp_path / "again.jsonl", "alarm")] == [
        a["message"] for a in published(log, "alarm")
    ]


async def test_a_sink_that_keeps_failing_journals_one_failure_per_input_not_a_loop(
    tmp_path: Path,
) -> None:
    with Journal.open(tmp_path / "v.journal", table_id="V1") as journal:
        sink = FailingSink(tmp_path / "events.jsonl", keeps_failing=True)
        service = virtual_service(journal, sink)
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="M-1")
            await service.submit({"command": "open_betting", "id": "c-1", "operator": "pit"})
            assert (await quiet(service))["phase"] == "faulted"
            await service.submit({"command": "close_betting", "id": "c-2", "operator": "pit"})
            await quiet(service)
        failures = fault_rows(journal)
    # One for each command whose carrying out failed; the failures' own are only logged.
    assert [failure.split(" could not")[0].split("(")[1] for failure in failures] == [
        "open_betting command c-1)", "close_betting command c-2)"
    ]


async def test_an_advisor_that_raises_is_logged_and_play_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = tmp_path / "events.jsonl"
    with Journal.open(tmp_path / "v.journal", table_id="V1") as journal:
        advisor = AdvisorFailingOnce()
        service = virtual_service(journal, log, advisor=advisor)
        async with running(service):
            await command(service, "new_shoe", 0, shoe_id="M-1")
            for number in range(1, 7, 2):
                await command(service, "open_betting", number)
                await command(service, "close_betting", number + 1)
                state = await quiet(service)
                assert state["phase"] == "between_rounds", state
            async with asyncio.timeout(10):
                while service.analysing or service.queue_depth:  # noqa: ASYNC110
                    await asyncio.sleep(0.01)
        assert not fault_rows(journal)
    assert service.analyses_failed == 1
    assert "a bug in the advisor" in caplog.text
    assert published(log, "odds")  # the next requests went through
