# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The pure verdicts of the ingest on each message's signature, signed by the table's own code."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from table_controller.ingest.log_budget import LogBudget
from table_controller.ingest.table_keys import (
    KEY_LOOKUP_EVERY_S,
    NO_KEY,
    NOT_ITS_KEY,
    OTHER_KEY,
    UNSIGNED,
    TableKeys,
    Verdict,
)
from table_controller.integrity.signing import DeviceKey

CARD: dict[str, object] = {"type": "card", "table_id": "T1", "seq": 4}
STATUS: dict[str, object] = {"type": "status", "table_id": "T1", "online": True, "session": 3}


def device() -> DeviceKey:
    return DeviceKey.of(Ed25519PrivateKey.generate())


def birth(key: DeviceKey, **fields: object) -> dict[str, object]:
    """A status naming ``key``, signed by it."""
    return key.sign(STATUS | {"public_key": key.public_key} | fields)


def test_a_message_is_verified_against_its_tables_first_key() -> None:
    table, other = device(), device()
    signed = table.sign(CARD)
    keys = TableKeys()
    assert keys.verdict("T1", CARD) == Verdict(verified=None)  # no key: the table does not sign
    assert keys.verdict("T1", signed) == Verdict(verified=None)  # signed, no key known yet
    assert keys.unverified == 1
    assert keys.pin("T1", table.public_key)
    assert keys.pin("T1", other.public_key)  # the first key stays
    assert not keys.pin("T2", "not base64!")
    assert keys.verdict("T1", signed) == Verdict(verified=True)
    assert keys.verdict("T1", other.sign(CARD)).quarantine is not None
    assert keys.verdict("T1", signed | {"seq": 5}) == Verdict(
        verified=False, quarantine="signature does not match"
    )
    assert keys.verdict("T1", CARD) == Verdict(verified=False, quarantine=UNSIGNED)
    assert keys.failed == 3
    assert not keys.known("T2")


def test_a_key_is_pinned_only_from_a_status_signed_by_the_key_it_names() -> None:
    table, forger = device(), device()
    keys = TableKeys()
    made_up = STATUS | {"public_key": forger.public_key, "session": 99}
    assert keys.pin_candidate("T1", made_up) is None  # unsigned
    assert keys.pin_candidate("T1", table.sign(made_up)) is None  # signed by another key
    assert keys.pin_candidate("T1", table.sign(CARD)) is None  # not a status
    assert keys.pin_candidate("T1", birth(table)) == table.public_key
    # Before any pin, a status claiming a key it is not signed by is kept apart all the same.
    assert keys.verdict("T1", made_up) == Verdict(verified=False, quarantine=NOT_ITS_KEY)
    keys.pin("T1", table.public_key)
    assert keys.pin_candidate("T1", birth(forger)) is None  # pinned: never replaced
    assert keys.verdict("T1", birth(table)) == Verdict(verified=True)
    assert keys.verdict("T1", birth(forger)).quarantine is not None
    # Signed by the table's key but naming another: the key is not replaced by it either.
    other_named = table.sign(STATUS | {"public_key": forger.public_key})
    assert keys.verdict("T1", other_named) == Verdict(verified=False, quarantine=OTHER_KEY)
    assert keys.verdict("T1", table.sign(STATUS)) == Verdict(verified=True)  # names none
    assert keys.failed == 3


def test_with_a_keys_file_no_key_is_pinned_and_unknown_tables_are_unverified() -> None:
    table = device()
    keys = TableKeys(keys={}, from_file=True)
    assert keys.pin_candidate("T9", birth(table)) is None
    assert not keys.should_look_up("T9", table.sign(CARD), now=0.0)
    assert keys.verdict("T9", birth(table)) == Verdict(verified=None)
    assert keys.verdict("T9", CARD) == Verdict(verified=None)


def test_required_signatures_keep_apart_what_no_key_verifies() -> None:
    table = device()
    keys = TableKeys(require_signatures=True)
    assert keys.verdict("T1", CARD) == Verdict(verified=None, quarantine=UNSIGNED)
    assert keys.verdict("T1", STATUS) == Verdict(verified=None, quarantine=UNSIGNED)
    assert keys.verdict("T1", table.sign(CARD)) == Verdict(verified=None, quarantine=NO_KEY)
    assert keys.pin_candidate("T1", birth(table)) == table.public_key
    keys.pin("T1", table.public_key)
    assert keys.verdict("T1", table.sign(CARD)) == Verdict(verified=True)


def test_a_tables_pin_is_looked_up_at_most_once_per_interval_and_only_for_signed_ones() -> None:
    table = device()
    keys = TableKeys()
    signed = table.sign(CARD)
    assert not keys.should_look_up("T1", CARD, now=0.0)  # unsigned: nothing to look up
    assert keys.should_look_up("T1", signed, now=0.0)
    assert not keys.should_look_up("T1", signed, now=KEY_LOOKUP_EVERY_S - 0.1)
    assert keys.should_look_up("T2", signed, now=1.0)  # each table its own
    assert keys.should_look_up("T1", signed, now=KEY_LOOKUP_EVERY_S)
    keys.pin("T1", table.public_key)
    assert not keys.should_look_up("T1", signed, now=100.0)  # known


def test_a_log_budget_writes_one_line_per_key_per_interval_and_counts_the_rest() -> None:
    budget = LogBudget(every_s=10.0, max_keys=2)
    assert budget.allow("T1", 0.0) == 0
    assert [budget.allow("T1", 1.0 + n) for n in range(5)] == [None] * 5
    assert budget.allow("T2", 2.0) == 0
    assert budget.allow("T1", 10.0) == 5  # the five left out since its last line
    assert budget.allow("T1", 12.0) is None
    assert budget.allow("T3", 12.0) == 0  # a third key: the oldest (T1) is forgotten
    assert budget.allow("T1", 13.0) == 0
