# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The pure parts of the ingest worker and gap repair: ages, plans, replies, acknowledgements."""

from __future__ import annotations

import json

from table_controller.contract.commands.message import CommandMessage
from table_controller.ingest.gap_queries import SeqRange
from table_controller.ingest.gap_repair import (
    ANY_TABLE,
    MAX_RESEND_SPAN,
    GapAges,
    RepairSettings,
    chunks,
    gone_of,
    plan_requests,
    resend_command,
)
from table_controller.ingest.worker import AckQueue, subscriptions
from table_controller.ingress.authorisation import (
    AuthorisationPolicy,
    Authorised,
    Refused,
    authorise,
)


def test_a_gap_keeps_its_age_while_it_shrinks_and_a_new_one_starts_young() -> None:
    ages = GapAges()
    assert ages.update("T1", [SeqRange(5, 9)], now=10.0) == [10.0]
    assert ages.update("T1", [SeqRange(6, 9), SeqRange(20, 21)], now=12.0) == [10.0, 12.0]
    assert ages.update("T2", [SeqRange(6, 9)], now=13.0) == [13.0]  # per table
    assert ages.update("T1", [], now=14.0) == []
    assert ages.update("T1", [SeqRange(6, 9)], now=15.0) == [15.0]  # closed, then open again


def test_ranges_are_cut_at_ten_thousand() -> None:
    assert chunks(SeqRange(1, 25_000)) == [
        SeqRange(1, 10_000),
        SeqRange(10_001, 20_000),
        SeqRange(20_001, 25_000),
    ]
    assert all(r.last - r.first < MAX_RESEND_SPAN for r in chunks(SeqRange(7, 99_999)))
    assert chunks(SeqRange(3, 3)) == [SeqRange(3, 3)]


def test_a_plan_leaves_out_what_is_asked_already_and_keeps_to_its_slots() -> None:
    due = [SeqRange(1, 30), SeqRange(40, 40)]
    busy = [SeqRange(10, 19)]
    assert plan_requests(due, busy, slots=5) == [
        SeqRange(1, 9),
        SeqRange(20, 30),
        SeqRange(40, 40),
    ]
    assert plan_requests(due, busy, slots=1) == [SeqRange(1, 9)]
    assert plan_requests(due, busy, slots=0) == []
    assert plan_requests(due, [SeqRange(1, 40)], slots=3) == []


def test_a_reply_gone_list_is_read_only_when_it_is_whole_numbers() -> None:
    assert gone_of({"gone": [3, 4, 9]}) == [3, 4, 9]
    assert gone_of({"gone": []}) == []
    for bad in ({"gone": "3"}, {"gone": [3, "4"]}, {"gone": [True]}, {"gone": [0]}, {}):
        assert gone_of(bad) is None


def test_the_resend_command_is_a_command_of_the_contract() -> None:
    body = json.loads(resend_command("ingest-1", "ingest", SeqRange(20, 45)))
    assert body == {
        "id": "ingest-1",
        "command": "resend",
        "operator": "ingest",
        "args": {"from_seq": 20, "to_seq": 45},
    }


def test_a_resend_to_a_signing_table_is_signed_with_that_tables_secret() -> None:
    """Under ``sign_all_commands`` the table takes the ingest's resend only signed, by its key."""
    keys = {"T1": b"t1-secret-0123456789", ANY_TABLE: b"floor-secret-0123456789"}
    settings = RepairSettings(worker="w1", secrets=keys)
    for table_id, key in (("T1", keys["T1"]), ("T9", keys[ANY_TABLE])):
        secret = settings.secret_for(table_id)
        raw = resend_command("ingest-2", "ingest", SeqRange(5, 9), secret=secret)
        command = CommandMessage.model_validate_json(raw)
        assert command.signature is not None
        policy = AuthorisationPolicy(
            resenders={"ingest": frozenset({"backend"})}, shared_secret=key, sign_all=True
        )
        assert isinstance(authorise(command, policy), Authorised)
        other = AuthorisationPolicy(
            resenders={"ingest": frozenset({"backend"})}, shared_secret=b"x" * 16, sign_all=True
        )
        assert isinstance(authorise(command, other), Refused)
    assert RepairSettings(worker="w1", secrets={"T1": keys["T1"]}).secret_for("T2") is None


def test_acknowledgements_go_in_the_order_the_messages_came() -> None:
    acks = AckQueue()
    first, second, third = (acks.received(mid, 1) for mid in (7, 8, 9))
    assert acks.done(second) == []  # 7 is not stored yet
    assert acks.done(first) == [(7, 1), (8, 1)]
    assert len(acks) == 1
    assert acks.done(third) == [(9, 1)]


def test_every_seq_topic_is_shared_and_status_and_retained_ones_are_read_normally() -> None:
    shared, retained = subscriptions("g1", "casino/tables/")
    assert shared == [
        "$share/g1/casino/tables/+/events/#",
        "$share/g1/casino/tables/+/commands/replies",
        "$share/g1/casino/tables/+/state",
        "$share/g1/casino/tables/+/roads",
        "$share/g1/casino/tables/+/odds",
        "$share/g1/casino/tables/+/stats",
        "$share/g1/casino/tables/+/limits",
        "casino/tables/+/status",
    ]
    assert retained == [
        f"casino/tables/+/{t}" for t in ("state", "roads", "odds", "stats", "limits")
    ]
