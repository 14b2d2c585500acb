# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One card rule at every entry point: the same good and bad cards, the same verdict.

A card is read from a person or a file by ``odds --remove`` and ``--batch``, by the
``manual_card`` and ``correct_result`` commands (MQTT and the dealer display), and by replay
inputs; each must accept exactly what ``Card.parse`` accepts: rank then suit, upper case.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path

import aiohttp
import pytest

from table_controller.cli import UsageError, main
from table_controller.cli.replay import read_inputs
from table_controller.contract.commands.message import CommandMessage
from table_controller.ingress.parsing import CommandRejection, parse_command, to_procedure_command
from table_controller.procedure.inputs import CardDrawn, CorrectResult, EnterCard
from table_controller.rules.cards import Card, CardError, parse_card_list
from tests.display.display_harness import PIN, Table, running_table

GOOD = ["5H", "QH", "TD", "AS", "KC", "9S"]
BAD = ["5h", "qh", "Qh", "10H", " QH", "QH ", "", "Q", "1H", "QX", "HQ", "QHH", "Q\u017f"]


def _odds(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    try:
        status = main(["odds", "--variant", "mini", "--json", *args])
    except SystemExit as stop:
        status = int(stop.code or 0)
    return status, capsys.readouterr().err


def _command(name: str, args: Mapping[str, object]) -> CommandMessage | CommandRejection:
    body = {"command": name, "id": "c-1", "operator": "sup-1", "args": args}
    return parse_command(json.dumps(body).encode())


def _replayed(tmp_path: Path, record: object) -> object:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return next(iter(read_inputs(inputs))).event


@pytest.mark.parametrize("text", GOOD)
def test_card_parse_accepts(text: str) -> None:
    assert Card.parse(text).code == text


@pytest.mark.parametrize("text", BAD)
def test_card_parse_refuses(text: str) -> None:
    with pytest.raises(CardError, match="not a card"):
        Card.parse(text)


@pytest.mark.parametrize("text", GOOD)
def test_odds_remove_accepts(capsys: pytest.CaptureFixture[str], text: str) -> None:
    status, _ = _odds(capsys, "--decks", "1", "--remove", f"AS,{text}" if text != "AS" else text)
    assert status == 0


@pytest.mark.parametrize("text", [bad for bad in BAD if bad and "," not in bad])
def test_odds_remove_refuses(capsys: pytest.CaptureFixture[str], text: str) -> None:
    status, err = _odds(capsys, "--remove", f"AS,{text}")
    assert status == 2
    assert "--remove: item 2: not a card" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("text", "position"), [("5S,,KD", 2), (",5S", 1), ("5S,", 2), (",", 1), ("5S,KD,,", 3)]
)
def test_an_empty_item_is_refused_by_its_position(
    capsys: pytest.CaptureFixture[str], text: str, position: int
) -> None:
    with pytest.raises(CardError, match=f"item {position}: empty"):
        parse_card_list(text)
    status, err = _odds(capsys, "--remove", text)
    assert status == 2
    assert f"--remove: item {position}: empty" in err


def test_no_remove_is_no_card() -> None:
    assert parse_card_list("") == ()


def _odds_batch(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str) -> tuple[int, str]:
    """``odds --batch`` on one line whose shoe counts the card ``text`` beside two others."""
    batch = tmp_path / "batch.jsonl"
    batch.write_text(json.dumps({text: 4, "KS": 4, "2C": 4}) + "\n", encoding="utf-8")
    return _odds(capsys, "--batch", str(batch))


@pytest.mark.parametrize("text", GOOD)
def test_odds_batch_accepts(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str) -> None:
    status, _ = _odds_batch(capsys, tmp_path, text)
    assert status == 0


@pytest.mark.parametrize("text", BAD)
def test_odds_batch_refuses(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str) -> None:
    status, err = _odds_batch(capsys, tmp_path, text)
    assert status == 2
    assert "line 1: not a card" in err


@pytest.mark.parametrize("text", GOOD)
def test_manual_card_accepts(text: str) -> None:
    command = _command("manual_card", {"card": text})
    assert isinstance(command, CommandMessage)
    event = to_procedure_command(command, at=0.0)
    assert isinstance(event, EnterCard)
    assert event.card == Card.parse(text)


@pytest.mark.parametrize("text", BAD)
def test_manual_card_refuses(text: str) -> None:
    assert isinstance(_command("manual_card", {"card": text}), CommandRejection)


@pytest.mark.parametrize("text", GOOD)
def test_correct_result_accepts(text: str) -> None:
    args = {"round_id": "S-1-1", "player": ["AS", text], "banker": ["KD", "2C"]}
    command = _command("correct_result", args)
    assert isinstance(command, CommandMessage)
    event = to_procedure_command(command, at=0.0)
    assert isinstance(event, CorrectResult)
    assert event.player[1] == Card.parse(text)


@pytest.mark.parametrize("text", BAD)
def test_correct_result_refuses(text: str) -> None:
    args = {"round_id": "S-1-1", "player": ["AS", text], "banker": ["KD", "2C"]}
    assert isinstance(_command("correct_result", args), CommandRejection)


@pytest.mark.parametrize("text", GOOD)
def test_replay_inputs_accept(tmp_path: Path, text: str) -> None:
    assert _replayed(tmp_path, {"card": text}) == CardDrawn(at=1.0, card=Card.parse(text))
    manual: dict[str, object] = {"command": "manual_card", "args": {"card": text}}
    assert isinstance(_replayed(tmp_path, manual), EnterCard)


@pytest.mark.parametrize("text", BAD)
@pytest.mark.parametrize(
    "record",
    [
        lambda card: {"card": card},
        lambda card: {"command": "manual_card", "args": {"card": card}},
        lambda card: {
            "command": "correct_result",
            "args": {"round_id": "S-1-1", "player": ["AS", card], "banker": ["KD", "2C"]},
        },
    ],
    ids=["card", "manual_card", "correct_result"],
)
def test_replay_inputs_refuse(tmp_path: Path, text: str, record: Callable[[str], object]) -> None:
    with pytest.raises(UsageError, match=r"line 1: .*not a card"):
        _replayed(tmp_path, record(text))


def test_a_bad_card_in_a_replayed_list_is_named_by_its_position(tmp_path: Path) -> None:
    args = {"round_id": "S-1-1", "player": ["AS", "5h"], "banker": ["KD", "2C"]}
    with pytest.raises(UsageError, match=r"'player' item 2: not a card: '5h'"):
        _replayed(tmp_path, {"command": "correct_result", "args": args})


@pytest.fixture
async def display_table(tmp_path: Path) -> AsyncIterator[tuple[Table, aiohttp.ClientSession]]:
    async with (
        running_table(tmp_path) as table,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
    ):
        yield table, http


async def test_the_display_applies_the_same_rule(
    display_table: tuple[Table, aiohttp.ClientSession],
) -> None:
    table, http = display_table
    url = table.display.url + "api/commands"
    for text in BAD:
        body = {"command": "manual_card", "args": {"card": text}, "pin": PIN}
        async with http.post(url, json=body) as response:
            reply = await response.json()
            assert response.status == 400, text  # refused as a malformed command
            assert "card" in reply["message"], reply
    for text in GOOD:  # a good card gets past the rule; the table then refuses it: no shoe
        body = {"command": "manual_card", "args": {"card": text}, "pin": PIN}
        async with http.post(url, json=body) as response:
            reply = await response.json()
            assert response.status == 409, (text, reply)  # refused by the table, not the rule
