# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
from fractions import Fraction
from pathlib import Path

import pytest

from table_controller.variant_file import VariantFileError, load_variants


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "variants.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_gives_the_built_in_variants() -> None:
    variants = load_variants(None)
    assert variants["commission"].offer("tie").payouts == {"win": 8}


def test_payouts_and_windows_are_overridden_exactly(tmp_path: Path) -> None:
    variants = load_variants(
        write(
            tmp_path,
            """
[commission.bets.tie]
payouts = { win = 9 }
[commission.bets.banker]
payouts = { win = 0.95, win_on_6 = "1/2" }
[commission.bets.player_pair]
window = [1, 50]
[commission.bets.big]
window = "every_round"
""",
        )
    )
    commission = variants["commission"]
    assert commission.offer("tie").payouts == {"win": 9}
    assert commission.offer("banker").payouts == {
        "win": Fraction(19, 20),
        "win_on_6": Fraction(1, 2),
    }
    assert commission.offered("player_pair", 50)
    assert not commission.offered("player_pair", 51)
    assert commission.offered("big", 75)
    assert commission.bet_ids == load_variants(None)["commission"].bet_ids
    assert variants["lucky"] == load_variants(None)["lucky"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[commission.bets.no_such_bet]\npayouts = { win = 1 }",
            r"commission\.bets\.no_such_bet: unknown bet",
        ),
        (
            "[mini.bets.big]\nwindow = [1, 30]",
            r"mini\.bets\.big: the 'mini' variant does not offer 'big'",
        ),
        (
            "[commission.bets.tie]\npayouts = { win = -1 }",
            r"commission\.bets\.tie\.payouts\.win: payout must not be negative",
        ),
        (
            "[commission.bets.tie]\npayouts = { jackpot = 1 }",
            r"commission\.bets\.tie\.payouts\.jackpot: unknown tier",
        ),
        (
            "[commission.bets.big]\nwindow = [0, 30]",
            r"commission\.bets\.big\.window: \[0, 30\] is out of range",
        ),
        (
            "[commission.bets.big]\nwindow = [40, 30]",
            r"commission\.bets\.big\.window: \[40, 30\] is out of range",
        ),
        (
            "[commission.bets.big]\nwindow = [1, 999]",
            r"commission\.bets\.big\.window: \[1, 999\] is out of range",
        ),
        ('[commission.bets.big]\nwindow = "sometimes"', r"commission\.bets\.big\.window"),
        (
            '[commission.bets.tie]\npayouts = { win = "eight" }',
            r"commission\.bets\.tie\.payouts\.win: 'eight' is not a payout",
        ),
        ("[commission.bets.tie]\npayouts = { win = true }", r"commission\.bets\.tie\.payouts\.win"),
        (
            "[commission.bets.tie]\npayout = { win = 8 }",
            r"commission\.bets\.tie\.payout: Extra inputs are not permitted",
        ),
        ("[blackjack.bets.tie]\npayouts = { win = 8 }", r"blackjack: unknown variant"),
        ("[commission]\nbets = 3", r"commission\.bets"),
        ("commission = [", r"not valid TOML"),
    ],
)
def test_an_invalid_file_is_refused_naming_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(VariantFileError, match=message):
        load_variants(write(tmp_path, text))


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(VariantFileError, match="cannot read"):
        load_variants(tmp_path / "absent.toml")
