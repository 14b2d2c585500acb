# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who draws: the command language and the automatic dealer's rule (pure)."""

import pytest

from drivers.srp.constants import Lamp
from simulators.virtual_shoe.dealer import (
    CommandError,
    CyclePower,
    Deal,
    PlugCable,
    PullCable,
    Quit,
    RaiseAlarm,
    RaiseWarning,
    SetBurnMode,
    ShowHelp,
    ShowStatus,
    Stall,
    Wait,
    describe,
    parse_command,
    should_deal,
)
from simulators.virtual_shoe.faults import DealtCard, DealtCutCard, DealtMisread, ShoeRanOut


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("\n", Deal()),
        ("deal", Deal()),
        ("d 5", Deal(count=5)),
        ("DEAL 2  # two cards", Deal(count=2)),
        ("# a comment\n", None),
        ("wait 0.5", Wait(seconds=0.5)),
        ("unplug", PullCable()),
        ("unplug 2.5", PullCable(seconds=2.5)),
        ("plug", PlugCable()),
        ("replug", PlugCable()),
        ("power-cycle", CyclePower()),
        ("stall", Stall(seconds=4.0)),
        ("stall 1", Stall(seconds=1.0)),
        ("burn on", SetBurnMode(on=True)),
        ("burn off", SetBurnMode(on=False)),
        ("alarm", RaiseAlarm()),
        ("warning 2", RaiseWarning(number=2)),
        ("status", ShowStatus()),
        ("?", ShowHelp()),
        ("quit", Quit()),
    ],
)
def test_command_lines_are_read(line: str, command: object) -> None:
    assert parse_command(line) == command


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("shuffle", "not a command: 'shuffle'"),
        ("deal 0", "deal N: N from 1 to 1000"),
        ("deal x", "deal N"),
        ("wait", "not a command"),
        ("wait -1", "wait SECONDS"),
        ("stall nan", "stall SECONDS"),
        ("warning 256", "warning N: N from 1 to 255"),
        ("burn maybe", "not a command"),
        ("deal 1 2", "not a command"),
    ],
)
def test_a_line_that_is_no_command_says_why(line: str, message: str) -> None:
    result = parse_command(line)
    assert isinstance(result, CommandError)
    assert message in result.message


@pytest.mark.parametrize(
    ("lamp", "awaiting_ack", "plugged", "deals"),
    [
        (Lamp.PLAYER, False, True, True),
        (Lamp.BANKER, False, True, True),
        (Lamp.STAND, False, True, False),
        (Lamp.HOLD, False, True, False),
        (Lamp.OFF, False, True, False),
        (Lamp.PLAYER, True, True, False),
        (Lamp.PLAYER, False, False, False),
        (None, False, True, True),
        (None, True, True, False),
    ],
)
def test_the_automatic_dealer_deals_only_when_asked_and_caught_up(
    lamp: Lamp | None, awaiting_ack: bool, plugged: bool, deals: bool
) -> None:
    assert should_deal(lamp=lamp, awaiting_ack=awaiting_ack, plugged=plugged) is deals


def test_draws_are_described_for_the_person_running_the_shoe() -> None:
    assert describe(DealtCard(number=4, card="QH")) == "draw 4: QH"
    assert describe(DealtCard(number=5, card="QH", foreign=True)) == "draw 5: QH (a foreign card)"
    assert describe(DealtCutCard(number=6)) == "draw 6: the cut card"
    assert describe(DealtMisread(number=7, actual="2C")) == "draw 7: misread (it was 2C)"
    assert describe(ShoeRanOut()) == "the shoe is empty"
