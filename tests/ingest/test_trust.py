# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A publisher on a table's topics who is not the table cannot rewrite what the ingest holds.

A real signing table (``table-controller run`` with a device key from ``keys init``) deals
over a real mosquitto into a real ``table-controller ingest``, on SQLite and PostgreSQL. The
forger publishes with a login that may write on the table's topics (a loose ACL, a stolen
login): unsigned messages, or messages signed with a key of its own. What the ingest holds
must be what the table published (its outbox, read once it stopped), byte for byte, and its
rounds the table's journal replayed; the forgeries are kept apart in ``quarantine``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from table_controller.integrity.signing import DeviceKey
from tests.mosquitto import Mosquitto
from tests.support.ingest_table import exact
from tests.support.ingest_workers import (
    RESENDERS_ENV,
    ROOT,
    TABLE,
    CommandingBackend,
    assert_rounds_are_the_journal_replayed,
    closing_counts,
    connected_ingest,
    deal_and_store,
    deal_shoe,
    device_key,
    drain,
    ingest_process,
    observing,
    published_rows,
    query,
    seen_messages,
    virtual_table,
    wait_logged,
    wait_quarantined,
    wait_stored,
)

pytestmark = pytest.mark.broker

#: One batch at a time: what the worker received before a message is handled before it, so
#: that a forgery is judged once the table's later messages are stored.
INGEST_ARGS: Final = ("--client-id", "w1", "--no-gap-repair", "--concurrency", "1")
#: A ``seq`` far above the table's: a forgery there takes no slot the table is about to use.
FAR_AHEAD: Final = 5000


def forged(kind: str, seq: int | None, **fields: object) -> dict[str, Any]:
    """A message of table ``V1`` as the contract has it, unsigned."""
    body: dict[str, Any] = {"schema": "baccarat-table/1", "type": kind, "table_id": TABLE}
    if seq is not None:
        body["seq"] = seq
    return body | {"ts": "2026-11-29T12:00:00.000Z"} | fields


async def publish(
    backend: CommandingBackend, topic: str, body: dict[str, Any], *, retain: bool = False
) -> None:
    await backend.client.publish(f"{ROOT}/{topic}", json.dumps(body), qos=1, retain=retain)


async def deal_round(backend: CommandingBackend, round_id: str) -> None:
    assert (await backend.command("open_betting"))["ok"]
    assert (await backend.command("close_betting"))["ok"]
    await backend.until_result(round_id)


async def assert_holds_what_the_table_published(database: str, journal: Path) -> None:
    """Every message of the stopped table's outbox stored byte for byte, nothing else."""
    published = published_rows(journal)
    held = await wait_stored(database, set(published))
    assert held == published
    await assert_rounds_are_the_journal_replayed(database, journal)


async def test_unsigned_alarms_on_the_next_seqs_do_not_keep_the_tables_result_out(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    signing, _ = await device_key(tmp_path)
    log = tmp_path / "ingest.log"
    async with connected_ingest(log, broker, database_url, *INGEST_ARGS) as backend:
        async with virtual_table(tmp_path, broker, signing):
            seen = await deal_and_store(backend, database_url, rounds=1)
            taken = range(max(seen) + 1, max(seen) + 31)
            for seq in taken:
                alarm = forged("alarm", seq, code="misread", message="a forged alarm")
                await publish(backend, "events/alarm", alarm)
            await deal_round(backend, "S-1-2")  # its result has one of those seqs
            await drain(backend)
        await assert_holds_what_the_table_published(database_url, tmp_path / "V1.journal")
        kept_apart = await wait_quarantined(database_url, 30)
    assert kept_apart == [(TABLE, seq, "alarm", "unsigned") for seq in taken]
    assert closing_counts(log)["quarantined"] == 30
    lines = log.read_text().count('"event": "message_quarantined"')
    assert 1 <= lines <= 2, lines  # one line per table per 10 s, not one per message


async def test_a_forged_result_for_a_stored_round_does_not_replace_it(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    signing, _ = await device_key(tmp_path)
    forger = DeviceKey.of(Ed25519PrivateKey.generate())
    log = tmp_path / "ingest.log"
    async with connected_ingest(log, broker, database_url, *INGEST_ARGS) as backend:
        async with virtual_table(tmp_path, broker, signing):
            seen = await deal_and_store(backend, database_url, rounds=1)
            (result,) = backend.messages("round_result")
            winner = "player" if result["winner"] != "player" else "banker"
            rewritten = {k: v for k, v in result.items() if k not in {"kid", "sig"}}
            rewritten |= {"winner": winner, "seq": max(seen) + 1}
            await publish(backend, "events/round_result", rewritten)
            signed_by_forger = forger.sign(rewritten | {"seq": max(seen) + 2})
            await publish(backend, "events/round_result", signed_by_forger)
            await deal_round(backend, "S-1-2")
            await drain(backend)
        await assert_holds_what_the_table_published(database_url, tmp_path / "V1.journal")
        kept_apart = await wait_quarantined(database_url, 2)
    assert [row[1:3] for row in kept_apart] == [
        (max(seen) + 1, "round_result"),
        (max(seen) + 2, "round_result"),
    ]
    assert kept_apart[0][3] == "unsigned"
    assert "is not the table's key" in str(kept_apart[1][3])
    settled = await query(
        database_url,
        "SELECT bet, numerator, denominator FROM round_settlements WHERE round_id = 'S-1-1'",
    )
    assert {
        bet: None if n is None else Fraction(int(str(n)), int(str(d))) for bet, n, d in settled
    } == {bet: exact(value) for bet, value in result["settlement"].items()}


async def test_a_forged_status_takes_over_neither_the_status_nor_the_key_even_after_a_restart(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    signing, public_key = await device_key(tmp_path)
    forger = DeviceKey.of(Ed25519PrivateKey.generate())
    log = tmp_path / "ingest.log"
    async with observing(broker) as backend, virtual_table(tmp_path, broker, signing):
        async with ingest_process(log, broker, database_url, *INGEST_ARGS):
            await wait_logged(log, "ingest_connected")
            session = await backend.wait_online()
            await deal_shoe(backend, "S-1", rounds=1)
            takeover = forged(
                "status", None, online=False, session=10**6, last_seq=5,
                public_key=forger.public_key, version="0.1.0",
            )  # fmt: skip
            await publish(backend, "status", takeover, retain=True)
            self_signed = forger.sign(takeover | {"session": 10**6 + 1})
            await publish(backend, "status", self_signed, retain=True)  # the broker keeps it
            await deal_round(backend, "S-1-2")
            await drain(backend)
            await wait_stored(database_url, set(seen_messages(backend)))
        # Restarted, the worker gets the forged retained status again, and the table goes on.
        async with ingest_process(log, broker, database_url, *INGEST_ARGS):
            await wait_logged(log, "ingest_connected", count=2)
            await deal_round(backend, "S-1-3")
            await drain(backend)
            seen = seen_messages(backend)
            await wait_stored(database_url, set(seen))
    status = await query(database_url, "SELECT online, session, public_key FROM table_status")
    assert status == [(True, session, public_key)]
    assert await query(database_url, "SELECT table_id, public_key FROM table_keys") == [
        (TABLE, public_key)
    ]
    # After the restart too, every message of the table is verified against its own key.
    verdicts = await query(database_url, "SELECT seq, verified FROM messages")
    assert {row[0]: row[1] for row in verdicts} == dict.fromkeys(seen, True)
    kept_apart = await wait_quarantined(database_url, 2)
    assert [row[1:3] for row in kept_apart] == [(None, "status"), (None, "status")]
    assert closing_counts(log)["quarantined"] >= 1  # the retained copy, quarantined again


async def test_a_forged_resend_reply_writes_no_gap_and_other_operators_replies_are_not_ours(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    """An unsigned table: the forged reply is stored as a message, and nothing more."""
    log = tmp_path / "ingest.log"
    async with (
        connected_ingest(log, broker, database_url, *INGEST_ARGS) as backend,
        virtual_table(tmp_path, broker, RESENDERS_ENV),
    ):
        await deal_and_store(backend, database_url, rounds=1)
        reply = forged(
            "command_reply", FAR_AHEAD, id="ingest-never-sent", command="resend",
            ok=True, resent=0, gone=[300, 301, 302],
        )  # fmt: skip
        await publish(backend, "commands/replies", reply)
        # Another operator's resends, answered by the table itself: refused, and taken.
        refused = await backend.command("resend", operator="other", from_seq=1, to_seq=2)
        assert not refused["ok"]
        taken = await backend.command("resend", operator="ingest", from_seq=1, to_seq=2)
        assert taken["ok"], taken
        await drain(backend)
        await wait_stored(database_url, set(seen_messages(backend)))
    assert await query(database_url, "SELECT count(*) FROM permanent_gaps") == [(0,)]
    assert await query(database_url, "SELECT count(*) FROM gap_requests") == [(0,)]
    stored_reply = await query(
        database_url, "SELECT type FROM messages WHERE seq = :s", s=FAR_AHEAD
    )
    assert stored_reply == [("command_reply",)]
    text = log.read_text()
    assert '"event": "messages_gone"' not in text
    assert '"event": "resend_refused"' not in text
    counts = closing_counts(log)
    assert (counts["gone"], counts["resend_refused"]) == (0, 0), counts


async def test_with_a_keys_file_the_first_status_is_not_trusted_and_unsigned_ones_kept_apart(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    """Trust on first use would pin a forger's status that comes first; a keys file does not."""
    signing, public_key = await device_key(tmp_path)
    forger = DeviceKey.of(Ed25519PrivateKey.generate())
    keys = tmp_path / "table-keys.toml"
    keys.write_text(f'{TABLE} = "{public_key}"\n')
    log = tmp_path / "ingest.log"
    args = (*INGEST_ARGS, "--table-keys", str(keys), "--require-signatures")
    async with connected_ingest(log, broker, database_url, *args) as backend:
        first = forger.sign(
            forged("status", None, online=True, session=1, last_seq=0, public_key=forger.public_key)
        )
        await publish(backend, "status", first)
        stranger = forged("alarm", 1, code="misread", message="not in the keys file")
        stranger["table_id"] = "V2"
        await backend.client.publish("baccarat/tables/V2/events/alarm", json.dumps(stranger), qos=1)
        await wait_quarantined(database_url, 2)
        await drain(backend)  # the forged status heard: the table's own is waited for
        async with virtual_table(tmp_path, broker, signing):
            await deal_and_store(backend, database_url, rounds=1)
        await assert_holds_what_the_table_published(database_url, tmp_path / "V1.journal")
    assert await query(database_url, "SELECT count(*) FROM table_keys") == [(0,)]
    status = await query(database_url, "SELECT public_key, verified FROM table_status")
    assert status == [(public_key, True)]
    verdicts = await query(database_url, "SELECT DISTINCT verified FROM messages")
    assert verdicts == [(True,)]
    kept_apart = {
        row[:3]: str(row[3])
        for row in await query(database_url, "SELECT table_id, seq, type, reason FROM quarantine")
    }
    assert kept_apart.keys() == {("V1", None, "status"), ("V2", 1, "alarm")}
    assert "is not the table's key" in kept_apart["V1", None, "status"]
    assert kept_apart["V2", 1, "alarm"] == "unsigned"  # a table not in the file


async def test_required_signatures_keep_an_unsigned_tables_messages_apart(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    log = tmp_path / "ingest.log"
    args = (*INGEST_ARGS, "--require-signatures")
    async with connected_ingest(log, broker, database_url, *args) as backend:
        async with virtual_table(tmp_path, broker):
            await backend.wait_online()
            assert (await backend.command("new_shoe", shoe_id="S-1"))["ok"]
            await backend.until_event("burn", shoe_id="S-1", done=True)
            await deal_round(backend, "S-1-1")
            await drain(backend)
        published = published_rows(tmp_path / "V1.journal")
        kept_apart = await wait_quarantined(database_url, len(published) + 1)
    assert {row[1] for row in kept_apart} - {None} == set(published)
    assert {row[3] for row in kept_apart} == {"unsigned"}
    for table in ("messages", "table_status", "rounds", "table_keys"):
        assert await query(database_url, f"SELECT count(*) FROM {table}") == [(0,)], table
    assert closing_counts(log)["stored"] == 0
