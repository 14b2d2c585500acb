# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller journal recall``: a journal's last rounds, and its refusals of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.cli import main
from tests.support.journal_files import execute_sql
from tests.test_journal_stats_cli import journal_of


def test_the_last_rounds_of_a_journal_as_json_and_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "A1.journal"
    settled = journal_of(path, "A1", seed=3, inputs=120)
    assert settled > 3
    assert main(["journal", "recall", str(path), "--last", "3", "--json"]) == 0
    recall = json.loads(capsys.readouterr().out)
    rounds = recall["rounds"]
    assert [r["round_no"] for r in rounds] == list(range(settled - 2, settled + 1))
    for found in rounds:
        assert found["status"] == "settled"
        assert found["dealer"] == "D-1"
        hands = [s for s in found["steps"] if s["kind"] == "card"]
        assert 4 <= len(hands) <= 6
        assert {s["position"] for s in hands} == {"player", "banker"}
        (result,) = [s for s in found["steps"] if s["kind"] == "result"]
        dealt = {s["card"] for s in hands}
        assert set(result["player"]["cards"]) | set(result["banker"]["cards"]) == dealt
    rows = [step["seq"] for found in rounds for step in found["steps"]]
    assert rows == sorted(rows)
    assert main(["journal", "recall", str(path), "--last", "3"]) == 0
    text = capsys.readouterr().out.splitlines()
    headings = [line for line in text if line.startswith("round ")]
    assert headings == [
        f"round {r['round_id']} (shoe {r['shoe_id']}, round {r['round_no']}, dealer D-1): settled"
        for r in rounds
    ]
    assert len(text) == len(headings) + sum(len(r["steps"]) for r in rounds) + (
        1 + len(recall["between_rounds"]) if recall["between_rounds"] else 0
    )


def test_a_missing_file_a_broken_chain_and_a_bad_count_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["journal", "recall", str(tmp_path / "nope.journal")])
    assert stopped.value.code == 2
    assert "cannot read" in capsys.readouterr().err
    path = tmp_path / "A1.journal"
    journal_of(path, "A1", seed=3, inputs=40)
    execute_sql(path, "UPDATE events SET payload = replace(payload, '\"card\"', '\"card\" ')")
    with pytest.raises(SystemExit) as stopped:
        main(["journal", "recall", str(path)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "hash chain is broken" in err
    assert "--inputs" not in err
    for bad in ("0", "-3", "ten"):
        with pytest.raises(SystemExit) as stopped:
            main(["journal", "recall", str(path), "--last", bad])
        assert stopped.value.code == 2
        assert "--last" in capsys.readouterr().err
