# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``resend``'s pure parts: the outbox's range read, the range check, the reply."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from table_controller.contract.commands.args import ResendArgs
from table_controller.contract.commands.message import CommandMessage
from table_controller.contract.commands.replies import reply_data, reply_from_data
from table_controller.contract.envelope import envelope
from table_controller.contract.payloads.replies import EdgeReply
from table_controller.ingress.parsing import parse_command
from table_controller.mqtt.outbox import Outbox, OutboxMessage
from table_controller.mqtt.resend import (
    MAX_RESEND_SPAN,
    Republished,
    missing_seqs,
    range_problem,
    resend_reply,
)

T0 = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


class SteppingClock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def card(key: str) -> OutboxMessage:
    body = envelope("card", {"note": key}, table_id="T07", seq=0, ts="2026-11-29T12:00:00.000Z")
    return OutboxMessage(key=key, topic="baccarat/tables/T07/events/card", message=body)


def test_the_range_read_gives_the_stored_rows_of_the_range_with_the_last_seq(
    tmp_path: Path,
) -> None:
    with Outbox.open(tmp_path / "t.db", clock=SteppingClock()) as outbox:
        outbox.add([card(f"{n}:0") for n in range(1, 11)])
        rows, last_seq = outbox.rows_between(3, 6, limit=100)
        assert ([row.seq for row in rows], last_seq) == ([3, 4, 5, 6], 10)
        assert [json.loads(row.payload)["seq"] for row in rows] == [3, 4, 5, 6]
        paged, _ = outbox.rows_between(3, 9, limit=2)
        assert [row.seq for row in paged] == [3, 4]
        beyond, last_seq = outbox.rows_between(11, 20, limit=100)
        assert (beyond, last_seq) == ([], 10)


def test_the_range_read_leaves_out_pruned_rows_and_keeps_acked_ones(tmp_path: Path) -> None:
    clock = SteppingClock()
    with Outbox.open(tmp_path / "t.db", clock=clock) as outbox:
        outbox.add([card(f"{n}:0") for n in range(1, 7)])
        outbox.mark_acked_many([1, 2, 3, 4])
        clock.now = T0 + timedelta(days=8)
        outbox.mark_acked_many([5])  # acked later: stays
        assert outbox.prune_acked(acked_before=T0 + timedelta(days=1)) == 4
        rows, last_seq = outbox.rows_between(1, 6, limit=100)
        assert ([row.seq for row in rows], last_seq) == ([5, 6], 6)
        assert rows[0].acked_at is not None  # acknowledged rows are resent too
        assert missing_seqs(1, 6, [row.seq for row in rows]) == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("first", "last", "refused"),
    [
        (1, 1, None),
        (5, 5 + MAX_RESEND_SPAN - 1, None),
        (5, 5 + MAX_RESEND_SPAN, "at most 10000"),
        (0, 3, "1 or more"),
        (-4, 3, "1 or more"),
        (9, 8, "below from_seq"),
        (1, 2**63, "at most"),
    ],
)
def test_a_range_is_taken_only_from_1_up_and_under_10000_wide(
    first: int, last: int, refused: str | None
) -> None:
    problem = range_problem(first, last)
    if refused is None:
        assert problem is None
    else:
        assert problem is not None
        assert refused in problem


def test_resend_args_are_whole_numbers_read_strictly() -> None:
    taken = parse_command(
        b'{"id": "g1", "command": "resend", "operator": "ingest", "args": {"from_seq": 3,'
        b' "to_seq": 9}}'
    )
    assert isinstance(taken, CommandMessage)
    assert taken.args == ResendArgs(from_seq=3, to_seq=9)
    for args in ('{"from_seq": "3", "to_seq": 9}', '{"from_seq": 3.5, "to_seq": 9}',
                 '{"from_seq": 3}', '{"from_seq": 3, "to_seq": 9, "retain": true}'):
        raw = f'{{"id": "g2", "command": "resend", "operator": "ingest", "args": {args}}}'
        refused = parse_command(raw.encode())
        assert not isinstance(refused, CommandMessage), args
        assert refused.code == "invalid_args"


def test_the_reply_carries_the_counts_and_reads_back_from_the_journal() -> None:
    reply = reply_data(resend_reply("g7", Republished(resent=4, gone=[1, 2], last_seq=40)))
    assert reply == {"id": "g7", "ok": True, "command": "resend", "resent": 4,
                     "gone": [1, 2], "last_seq": 40}
    typed = reply_from_data(json.loads(json.dumps(reply)))
    assert typed == EdgeReply(id="g7", ok=True, command="resend", resent=4, gone=[1, 2],
                              last_seq=40)
