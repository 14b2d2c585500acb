# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller odds --paytable FILE --config FILE``: each bet's stake limits beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_cli

VARIANT_FILE = """\
[commission.bets.tie]
payouts = { win = 9 }
limits = { min = "10.50", max = 1000 }

[commission.bets.banker]
limits = { min = 50, max = 5000 }
"""
SETTINGS = """\
table_id = "T1"                  # the table's other settings are not read here
currency = "MOP"
limits = { banker = { min = 100, max = 20000 } }
"""


def files(tmp_path: Path, settings: str = SETTINGS, variants: str = VARIANT_FILE) -> list[str]:
    (tmp_path / "variants.toml").write_text(variants, encoding="utf-8")
    (tmp_path / "table.toml").write_text(settings, encoding="utf-8")
    return ["--paytable", str(tmp_path / "variants.toml"), "--config", str(tmp_path / "table.toml")]


def rows(out: str) -> dict[str, str]:
    """Each bet's line of the table, by bet id."""
    return {line.split()[0]: line for line in out.splitlines()[4:] if line.strip()}


def test_each_bet_shows_its_limits_the_settings_over_the_variant_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run_cli(capsys, "odds", *files(tmp_path))
    assert status == 0, err
    header = out.splitlines()[3]
    assert header.endswith("offered        limits (MOP)")
    by_bet = rows(out)
    assert by_bet["banker"].endswith("every round    100-20,000")
    assert by_bet["tie"].split()[1] == "9"  # the variant file's payout stands beside its limits
    assert by_bet["tie"].endswith("every round    10.50-1,000")
    assert by_bet["player"].endswith("every round    none")
    assert by_bet["player_pair"].endswith("rounds 1-60    none")


def test_without_limits_the_table_is_as_before(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = run_cli(capsys, "odds", "--paytable", str(tmp_path / "none.toml"))
    assert status == 2  # a missing variant file is named
    status, out, _ = run_cli(capsys, "odds")
    assert status == 0
    assert out.splitlines()[3].endswith("RTP  offered")
    assert "limits" not in out


@pytest.mark.parametrize(("settings", "variants", "says"), [
    ('currency = "mop"\n', "", "currency = 'mop': must be an ISO 4217 code"),
    ("limits = { dragon = { min = 1, max = 2 } }\n", "",
     "limits.dragon: the 'commission' variant does not offer 'dragon'"),
    ("limits = { tie = { min = 9, max = 2 } }\n", "", "limits.tie: min 9 is above max 2"),
    ("", "[commission.bets.tie]\nlimits = { min = -1, max = 2 }\n",
     "commission.bets.tie.limits: min -1 must be above 0"),
    ("", "[commission.bets.tie]\nlimits = { min = 1 }\n", "commission.bets.tie: must be"),
])
def test_broken_limits_are_named_with_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, settings: str, variants: str, says: str
) -> None:
    status, out, err = run_cli(capsys, "odds", *files(tmp_path, settings, variants))
    assert status == 2
    assert says in err
    assert out == ""
