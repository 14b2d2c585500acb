# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real table's messages and journal for the ingest tests, and its rounds replayed.

A virtual table (the real service: procedure, journal, outgoing messages; the seeded RNG deals)
plays a shoe with a void and two corrections. Its events log holds every message as published
(topic and envelope); the journal is replayed by ``table-controller replay`` to tell what each
round's row must hold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from table_controller.contract.envelope import dumps
from table_controller.runtime.journal.journal import Journal
from tests.support.table_process import table_controller
from tests.support.virtual_tables import command, quiet, running, settle, virtual_service

ROUNDS = 14


@dataclass(frozen=True, slots=True)
class PlayedTable:
    """What the table published, in ``seq`` order, and its journal."""

    messages: list[tuple[str, bytes]]
    journal: Path


async def play_table(directory: Path) -> PlayedTable:
    """Table ``V1`` (commission, betting phase): a shoe of rounds, a void and two corrections."""
    log = directory / "events.jsonl"
    journal_path = directory / "v1.journal"
    with Journal.open(journal_path, table_id="V1") as journal:
        service = virtual_service(journal, log, "commission", seed=22)
        service.recover()
        async with running(service):
            number = 1
            await command(service, "new_shoe", number, shoe_id="S-A")
            await quiet(service)
            for _ in range(ROUNDS):
                await command(service, "open_betting", number := number + 1)
                await command(service, "close_betting", number := number + 1)
                await settle(service)
                await quiet(service)
            await command(service, "void_round", number + 1, round_id="S-A-3")
            fixed = {"player": ["2S", "3H", "4D"], "banker": ["KC", "7D"]}
            await command(service, "correct_result", number + 2, round_id="S-A-5", **fixed)
            again = {"player": ["AS", "7H"], "banker": ["9C", "KD"]}
            await command(service, "correct_result", number + 3, round_id="S-A-5", **again)
            await command(service, "correct_result", number + 4, round_id="S-A-7", **fixed)
            await command(service, "void_round", number + 5, round_id="S-A-7")
            await quiet(service)
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    published = [(entry["topic"], dumps(entry["message"]).encode()) for entry in entries]
    return PlayedTable(messages=published, journal=journal_path)


def exact(value: object) -> Fraction | None:
    """A settlement as the replay printed it (a JSON float read back through its text)."""
    if value == "not_offered":
        return None
    return Fraction(str(value))


async def replayed_messages(journal: Path) -> list[dict[str, Any]]:
    """What ``table-controller replay`` of the journal prints: every event, with its ``seq``."""
    code, out, err = await table_controller(
        "replay", "--variant", "commission", "--inputs", str(journal), "--json"
    )
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


async def replayed_rounds(journal: Path) -> dict[str, dict[str, Any]]:
    """Every round of the journal's replay as it ends: status, winner, cards and settlement.

    Folded here on its own from the replayed messages, in their order: a result settles the
    round, a correction replaces it, a void returns every bet.
    """
    found: dict[str, dict[str, Any]] = {}
    for message in await replayed_messages(journal):
        kind = message["type"]
        if kind not in {"round_result", "result_corrected", "round_voided"}:
            continue
        round_ = found.setdefault(message["round_id"], {})
        round_["seq"] = message["seq"]
        if kind == "round_voided":
            round_ |= {"status": "voided", "settlement": {}, "reason": message["reason"]}
            continue
        round_ |= {
            "status": "settled" if kind == "round_result" else "corrected",
            "winner": message["winner"],
            "player_cards": " ".join(message["player"]["cards"]),
            "banker_cards": " ".join(message["banker"]["cards"]),
            "settlement": {bet: exact(v) for bet, v in message["settlement"].items()},
            "correction_no": message.get("correction_no", 0),
        }
    return found
