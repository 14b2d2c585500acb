# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""docs/journal-format.md is enough to check a journal: a verifier written from it alone.

The verifier below (``canonical`` to ``verify_file``) uses sqlite3, hashlib and json and
nothing of the product; the harness that makes the real journal drives the table through the
tests' MQTT backend, which is the product's client. The verifier checks the
document's worked example, a journal written by a real ``table-controller run`` (a virtual
table with a staff register, commands over a real mosquitto), and a copy of that journal with
one byte of one payload changed, which it must catch at that row and no other. Every row the
real table wrote must be of a kind the document lists, with fields the document names, and the
recall the table answered checks against its row's seal as the document says.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import pytest

from tests.docs.markdown import code_blocks, code_spans, sections, table_with
from tests.docs.test_links import _anchors
from tests.mosquitto import Mosquitto
from tests.support.backend import listening
from tests.support.staff import STAFF, write_register
from tests.support.table_process import table_controller, table_run

ROOT: Final = Path(__file__).resolve().parents[2]
DOC: Final = ROOT / "docs/journal-format.md"
FORMAT: Final = "table-controller-journal/1"
ZERO: Final = "0" * 64
TABLE: Final = "DOC1"
TOPICS: Final = f"baccarat/tables/{TABLE}"


def doc() -> str:
    return DOC.read_text(encoding="utf-8")


# --- the verifier, from the document's "The canonical encoding" and "The hash chain" ---------


def canonical(value: object) -> str:
    """Canonical JSON as the document defines it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def genesis(table_id: str | None) -> str:
    return sha256_hex(canonical({"format": FORMAT, "table_id": table_id}))


@dataclass(frozen=True, slots=True)
class Verdict:
    rows: int
    head: tuple[int, str]
    table_id_covered: bool
    #: ``(seq, check)`` of every failed check, in row order.
    breaks: tuple[tuple[int, str], ...]


def verify(connection: sqlite3.Connection) -> Verdict:
    """Steps 1 to 4 of "Verifying a journal step by step"."""
    meta = dict(connection.execute("SELECT key, value FROM meta"))
    assert meta.get("format") == FORMAT, meta
    start = genesis(meta.get("table_id"))
    expected_seq, expected_prev = 1, start
    covered = True
    breaks: list[tuple[int, str]] = []
    head = (0, start)
    count = 0
    rows = connection.execute(
        "SELECT seq, event_id, ts_utc, monotonic_ns, type, payload, prev_hash, hash"
        " FROM events ORDER BY seq"
    )
    for seq, event_id, ts_utc, monotonic_ns, type_, payload, prev_hash, stored in rows:
        count += 1
        if seq != expected_seq:
            breaks.append((seq, "seq"))
        if seq == 1 and prev_hash == ZERO:
            covered = False
        elif seq == 1 and prev_hash != start:
            breaks.append((seq, "genesis"))
        elif seq != 1 and prev_hash != expected_prev:
            breaks.append((seq, "prev_hash"))
        row = {
            "event_id": event_id,
            "monotonic_ns": monotonic_ns,
            "payload": payload,
            "seq": seq,
            "ts_utc": ts_utc,
            "type": type_,
        }
        if sha256_hex(prev_hash + canonical(row)) != stored:
            breaks.append((seq, "hash"))
        expected_seq, expected_prev = seq + 1, stored
        head = (seq, stored)
    return Verdict(rows=count, head=head, table_id_covered=covered, breaks=tuple(breaks))


def verify_file(path: Path) -> Verdict:
    connection = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
    try:
        return verify(connection)
    finally:
        connection.close()


# --- the worked example ----------------------------------------------------------------------

_PRINTF: Final = re.compile(r"^printf '%s' '(?P<text>.*)' \| sha256sum$")
_DIGEST: Final = re.compile(r"^# (?P<hex>[0-9a-f]{64})  -$")


def example_hashes() -> list[tuple[str, str]]:
    """``(text, hash)`` of each ``printf … | sha256sum`` of the worked example, as written."""
    example = sections(doc(), 2)["Worked example"]
    found = []
    for block in code_blocks(example):
        if block.language != "sh":
            continue
        lines = block.text.splitlines()
        for line, answer in itertools.pairwise(lines):
            printed, digest = _PRINTF.match(line), _DIGEST.match(answer)
            if printed is not None and digest is not None:
                found.append((printed["text"], digest["hex"]))
    return found


def example_journal() -> sqlite3.Connection:
    example = sections(doc(), 2)["Worked example"]
    [sql] = [block.text for block in code_blocks(example) if block.language == "sql"]
    connection = sqlite3.connect(":memory:")
    connection.executescript(sql)
    return connection


def test_every_hash_of_the_worked_example_recomputes_as_printed() -> None:
    hashes = example_hashes()
    assert len(hashes) == 4  # the genesis and three rows
    for text, digest in hashes:
        assert sha256_hex(text) == digest, text
    assert hashes[0][0] == canonical({"format": FORMAT, "table_id": "T1"})


def test_the_worked_example_is_a_whole_chain_of_the_rows_it_shows() -> None:
    connection = example_journal()
    verdict = verify(connection)
    hashes = [digest for _, digest in example_hashes()]
    assert verdict.breaks == ()
    assert verdict.table_id_covered
    assert verdict.head == (3, hashes[-1])
    stored = connection.execute("SELECT prev_hash, hash FROM events ORDER BY seq").fetchall()
    # Each shown text begins with the row's prev_hash, and hashes to the row's hash.
    assert stored == [(text[:64], digest) for text, digest in example_hashes()[1:]]
    assert stored[0][0] == hashes[0]
    head = sections(doc(), 2)["Worked example"]
    assert f"`seq` 3, `{hashes[-1]}`" in head


def test_the_worked_examples_edit_breaks_the_row_the_document_says() -> None:
    connection = example_journal()
    connection.execute("UPDATE events SET payload = replace(payload, '\"KH\"', '\"KD\"')")
    assert verify(connection).breaks == ((2, "hash"),)
    connection.execute("UPDATE meta SET value = 'T2' WHERE key = 'table_id'")
    assert verify(connection).breaks == ((1, "genesis"), (2, "hash"))


def test_the_document_links_reach_its_own_headings_and_the_readme_links_it() -> None:
    anchors = _anchors(DOC)
    for target in re.findall(r"\]\(([^)\s]+)\)", doc()):
        file_part, _, anchor = target.partition("#")
        linked = (DOC.parent / file_part).resolve() if file_part else DOC
        assert linked.exists(), target
        if anchor:
            assert anchor in (_anchors(linked) if file_part else anchors), target
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/journal-format.md)" in readme


# --- a real journal --------------------------------------------------------------------------


async def play_a_short_shift(tmp_path: Path, broker: Mosquitto) -> tuple[Path, dict[str, Any]]:
    """A dealer signs in (once with a wrong PIN), two rounds, refusals, a supervisor's void.

    Returns the journal and the reply to a ``recall`` of the last two rounds, as published.
    """
    journal = tmp_path / f"{TABLE}.journal"
    env = {
        **os.environ,
        "TABLE_CONTROLLER_STAFF_REGISTER": str(write_register(tmp_path / "staff.json")),
        "TABLE_CONTROLLER_SUPERVISORS": json.dumps({"pit-1": ["backend"]}),
    }
    async with listening(broker, TOPICS, "journal-doc") as backend, table_run(
        tmp_path / "run.log",
        "--table-id", TABLE, "--variant", "mini", "--card-source", "rng",
        "--broker", broker.url("backend"), "--journal", str(journal), "--display", "off",
        env=env,
    ):  # fmt: skip
        await backend.wait_online()
        wrong = await backend.command("sign_in", staff_id="D-104", pin="0000")
        assert (wrong["ok"], wrong["error"]) == (False, "wrong_pin")
        right = await backend.command("sign_in", staff_id="D-104", pin=STAFF["D-104"][2])
        assert right["ok"], right
        assert (await backend.command("new_shoe", shoe_id="S-DOC"))["ok"]  # b-3
        for round_no in (1, 2):
            assert (await backend.command("open_betting"))["ok"]
            assert (await backend.command("close_betting"))["ok"]
            await backend.until_result(f"S-DOC-{round_no}")
        bad = await backend.command("deal", x=1)
        assert (bad["ok"], bad["error"]) == (False, "invalid_args")
        refused = await backend.command("deal")
        assert (refused["ok"], refused["error"]) == (False, "betting_phase")
        void = await backend.command("void_round", operator="pit-1", round_id="S-DOC-1")
        assert (void["ok"], void["supervisor"]) == (True, "pit-1")
        first = {"id": "b-3", "command": "new_shoe", "operator": "backend",
                 "args": {"shoe_id": "S-DOC"}}  # fmt: skip
        again = await backend.send(first)
        assert again["ok"], again
        recalled = await backend.command("recall", rounds=2)
        assert recalled["ok"], recalled
        await backend.until_odds(3)
    return journal, recalled


def recall_seal(published: dict[str, Any]) -> str:
    """The SHA-256 of the reply's canonical JSON without its envelope ("A recall's seal")."""
    envelope = {"schema", "type", "table_id", "seq", "ts", "kid", "sig"}
    return sha256_hex(canonical({k: v for k, v in published.items() if k not in envelope}))


def documented_fields(cell: str) -> set[str]:
    return set(code_spans(cell))


def check_documented(payload: dict[str, Any], type_: str) -> str:
    """The row's kind, once every key of its payload is found documented; fails otherwise."""
    text = doc()
    if type_ == "audit":
        audits = table_with(text, "Audit key")
        names = dict(zip(audits.column(0), audits.column(1), strict=True))
        for key, value in payload.items():
            assert f"`{key}`" in names, f"audit row {key!r} is not documented"
            if isinstance(value, dict):
                assert set(value) <= documented_fields(names[f"`{key}`"]), (key, value)
        # What an edge command asked goes beside its answer: the row is the answer's kind.
        [kind] = [key for key in payload if key != "asked"]
        return kind
    assert type_ == "input", type_
    kinds = table_with(text, "Input key")
    kind_cells = dict(zip(kinds.column(0), kinds.column(1), strict=True))
    common = set(table_with(text, "Field").column(0))
    present = [key for key in payload if f"`{key}`" in kind_cells]
    assert len(present) == 1, payload
    [kind] = present
    if kind != "command":
        assert {f"`{key}`" for key in payload} <= common | {f"`{kind}`"}, payload
        if kind == "assessed":
            fields = set(table_with(text, "Assessment field").column(0))
            assert {f"`{key}`" for key in payload[kind]} <= fields, payload
        return kind
    command_fields = set(table_with(text, "Command field").column(0))
    assert {f"`{key}`" for key in payload} <= command_fields | common | {"`command`"}, payload
    commands = table_with(text, "Command")
    args = dict(zip(commands.column(0), commands.column(1), strict=True))
    name = payload["command"]
    assert f"`{name}`" in args, f"command {name!r} is not documented"
    assert set(payload["args"]) <= documented_fields(args[f"`{name}`"]), payload
    assert "pin" not in payload["args"]
    return f"command {name}"


@pytest.mark.broker
async def test_a_real_tables_journal_verifies_from_the_document_and_a_changed_byte_is_caught(
    tmp_path: Path, broker: Mosquitto
) -> None:
    journal, recalled = await play_a_short_shift(tmp_path, broker)

    verdict = verify_file(journal)
    assert verdict.breaks == ()
    assert verdict.table_id_covered
    status, out, err = await table_controller("journal", "verify", "--json", str(journal))
    assert status == 0, err
    product = json.loads(out)
    assert (product["rows"], product["head"]) == (
        verdict.rows,
        {"seq": verdict.head[0], "hash": verdict.head[1]},
    )

    connection = sqlite3.connect(f"file:{quote(str(journal))}?mode=ro", uri=True)
    rows = connection.execute(
        "SELECT seq, event_id, type, payload FROM events ORDER BY seq"
    ).fetchall()
    assert dict(connection.execute("SELECT key, value FROM meta"))["table_id"] == TABLE
    connection.close()
    kinds = set()
    for seq, event_id, type_, payload in rows:
        assert payload == canonical(json.loads(payload)), f"row {seq}: stored not canonical"
        decoded = json.loads(payload)
        kind = check_documented(decoded, type_)
        kinds.add(kind)
        if kind.startswith("command "):
            assert event_id == f"command:{decoded['id']}"
        else:
            assert event_id is None
    assert {
        "card", "assessed", "answer", "command sign_in", "command new_shoe",
        "command open_betting", "command close_betting", "command deal", "command void_round",
    } <= kinds  # fmt: skip
    audits = [json.loads(p) for _, _, t, p in rows if t == "audit"]
    answers = [audit["answer"] for audit in audits if "answer" in audit]
    assert [a.get("error") for a in answers] == ["wrong_pin", "invalid_args", None]
    void = next(json.loads(p) for _, _, _, p in rows if '"void_round"' in p)
    assert void["supervisor"] == "pit-1"
    [recall_row] = [json.loads(p)["recall_answer"] for _, _, t, p in rows if "recall_answer" in p]
    assert recall_row == {
        "id": recalled["id"], "rounds": len(recalled["rounds"]), "seal": recall_seal(recalled)
    }  # fmt: skip
    assert len(recalled["rounds"]) == 2

    # One byte of one payload changed, in a copy: caught at that row, and only there.
    tampered = tmp_path / "tampered.journal"
    shutil.copy(journal, tampered)
    target = next(seq for seq, _, _, payload in rows if '"card":"' in payload and seq > 5)
    edit = sqlite3.connect(tampered)
    [(payload,)] = edit.execute("SELECT payload FROM events WHERE seq = ?", (target,))
    position = payload.index('"card":"') + len('"card":"')
    changed = (
        payload[:position] + ("Q" if payload[position] != "Q" else "K") + payload[position + 1 :]
    )
    assert len(changed.encode()) == len(payload.encode())
    edit.execute("UPDATE events SET payload = ? WHERE seq = ?", (changed, target))
    edit.commit()
    edit.close()
    assert verify_file(tampered).breaks == ((target, "hash"),)
    status, out, _ = await table_controller("journal", "verify", "--json", str(tampered))
    assert status == 1
    assert json.loads(out)["problems"] == [
        f"row {target}: hash does not match its contents (edited)"
    ]
