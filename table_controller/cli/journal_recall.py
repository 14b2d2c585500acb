# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller journal recall FILE --last N``: the last rounds of a journal, every step.

Edge module. The journal's chain is verified, then its inputs are replayed through the table
procedure as ``replay`` does, and each input with the messages it gives feeds the same recall
book the live table answers ``recall`` from, so the recall printed here is the one the table
gave (or would give) at the journal's end. Each step names its journal row (``seq``):
``journal export`` shows the row itself.

Printed as text, a heading per round and one step a line, or with ``--json`` as the ``rounds``
and ``between_rounds`` of the ``recall`` reply (docs/mqtt-api.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

from table_controller.contract import Recall, RecalledHand, RecallStep
from table_controller.history import RecallBook
from table_controller.procedure import ProcedureBug, TableProcedure
from table_controller.runtime import DecisionInterpreter

#: A step's text, by kind: the fields shown after the kind, in this order.
_SHOWN: Final = {
    "card": ("card", "position", "source", "supervisor", "reason"),
    "prompt": ("action", "count", "reason"),
    "command": ("command", "id", "operator", "supervisor", "args", "error", "message"),
    "result": ("winner", "player", "banker", "natural", "last_round"),
    "correction": ("correction_no", "winner", "player", "banker", "operator", "supervisor"),
    "void": ("reason", "cards", "was_settled", "operator", "supervisor"),
    "alarm": ("code", "card", "message"),
    "staff": ("action", "staff_id", "dealer", "supervisor"),
    "shoe_started": ("shoe_id",),
    "last_round": ("shoe_id", "reason"),
    "shoe_ended": ("shoe_id", "reason"),
    "shoe_voided": ("shoe_id", "cards", "operator", "supervisor"),
}


def recall_of(path: Path, machine: TableProcedure, *, last: int) -> Recall:
    """The last ``last`` rounds of the journal at ``path``, replayed as the table ran.

    ``machine`` is a new procedure of the table as it ran (its variant, ``betting_phase``,
    ``require_dealer``, ``confirm_results``): the same inputs through the same procedure give
    the same messages, so the same recall. A bad file raises
    :class:`~table_controller.cli.UsageError`.
    """
    from table_controller.cli.replay import read_inputs  # noqa: PLC0415 - verify stays light

    interpreter = DecisionInterpreter()
    book = RecallBook(max_rounds=last)
    for recorded in read_inputs(path):
        if recorded.event is None:
            continue
        origin = f"journal row {recorded.line_no}"
        try:
            decisions = machine.handle(recorded.event, origin=origin)
        except ProcedureBug as bug:
            decisions = list(bug.decisions)
        outcome = interpreter.interpret(
            decisions, machine.snapshot(), key=str(recorded.line_no), ts=recorded.ts
        )
        book.observe(recorded.event, recorded.line_no, recorded.ts, outcome.messages)
    return book.recall(last)


def print_recall(recall: Recall, *, as_json: bool) -> None:
    """The recall as text (a heading per round, a step a line) or as one JSON object."""
    if as_json:
        sys.stdout.write(json.dumps(recall, ensure_ascii=False) + "\n")
        return
    for found in recall["rounds"]:
        dealer = found["dealer"] or "-"
        print(
            f"round {found['round_id']} (shoe {found['shoe_id']}, round {found['round_no']}, "
            f"dealer {dealer}): {found['status']}"
        )
        for step in found["steps"]:
            print(step_line(step))
    if recall["between_rounds"]:
        print("since the last round")
        for step in recall["between_rounds"]:
            print(step_line(step))
    if not recall["rounds"] and not recall["between_rounds"]:
        print("no rounds in this journal")


def step_line(step: RecallStep) -> str:
    """One step: ``  seq 812  2026-11-29T12:39:05.881Z  card 9S player shoe``."""
    kind = step["kind"]
    shown = _SHOWN.get(kind, ())
    parts = [
        "??" if name == "card" and step.get(name) is None else _text(name, step.get(name))
        for name in shown
        if step.get(name) is not None or (name == "card" and name in step)
    ]
    if kind == "command":
        parts.insert(0, "ok" if step.get("ok") else "refused")
    text = " ".join(part for part in parts if part)
    return f"  seq {step['seq']:>6}  {step['ts'] or '-':<24}  {kind} {text}".rstrip()


def _text(name: str, value: object) -> str:  # noqa: PLR0911 - a case per kind of value
    if name in {"player", "banker"} and isinstance(value, dict):
        hand: RecalledHand = value  # type: ignore[assignment]  # a result's hand
        return f"{name} {' '.join(hand['cards'])} ({hand['total']})"
    if isinstance(value, bool):
        return name if value else ""
    if isinstance(value, list):
        return f"{name} [{' '.join('??' if card is None else str(card) for card in value)}]"
    if isinstance(value, dict):
        return " ".join(f"{key}={item}" for key, item in value.items())
    if name in {"card", "position", "source", "action", "command", "winner", "code", "shoe_id"}:
        return str(value)
    if name == "message":
        return f"- {value}"
    return f"{name} {value}"
