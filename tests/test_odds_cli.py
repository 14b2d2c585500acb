# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
import json
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.rules.variants import VARIANTS
from tests.support.cli import run_cli


def test_readable_table_lists_every_bet(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "odds", "--variant", "lucky")
    assert status == 0
    assert "Banker wins 45.8597 %" in out
    for bet_id in ("player_lucky_pair", "tie_on_0123", "banker_red", "lucky_6"):
        assert f"\n{bet_id} " in out
    assert "rounds 1-60" in out


def test_json_has_every_bet_of_the_variant(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "odds", "--variant", "super_six", "--json")
    assert status == 0
    result = json.loads(out)
    assert result["variant"] == "super_six"
    assert result["cards"] == 416
    assert set(result["bets"]) == set(VARIANTS["super_six"].bet_ids)
    banker = result["bets"]["banker"]
    assert banker["house_edge"] == -banker["ev"]
    assert banker["rtp"] == pytest.approx(1 + banker["ev"])
    assert round(banker["house_edge"] * 100, 2) == 1.46


def test_remove_and_decks(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(
        capsys, "odds", "--variant", "mini", "--decks", "1", "--remove", "5S,5H,TD", "--json"
    )
    assert status == 0
    assert json.loads(out)["cards"] == 49


def test_batch_gives_one_result_per_line_in_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    full = {f"{r}{s}": 1 for r in "A23456789TJQK" for s in "SHDC"}
    no_fives = {card: count for card, count in full.items() if card[0] != "5"}
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps(full) + "\n\n" + json.dumps(no_fives) + "\n", encoding="utf-8")
    status, out, _ = run_cli(capsys, "odds", "--variant", "commission", "--batch", str(batch))
    assert status == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["cards"] for line in lines] == [52, 48]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["odds", "--remove", "ZZ"], "--remove: item 1: not a card: 'ZZ'"),
        (["odds", "--decks", "1", "--remove", "AS,AS"], "cannot remove 2 x AS"),
        (["odds", "--decks", "0"], "--decks: must be 1 or more"),
        (["odds", "--variant", "blackjack"], "--variant: 'blackjack' is not a variant"),
        (["odds", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_wrong_flags_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = run_cli(capsys, *args)
    assert status == 2
    assert out == ""
    assert message in err


def test_bad_batch_line_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_text('{"AS": 4}\n{"XX": 1}\n', encoding="utf-8")
    status, out, err = run_cli(capsys, "odds", "--batch", str(batch))
    assert status == 2
    assert out == ""
    assert "line 2" in err
    assert "'XX'" in err


def test_the_console_script_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "table_controller", "odds", "--variant", "mini", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(done.stdout)["variant"] == "mini"
