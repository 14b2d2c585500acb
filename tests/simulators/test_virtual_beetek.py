# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The Bee-Tek line writer and device (pure), read back by the driver's text-line parser."""

import pytest

from drivers.events import CardMisread, CardSeen, LineRejected, ReaderAlarm, ReaderWarning
from drivers.textline import parse_line
from simulators.virtual_shoe.beetek import (
    BeeTekDevice,
    BeeTekStyle,
    alarm_line,
    card_line,
    card_token,
    unreadable_line,
    warning_line,
)
from simulators.virtual_shoe.deck import deck_codes
from simulators.virtual_shoe.faults import (
    DealtCard,
    DealtCutCard,
    DealtMisread,
    ShoeRanOut,
    corrupt_bytes,
    parse_faults,
)


@pytest.mark.parametrize(
    ("style", "code", "token"),
    [
        (BeeTekStyle(), "4S", "4S"),
        (BeeTekStyle(), "TS", "TS"),
        (BeeTekStyle(ten="10"), "TS", "10S"),
        (BeeTekStyle(ten="10"), "KD", "KD"),
        (BeeTekStyle(suit_first=True), "4S", "S4"),
        (BeeTekStyle(ten="10", suit_first=True), "TH", "H10"),
    ],
)
def test_each_firmware_writes_a_card_its_own_way(style: BeeTekStyle, code: str, token: str) -> None:
    assert card_token(code, style) == token


def test_lines_are_written_as_the_spec_shows_them() -> None:
    assert card_line("4S") == b" [Game]<Card:4S> \r\n"
    assert card_line("4S", burn_mode=True) == b" [Manual Burn Cards]<Card:4S> \r\n"
    assert card_line("TC", style=BeeTekStyle(ten="10", padded=False)) == b"[Game]<Card:10C>\r\n"
    assert unreadable_line() == b" [Game]<Game> \r\n"
    assert alarm_line() == b" <Alarm:E3 Card Not Read> \r\n"
    assert alarm_line(tagged=True) == b" [GameAlarm]<Alarm:E3 Card Not Read> \r\n"
    assert warning_line(1) == b" <W0x01> \r\n"
    assert warning_line(0x2A) == b" <W0x2A> \r\n"
    with pytest.raises(ValueError, match="outside"):
        warning_line(256)


def connected(plan: str = "", style: BeeTekStyle | None = None) -> BeeTekDevice:
    device = BeeTekDevice(style=style, faults=parse_faults(plan))
    device.port_opened(0.0)
    device.start(0.0)
    return device


def test_the_device_writes_one_line_per_card_and_nothing_for_the_cut_card() -> None:
    device = connected()
    assert device.lamp is None
    assert not device.awaiting_ack
    device.emit(DealtCard(number=1, card="9H"), 0.1)
    device.emit(DealtCutCard(number=2), 0.2)
    device.emit(DealtMisread(number=3, actual="2C"), 0.3)
    device.burn_mode = True
    device.emit(DealtCard(number=4, card="9H"), 0.4)
    device.emit(ShoeRanOut(), 0.5)
    assert device.data_to_send() == (
        b" [Game]<Card:9H> \r\n [Game]<Game> \r\n [Manual Burn Cards]<Card:9H> \r\n"
    )
    assert device.deadline() is None


def test_alarms_and_warnings_are_written_when_asked_for() -> None:
    device = connected(style=BeeTekStyle(padded=False))
    device.alarm(0.0, tagged=True)
    device.warning(2, 0.0)
    assert device.data_to_send() == b"[GameAlarm]<Alarm:E3 Card Not Read>\r\n<W0x02>\r\n"


def test_the_host_has_nothing_to_say_to_this_profile() -> None:
    device = connected()
    assert device.receive_data(b"$HO,0,LAMP,PLAYER*00\r\n", 0.0) == []
    assert device.bytes_ignored == 22
    assert device.lamp is None


def test_a_line_written_while_unplugged_is_lost() -> None:
    device = BeeTekDevice()
    device.emit(DealtCard(number=1, card="9H"), 0.0)
    device.port_opened(1.0)
    assert device.data_to_send() == b""
    assert device.lines_lost == 1


def test_line_faults_drop_corrupt_split_and_delay() -> None:
    device = connected(
        "drop:card=1,corrupt:card=2,split:card=3:parts=2:gap=0.1,delay:card=4:seconds=1"
    )
    for number, card in enumerate(["AS", "2S", "3S", "4S"], start=1):
        device.emit(DealtCard(number=number, card=card), 0.0)
    third = card_line("3S")
    half = len(third) // 2
    assert device.data_to_send() == b" [Game]<Bard:2S> \r\n" + third[:half]
    assert device.deadline() == pytest.approx(0.1)
    device.on_deadline(0.1)
    assert device.data_to_send() == third[half:]
    # The delayed line, queued behind the split one, reaches the line a second after it was sent.
    assert device.deadline() == pytest.approx(1.0)
    device.on_deadline(1.0)
    assert device.data_to_send() == b" [Game]<Card:4S> \r\n"


def test_a_stall_holds_lines_back_until_it_ends() -> None:
    device = connected()
    device.stall(2.0, 0.0)
    device.emit(DealtCard(number=1, card="QH"), 0.5)
    assert device.data_to_send() == b""
    assert device.deadline() == pytest.approx(2.0)
    device.on_deadline(2.0)
    assert device.data_to_send() == b" [Game]<Card:QH> \r\n"


def test_a_power_cycle_leaves_burn_mode() -> None:
    device = connected()
    device.burn_mode = True
    device.power_cycle(0.0)
    device.emit(DealtCard(number=1, card="QH"), 0.1)
    assert device.data_to_send() == b" [Game]<Card:QH> \r\n"


_STYLES = [
    BeeTekStyle(ten=ten, suit_first=suit_first, padded=padded)
    for ten in ("T", "10")
    for suit_first in (False, True)
    for padded in (False, True)
]


@pytest.mark.parametrize("style", _STYLES)
def test_the_driver_reads_back_every_card_in_every_style_and_mode(style: BeeTekStyle) -> None:
    for code in deck_codes():
        for burn_mode in (False, True):
            line = card_line(code, burn_mode=burn_mode, style=style)
            assert parse_line(line.rstrip(b"\n")) == CardSeen(card=code, burn_mode=burn_mode)
    assert parse_line(unreadable_line(style).rstrip(b"\n")) == CardMisread()
    assert parse_line(alarm_line(style=style).rstrip(b"\n")) == ReaderAlarm(
        code="E3", text="Card Not Read"
    )
    assert parse_line(warning_line(1, style).rstrip(b"\n")) == ReaderWarning(code="W0x01")


def test_the_driver_rejects_a_corrupted_line_instead_of_reading_a_card() -> None:
    for code in deck_codes():
        corrupted = corrupt_bytes(card_line(code)).rstrip(b"\n")
        assert isinstance(parse_line(corrupted), LineRejected)
    assert isinstance(parse_line(corrupt_bytes(unreadable_line()).rstrip(b"\n")), LineRejected)
