# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller replay`` driven through its console entry point, as an operator would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.cli.run import round_advisor
from table_controller.protection.advisor import AdvisorSettings
from table_controller.rules.variants import COMMISSION
from table_controller.runtime.config import load_settings
from tests.support.journal_files import execute_sql

SHOE = [
    {"command": "new_shoe", "args": {"shoe_id": "S-1"}, "ts": "2026-11-29T12:00:00.000Z"},
    {"card": "2H"}, {"card": "5S"}, {"card": "6D"},
    {"command": "open_betting"}, {"command": "close_betting"},
    {"card": "4S"}, {"misread": True}, {"card": "KH"}, {"card": "JD"},
    {"command": "manual_card", "args": {"card": "6C"}, "id": "m-1", "operator": "sup-3"},
    {"card": "9D", "ts": "2026-11-29T12:01:00.000Z"},
    {"cut": True},
    {"command": "open_betting"},
    {"reader": "offline"}, {"reader": "online"}, {"frames_lost": 1},
]


def write(tmp_path: Path, records: list[object], name: str = "inputs.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(record) for record in records) + "\n", encoding="utf-8")
    return path


def run_json(path: Path, capsys: pytest.CaptureFixture[str],
             *flags: str) -> list[dict[str, object]]:
    assert main(["replay", "--variant", "super_six", "--inputs", str(path), "--json", *flags]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_replay_prints_every_event_as_published(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    messages = run_json(write(tmp_path, SHOE), capsys)
    seqs = [int(str(m["seq"])) for m in messages]
    # Numbered as the live table numbers every message (state and replies count, unprinted).
    assert seqs == sorted(set(seqs))
    assert seqs[0] == 2  # the reply to new_shoe is message 1
    assert {m["schema"] for m in messages} == {"baccarat-table/1"}
    assert {m["table_id"] for m in messages} == {"replay"}
    kinds = [m["type"] for m in messages]
    assert kinds[:3] == ["shoe_started", "roads", "prompt"]
    assert kinds.count("round_result") == 1
    result = next(m for m in messages if m["type"] == "round_result")
    assert result["ts"] == "2026-11-29T12:01:00.000Z"
    assert result["banker"] == {"cards": ["6C", "JD"], "total": 6}
    assert result["settlement"]["banker"] == 0.5  # type: ignore[index]
    assert result["settlement"]["super_six"] == 12  # type: ignore[index]
    assert result["manual_cards"] == ["6C"]
    assert messages[0]["ts"] == "2026-11-29T12:00:00.000Z"
    assert messages[3]["ts"] is None
    assert kinds[-3:] == ["prompt", "alarm", "alarm"]
    assert [m["code"] for m in messages if m["type"] == "alarm"] == [
        "misread", "reader_offline", "lost_frames"]


def test_replay_is_deterministic_and_reports_refusals_on_stderr(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, SHOE)
    first = run_json(path, capsys)
    assert main(["replay", "--variant", "super_six", "--inputs", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert [json.loads(line) for line in captured.out.splitlines()] == first
    assert "line 14: open_betting refused (wrong_phase)" in captured.err


def test_replay_without_betting_phase(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    records = [{"command": "new_shoe", "args": {"shoe_id": "V-1"}},
               *({"card": code} for code in ["3H", "3C", "4S", "4D", "8H", "2C", "KS", "3D"])]
    path = write(tmp_path, records)
    assert main(["replay", "--variant", "mini", "--inputs", str(path), "--json",
                 "--no-betting-phase", "--table-id", "T07"]) == 0
    messages = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    results = [m for m in messages if m["type"] == "round_result"]
    assert [(m["round_id"], m["winner"]) for m in results] == [("V-1-1", "tie"),
                                                               ("V-1-2", "player")]
    assert {m["table_id"] for m in messages} == {"T07"}


def test_readable_output_is_one_line_per_event(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, SHOE)
    count = len(run_json(path, capsys))
    assert main(["replay", "--variant", "super_six", "--inputs", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == count
    assert lines[0].startswith("#2 shoe_started S-1")
    result = next(line for line in lines if " round_result " in line)
    assert "player 4S KH 9D (3) banker 6C JD (6) -> banker" in result
    assert "banker +1/2" in result
    assert "super_six +12" in result
    assert any(line.endswith("banker 1: 6C (entered by hand)") for line in lines)


@pytest.mark.parametrize(("content", "words"), [
    ('{"card": "KH"}\n{"card": "ZZ"}\n', "line 2: 'card': not a card"),
    ('{"card": "KH"}\n\n{"cut": tru}\n', "line 3: not JSON"),
    ('{"command": "void_round"}\n', "line 1: command 'void_round' needs argument 'round_id'"),
    ('{"card": "KH", "ts": 5}\n', "line 1: 'ts' must be a string"),
])
def test_a_bad_line_stops_with_its_number_and_status_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, words: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--variant", "commission", "--inputs", str(path)])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert words in captured.err
    assert len(captured.err.strip().splitlines()) == 1


def test_an_sqlite_file_that_is_not_a_journal_is_refused_cleanly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.journal"
    execute_sql(path, "CREATE TABLE events (seq INTEGER PRIMARY KEY)")
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--inputs", str(path)])
    assert stopped.value.code == 2
    assert "is an SQLite file but not a table-controller journal" in capsys.readouterr().err


def test_missing_file_and_wrong_variant_exit_2(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--inputs", str(tmp_path / "nope.jsonl")])
    assert stopped.value.code == 2
    assert "cannot read" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--variant", "blackjack", "--inputs", "x"])
    assert stopped.value.code == 2


def sorted_shoe_inputs(rounds: int) -> list[object]:
    """A shoe in rank order (its 32 aces first), its burn and ``rounds`` rounds (at most 5).

    The first ace burns one card; then every round is six aces (2 against 2, both draw).
    """
    records: list[object] = [{"command": "new_shoe", "args": {"shoe_id": "S-1"}}]
    records += [{"card": "AS"}, {"card": "AH"}]
    for _ in range(rounds):
        records += [{"command": "open_betting"}, {"command": "close_betting"}]
        records += [{"card": suit} for suit in ("AD", "AC", "AS", "AH", "AD", "AC")]
    return records


def test_replay_of_recorded_inputs_runs_the_live_tables_assessments(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, sorted_shoe_inputs(3))
    messages = run_json(path, capsys)
    assert [m["round_no"] for m in messages if m["type"] == "odds"] == [1, 2, 3, 4]
    patterns = [m for m in messages if m["type"] == "alarm" and m["code"] == "shuffle_pattern"]
    assert [(m["kind"], m["round_id"]) for m in patterns] == [("one_rank", "S-1-2")]
    assert patterns[0]["cards"] == ["AS", "AH", "AD", "AC", "AS", "AH", "AD", "AC"]
    assert run_json(path, capsys) == messages, "the same inputs, the same output"
    skipped = run_json(path, capsys, "--no-assess")
    assert not [m for m in skipped if m["type"] in {"odds", "alarm"}]
    assert main(["replay", "--variant", "super_six", "--inputs", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(" alarm S-1-2 shuffle_pattern: shuffle too orderly: 8 cards of one rank" in line
               for line in lines), lines


def test_replay_assesses_with_the_settings_run_has_by_default() -> None:
    settings = load_settings({"table_id": "T1", "port": "/dev/x"})
    advisor = round_advisor(settings, COMMISSION, None)  # what run builds
    assert advisor is not None, "run has live odds by default"
    assert advisor.settings == AdvisorSettings()
