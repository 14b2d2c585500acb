# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A variant composed in the variant file, and ``ez``, wherever a variant is named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from table_controller.cli import build_parser
from table_controller.cli.demo import demo_settings
from table_controller.runtime.config import SettingsError, load_settings
from tests.support.cli import run_cli
from tests.test_journal_stats_cli import journal_of
from tests.test_replay_cli import sorted_shoe_inputs, write

VARIANT_FILE = """
[house]
title = "House EZ with Dragon Bonus"
main_bets = "ez"
[house.bets.dragon_7]
[house.bets.player_dragon_bonus]
payouts = { by_9 = 25 }
[house.bets.banker_dragon_bonus]
"""


@pytest.fixture
def paytable(tmp_path: Path) -> Path:
    path = tmp_path / "variants.toml"
    path.write_text(VARIANT_FILE, encoding="utf-8")
    return path


@pytest.fixture
def no_settings_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("TABLE_CONTROLLER_"):
            monkeypatch.delenv(name)


def test_odds_of_ez_print_the_dragon_and_the_panda(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "odds", "--variant", "ez")
    assert status == 0
    assert out.startswith("EZ Baccarat (no commission) [ez], 416 cards (8 decks)")
    for bet_id in ("dragon_7", "panda_8", "player_pair"):
        assert f"\n{bet_id} " in out
    assert "win 1, win_on_6 1, three_card_7 0" in out


def test_odds_of_a_composed_variant(capsys: pytest.CaptureFixture[str], paytable: Path) -> None:
    status, out, _ = run_cli(capsys, "odds", "--variant", "house", "--paytable", str(paytable))
    assert status == 0
    assert out.startswith("House EZ with Dragon Bonus [house]")
    assert "natural 1, by_9 25, by_8 10" in out
    status, out, _ = run_cli(
        capsys, "odds", "--variant", "house", "--paytable", str(paytable), "--json"
    )
    assert status == 0
    odds = json.loads(out)
    assert list(odds["bets"]) == [
        "player", "banker", "tie", "dragon_7", "player_dragon_bonus", "banker_dragon_bonus",
    ]  # fmt: skip
    assert "by_9" in odds["bets"]["player_dragon_bonus"]["probabilities"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["odds", "--variant", "house"], "--variant: 'house' is not a variant (there are:"),
        (["replay", "--variant", "house", "--inputs", "x"], "--variant: 'house' is not a"),
        (["journal", "recall", "x", "--variant", "house"], "--variant: 'house' is not a"),
    ],
)
def test_a_composed_variant_needs_its_variant_file(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = run_cli(capsys, *args)
    assert (status, out) == (2, "")
    assert message in err


def test_a_refused_variant_file_stops_the_command_naming_the_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[house]\nmain_bets = "ez"\ndecks = 12\n', encoding="utf-8")
    status, _, err = run_cli(capsys, "odds", "--variant", "ez", "--paytable", str(path))
    assert status == 2
    assert "--paytable: " in err
    assert "house.decks: Input should be less than or equal to 8" in err


def test_replay_on_a_composed_variant_settles_and_assesses_its_bets(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, paytable: Path
) -> None:
    inputs = write(tmp_path, sorted_shoe_inputs(2))
    status, out, _ = run_cli(
        capsys, "replay", "--variant", "house", "--paytable", str(paytable),
        "--inputs", str(inputs), "--json",
    )  # fmt: skip
    assert status == 0
    messages = [json.loads(line) for line in out.splitlines()]
    (started,) = [m for m in messages if m["type"] == "shoe_started"]
    assert started["variant"] == "house"
    results = [m for m in messages if m["type"] == "round_result"]
    assert len(results) == 2
    for result in results:  # six aces: 3 against 3, a Tie without naturals
        assert result["winner"] == "tie"
        assert result["settlement"]["player_dragon_bonus"] == -1
        assert result["settlement"]["banker"] == 0
    odds = [m for m in messages if m["type"] == "odds"]
    assert odds
    assert "banker_dragon_bonus" in odds[0]["bets"]


def test_journal_stats_and_recall_take_a_composed_variant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, paytable: Path
) -> None:
    path = tmp_path / "A1.journal"
    journal_of(path, "A1", seed=3, inputs=60)
    flags = ["--variant", "house", "--paytable", str(paytable), "--json"]
    assert run_cli(capsys, "journal", "recall", str(path), *flags)[0] == 0
    assert run_cli(capsys, "journal", "stats", str(path), *flags)[0] == 0


@pytest.mark.usefixtures("no_settings_in_environment")
def test_the_variant_setting_is_checked_against_the_variants_in_force(paytable: Path) -> None:
    table = {"table_id": "T1", "card_source": "rng"}
    assert load_settings({**table, "variant": "ez"}).variant == "ez"
    assert load_settings({**table, "variant": "house", "paytable": paytable}).variant == "house"
    with pytest.raises(SettingsError, match=r"variant = 'house': not a built-in variant .*no pay"):
        load_settings({**table, "variant": "house"})
    with pytest.raises(SettingsError, match=r"variant = 'casa': .*nor one of .* \(house\)"):
        load_settings({**table, "variant": "casa", "paytable": paytable})
    with pytest.raises(SettingsError, match="variant = 'House': String should match pattern"):
        load_settings({**table, "variant": "House", "paytable": paytable})


@pytest.mark.usefixtures("no_settings_in_environment")
def test_the_demo_plays_a_composed_variant(paytable: Path) -> None:
    args = build_parser("demo").parse_args(
        ["demo", "--variant", "house", "--paytable", str(paytable)]
    )
    settings = demo_settings(args)
    assert settings.variant == "house"
    assert "banker_dragon_bonus" in settings.limits
    assert ("--paytable", str(paytable)) == settings.run_flags[-2:]
