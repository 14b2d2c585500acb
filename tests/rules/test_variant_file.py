# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
from fractions import Fraction
from pathlib import Path

import pytest

from table_controller.contract import BetLimits
from table_controller.rules.bets import BETS
from table_controller.rules.variants import COMMISSION, EZ, SUPER_SIX, VARIANTS
from table_controller.variant_file import (
    VariantFileError,
    load_bet_limits,
    load_dynamic_windows,
    load_variants,
)


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
        "three_card_7": Fraction(19, 20),
    }
    assert commission.offered("player_pair", 50)
    assert not commission.offered("player_pair", 51)
    assert commission.offered("big", 75)
    assert commission.bet_ids == load_variants(None)["commission"].bet_ids
    assert variants["lucky"] == load_variants(None)["lucky"]


@pytest.mark.parametrize(
    ("text", "three_card_7"),
    [
        # Paid as any Banker win: a new payout of the win pays it too.
        ('[commission.bets.banker]\npayouts = { win = 1, win_on_6 = "1/2" }', Fraction(1)),
        ("[super_six.bets.banker]\npayouts = { win = 0.95 }", Fraction(19, 20)),
        # Told apart (EZ's push), or given: it keeps its own payout.
        ("[ez.bets.banker]\npayouts = { win = 0.95 }", Fraction(0)),
        (
            "[commission.bets.banker]\npayouts = { win = 1, three_card_7 = 0.5 }",
            Fraction(1, 2),
        ),
    ],
)
def test_a_three_card_7_paid_as_any_banker_win_follows_the_wins_new_payout(
    tmp_path: Path, text: str, three_card_7: Fraction
) -> None:
    (name,) = {line[1:].split(".")[0] for line in text.splitlines() if line.startswith("[")}
    variant = load_variants(write(tmp_path, text))[name]
    assert variant.offer("banker").payouts["three_card_7"] == three_card_7


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
        (
            "[blackjack.bets.tie]\npayouts = { win = 8 }",
            r"blackjack: unknown variant .*a new variant needs main_bets",
        ),
        (
            "[commission.bets.banker]\nwindow = [1, 30]",
            r"commission\.bets\.banker\.window: a main bet is offered on every round",
        ),
        (
            '[house]\nmain_bets = "ez"\n[house.bets.tie]\nwindow = [1, 30]',
            r"house\.bets\.tie\.window: a main bet is offered on every round",
        ),
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


COMPOSED = """
[house_ez]
title = "House EZ with Dragon Bonus"
main_bets = "ez"
decks = 6
[house_ez.bets.player_pair]
window = [1, 60]
[house_ez.bets.player_dragon_bonus]
payouts = { by_9 = 25 }
limits = { min = 5, max = 500 }
[house_ez.bets.banker]
payouts = { three_card_7 = "1/2" }
"""


def test_a_new_section_composes_a_variant_from_the_catalogue(tmp_path: Path) -> None:
    variants = load_variants(write(tmp_path, COMPOSED))
    house = variants["house_ez"]
    assert (house.title, house.decks, house.burn, house.reshuffle, house.virtual) == (
        "House EZ with Dragon Bonus", 6, True, "cut_card", False,
    )  # fmt: skip
    assert house.bet_ids == ("player", "banker", "tie", "player_pair", "player_dragon_bonus")
    ez = variants["ez"]
    assert house.offer("player").payouts == ez.offer("player").payouts
    assert house.offer("banker").payouts == {**ez.offer("banker").payouts, "three_card_7": 0.5}
    bonus = house.offer("player_dragon_bonus")
    assert bonus.payouts == {**BETS["player_dragon_bonus"].default_payouts, "by_9": 25}
    assert bonus.window is None
    assert house.offered("player_pair", 60)
    assert not house.offered("player_pair", 61)
    assert {name: variants[name] for name in VARIANTS} == dict(VARIANTS)
    limits = load_bet_limits(write(tmp_path, COMPOSED))
    bonus_limits = BetLimits(min=Fraction(5), max=Fraction(500))
    assert limits["house_ez"]["player_dragon_bonus"] == bonus_limits


@pytest.mark.parametrize(
    ("main_bets", "banker"),
    [
        ("commission", COMMISSION.offer("banker").payouts),
        ("no_commission", SUPER_SIX.offer("banker").payouts),
        ("ez", EZ.offer("banker").payouts),
    ],
)
def test_main_bets_pay_as_the_built_in_variants_do(
    tmp_path: Path, main_bets: str, banker: object
) -> None:
    text = f'[house]\nmain_bets = "{main_bets}"\n'
    house = load_variants(write(tmp_path, text))["house"]
    assert house.bet_ids == ("player", "banker", "tie")
    assert house.offer("banker").payouts == banker
    assert house.title == "house"


def test_a_variant_reshuffled_every_round_is_virtual_and_burns_nothing(tmp_path: Path) -> None:
    text = '[quick]\nmain_bets = "commission"\ndecks = 1\nreshuffle = "every_round"\n'
    quick = load_variants(write(tmp_path, text))["quick"]
    assert (quick.decks, quick.burn, quick.reshuffle, quick.virtual) == (
        1, False, "every_round", True,
    )  # fmt: skip
    cut = load_variants(write(tmp_path, '[slow]\nmain_bets = "ez"\nburn = false\n'))["slow"]
    assert (cut.burn, cut.virtual) == (False, False)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[house]\nmain_bets = "ez"\n[house.bets.jackpot]', r"house\.bets\.jackpot: unknown bet"),
        (
            '[house]\nmain_bets = "ez"\n[house.bets.dragon_7]\npayouts = { by_9 = 1 }',
            r"house\.bets\.dragon_7\.payouts\.by_9: unknown tier \(tiers of 'dragon_7': win\)",
        ),
        ('[house]\nmain_bets = "half"', r"house\.main_bets: Input should be 'commission'"),
        ("[house]\nmain_bets = 3", r"house\.main_bets: Input should be 'commission'"),
        ('[house]\nmain_bets = "ez"\ndecks = 9', r"house\.decks: .*less than or equal to 8"),
        ('[house]\nmain_bets = "ez"\ndecks = 0', r"house\.decks: .*greater than or equal to 1"),
        ('[house]\nmain_bets = "ez"\ndecks = "8"', r"house\.decks: Input should be a valid int"),
        ('[House]\nmain_bets = "ez"', r"House: not a variant name"),
        ('[9house]\nmain_bets = "ez"', r"9house: not a variant name"),
        (f'[{"h" * 33}]\nmain_bets = "ez"', r"h{33}: not a variant name"),
        ('["house-ez"]\nmain_bets = "ez"', r"house-ez: not a variant name"),
        ("[house]\ndecks = 8", r"house: unknown variant .*needs main_bets"),
        ('[house]\nmain_bets = "ez"\nreshuffle = "never"', r"house\.reshuffle: Input should be"),
        (
            '[house]\nmain_bets = "ez"\nreshuffle = "every_round"\nburn = true',
            r"house\.burn: a variant reshuffled every round has no shoe to burn",
        ),
        (
            (
                '[house]\nmain_bets = "ez"\nreshuffle = "every_round"\n'
                "[house.bets.player_pair]\nwindow = [1, 60]"
            ),
            r"house\.bets\.player_pair\.window: a variant reshuffled every round offers every",
        ),
        ('[house]\nmain_bets = "ez"\ntitle = ""', r"house\.title: String should have at least"),
        ('[house]\nmain_bets = "ez"\ntitle = "a\\u0007b"', r"house\.title: String should match"),
        ('[house]\nmain_bets = "ez"\ncolour = "red"', r"house\.colour: Extra inputs"),
        ('[commission]\nmain_bets = "ez"', r"commission\.main_bets: Extra inputs"),
    ],
)
def test_a_composed_variant_that_cannot_be_dealt_is_refused_with_its_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, "[super_six.bets.tie]\npayouts = { win = 9 }\n" + text)
    with pytest.raises(VariantFileError, match=message):
        load_variants(path)
    with pytest.raises(VariantFileError, match=message):
        load_bet_limits(path)


def test_a_composed_variant_takes_dynamic_windows(tmp_path: Path) -> None:
    text = '[house]\nmain_bets = "ez"\n[house.bets.dragon_7]\n[house.dynamic_windows]\n'
    windows = load_dynamic_windows(write(tmp_path, text + "below_percent = 1\n"))
    assert list(windows) == ["house"]
    assert windows["house"].threshold == Fraction(1, 100)
