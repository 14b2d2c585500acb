# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The recall book fed by the real procedure: every step of each round, in order."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from table_controller.contract.envelope import fields_of
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.contract.payloads.pit import DisputeOpened
from table_controller.contract.payloads.replies import RecallStep
from table_controller.history.pace import Pace
from table_controller.history.recall import RecallBook, with_disputes_sealed
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.interpreter import DecisionInterpreter
from tests.support.dealing import Record, ScriptedDealer, as_input, seeded_shoe, step_of

HEAD = "9f" * 32


class RecalledTable:
    """A bare procedure whose every input (numbered as journal rows) feeds a recall book."""

    def __init__(self, book: RecallBook | None = None) -> None:
        self.procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
        self.interpreter = DecisionInterpreter(pace=Pace())
        self.book = RecallBook() if book is None else book
        self.seq = 0
        self.ids = 0
        self.records: list[Record] = []
        self.messages: tuple[OutgoingMessage, ...] = ()

    def give(self, record: Record) -> None:
        self.records.append(record)
        self.seq += 1
        event = as_input(record)
        decisions = self.procedure.handle(event)
        ts = f"2026-11-29T20:00:{self.seq % 60:02d}.000Z"
        outcome = self.interpreter.interpret(
            decisions, self.procedure.snapshot(), key=str(self.seq), ts=ts
        )
        self.messages = with_disputes_sealed(outcome.messages, self.book, HEAD)
        self.book.observe(event, self.seq, ts, self.messages)

    def command(self, command: str, supervisor: str | None = None, **args: object) -> None:
        self.ids += 1
        record: Record = {"command": command, "id": f"c-{self.ids}", "operator": "pit"}
        if args:
            record["args"] = args
        if supervisor is not None:
            record["supervisor"] = supervisor
        self.give(record)

    def cards(self, *codes: str) -> None:
        for code in codes:
            self.give({"misread": True} if code == "??" else {"card": code})


def cards_of(steps: list[RecallStep]) -> list[tuple[Any, ...]]:
    return [
        (step["card"], step["position"], step["source"]) for step in steps if step["kind"] == "card"
    ]


def kinds(steps: list[RecallStep]) -> list[str]:
    return [step["kind"] for step in steps]


def first_shoe(table: RecalledTable) -> None:
    """A shoe whose burn (3H: three cards) and first round is a natural 9 for the Player."""
    table.command("sign_in", staff_id="D-1", name="Ann Lee", role="dealer")
    table.command("new_shoe", shoe_id="S-1")
    table.cards("3H", "AS", "AD", "AC")
    table.command("open_betting")
    table.command("close_betting")
    table.cards("9S", "2C", "KD", "3D")


def test_steps_between_rounds_belong_to_the_round_that_starts_next() -> None:
    table = RecalledTable()
    first_shoe(table)
    recall = table.book.recall()
    assert recall["between_rounds"] == []
    (round_1,) = recall["rounds"]
    assert (round_1["round_id"], round_1["dealer"]) == ("S-1-1", "D-1")
    assert round_1["status"] == "settled"
    steps = round_1["steps"]
    # the sign-in, the shoe and its burn came before the round: they open its steps
    assert steps[0]["kind"] == "command"
    assert steps[0]["command"] == "sign_in"
    assert steps[0]["args"] == {"staff_id": "D-1", "name": "Ann Lee", "role": "dealer"}
    assert "pin" not in json.dumps(recall)
    assert kinds(steps)[1:4] == ["staff", "command", "shoe_started"]
    assert cards_of(steps) == [
        ("3H", "burn", "shoe"), ("AS", "burn", "shoe"), ("AD", "burn", "shoe"),
        ("AC", "burn", "shoe"),
        ("9S", "player", "shoe"), ("2C", "banker", "shoe"), ("KD", "player", "shoe"),
        ("3D", "banker", "shoe"),
    ]  # fmt: skip
    # the result, then the rest of what its card caused (the prompt showing it)
    assert kinds(steps)[-2:] == ["result", "prompt"]
    assert steps[-1]["action"] == "result"
    result = steps[-2]
    assert result["winner"] == "player"
    assert result["natural"] is True
    assert result["player"] == {"cards": ["9S", "KD"], "total": 9}
    assert result["banker"] == {"cards": ["2C", "3D"], "total": 5}
    # every step carries the journal row of its input, rows never going back
    seqs = [step["seq"] for step in steps]
    assert seqs == sorted(seqs)
    assert seqs[0] == 1
    assert seqs[-1] == table.seq
    commands = [step for step in steps if step["kind"] == "command"]
    assert [(c["command"], c["ok"]) for c in commands] == [
        ("sign_in", True),
        ("new_shoe", True),
        ("open_betting", True),
        ("close_betting", True),
    ]
    json.dumps(recall)  # JSON data as it is


def test_refusals_holds_manual_cards_voids_and_corrections_are_recalled() -> None:
    table = RecalledTable()
    first_shoe(table)
    # round 2: a card while bets are taken: exposed, the round voided
    table.command("open_betting")
    table.cards("5H")
    # round 3: a refused command, a misread entered by hand, a later correction of round 1
    table.command("close_betting")  # no betting is open: refused
    table.command("open_betting")
    table.command("close_betting")
    table.cards("4S", "??")
    table.command("manual_card", supervisor="sup-1", card="7H")
    table.cards("5C", "2D")
    table.command(
        "correct_result", supervisor="sup-1", round_id="S-1-1", player=["8S", "KD"],
        banker=["2C", "3D"],
    )  # fmt: skip
    recall = table.book.recall()
    round_1, round_2, round_3 = recall["rounds"]
    assert [r["round_id"] for r in recall["rounds"]] == ["S-1-1", "S-1-2", "S-1-3"]
    # the correction went to round 1, the command that made it stayed where it was given
    correction = round_1["steps"][-1]
    assert correction["kind"] == "correction"
    assert (correction["correction_no"], correction["supervisor"]) == (1, "sup-1")
    assert correction["player"] == {"cards": ["8S", "KD"], "total": 8}
    (given,) = recall["between_rounds"]  # after round 3: until round 4 starts
    assert (given["kind"], given["command"], given["ok"]) == ("command", "correct_result", True)
    assert given["args"]["round_id"] == "S-1-1"
    # round 2: the exposed card is discarded, the round voided
    assert round_2["status"] == "voided"
    assert cards_of(round_2["steps"]) == [("5H", "discard", "shoe")]
    exposed = next(step for step in round_2["steps"] if step["kind"] == "alarm")
    assert (exposed["code"], exposed["card"]) == ("exposed_card", "5H")
    void = next(step for step in round_2["steps"] if step["kind"] == "void")
    assert (void["reason"], void["cards"]) == ("exposed_card", ["5H"])
    # round 3: the refused command with its code, the hold, the card entered by hand
    refused = [s for s in round_3["steps"] if s["kind"] == "command" and not s["ok"]]
    assert [(s["command"], s["error"]) for s in refused] == [("close_betting", "wrong_phase")]
    assert any(s["kind"] == "alarm" and s["code"] == "misread" for s in round_3["steps"])
    holds = [s for s in round_3["steps"] if s["kind"] == "prompt" and s["action"] == "hold"]
    assert [s["reason"] for s in holds] == ["misread"]
    manual = [s for s in round_3["steps"] if s["kind"] == "card" and s["source"] == "manual"]
    assert [(s["card"], s["position"], s["supervisor"]) for s in manual] == [
        ("7H", "banker", "sup-1")
    ]
    assert round_3["status"] == "settled"
    assert kinds(round_3["steps"])[-2:] == ["result", "prompt"]


def test_cards_dealt_behind_a_hold_and_voided_with_the_round_are_discarded() -> None:
    table = RecalledTable()
    first_shoe(table)
    table.command("open_betting")
    table.command("close_betting")
    table.cards("4S", "??", "5D")  # the table is held after the misread: 5D waits
    table.command("void_round", supervisor="sup-1", round_id="S-1-2")
    round_2 = table.book.recall()["rounds"][-1]
    assert cards_of(round_2["steps"]) == [("4S", "player", "shoe"), ("5D", "discard", "shoe")]
    void = next(s for s in round_2["steps"] if s["kind"] == "void")
    assert (void["cards"], void["supervisor"]) == (["4S", "5D"], "sup-1")
    assert void["was_settled"] is False
    assert void["seq"] == table.seq
    assert round_2["status"] == "voided"


def test_the_book_keeps_the_last_rounds_and_recall_returns_as_many_as_asked() -> None:
    table = RecalledTable(RecallBook(max_rounds=5))
    dealer = ScriptedDealer(seeded_shoe(7))
    table.command("new_shoe", shoe_id="S-7")
    while not (last := table.book.recall(1)["rounds"]) or (
        last[0]["round_no"],
        last[0]["status"],
    ) != (8, "settled"):
        for record in dealer.records(step_of(table.procedure.snapshot())):
            table.give(record)
    assert len(table.book) == 5
    recall = table.book.recall(3)
    assert [r["round_no"] for r in recall["rounds"]] == [6, 7, 8]
    assert [r["round_no"] for r in table.book.recall(50)["rounds"]] == [4, 5, 6, 7, 8]
    # a copy: what the book learns later leaves an answer given as it was
    before = json.dumps(recall)
    table.command("open_betting")
    assert json.dumps(recall) == before
    assert [r["round_no"] for r in table.book.recall(50)["rounds"]] == [5, 6, 7, 8, 9]
    named = table.book.rounds_named(["S-7-7", "S-7-1", "S-7-8"])
    assert [r["round_id"] for r in named] == ["S-7-7", "S-7-8"]


def test_a_dispute_carries_the_recall_of_its_rounds_as_they_were_the_journal_head_and_a_seal() -> (
    None
):
    table = RecalledTable()
    first_shoe(table)
    table.command("open_betting")
    table.command("close_betting")
    table.cards("3S", "AH", "5C", "6D")  # a natural 8 against 7
    before = table.book.rounds_named(["S-1-2", "S-1-1"])
    table.command(
        "dispute", supervisor="sup-1", reason="patron: banker had 7", rounds=["S-1-2", "S-1-1"]
    )
    (opened,) = [m.payload for m in table.messages if isinstance(m.payload, DisputeOpened)]
    published = fields_of(opened)
    assert published["recall"] == before  # as they were: the dispute itself is not in them
    assert published["journal_head"] == HEAD
    # the seal, worked out here from the spec's words: canonical JSON, SHA-256 hex
    sealed = {"dispute_id": published["dispute_id"], "recall": before, "journal_head": HEAD}
    canonical = json.dumps(sealed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert published["seal"] == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    # the dispute is a step of its own, between rounds, with the command that opened it
    between = table.book.recall()["between_rounds"]
    assert [s["kind"] for s in between] == ["command", "dispute_opened", "prompt"]
    assert between[1]["round_ids"] == ["S-1-2", "S-1-1"]
    assert between[0]["args"] == {"reason": "patron: banker had 7", "rounds": ["S-1-2", "S-1-1"]}
    # the same inputs give the same seal (a replay of the journal)
    again = RecalledTable()
    for record in table.records:
        again.give(record)
    (replayed,) = [m.payload for m in again.messages if isinstance(m.payload, DisputeOpened)]
    assert replayed == opened
