# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The board's view model, pure: what the players see, and nothing for the staff."""

from __future__ import annotations

import json
from typing import Any

import pytest

from table_controller.contract.codes import HoldReason, PromptAction
from table_controller.contract.envelope import JsonValue, fields_of
from table_controller.contract.journal_refusal import JournalRefusal
from table_controller.contract.payloads.round import RoundSettled
from table_controller.contract.payloads.state import TableState
from table_controller.history.pace import Pace
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.bets import BETS, MAIN_BETS
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.interpreter import DecisionInterpreter
from table_controller.screens.board.view import (
    STATUS_TEXTS,
    BoardModel,
    bets_view,
    limits_view,
    status_kind,
)
from table_controller.screens.dealer.limits import BET_NAMES, bet_name
from table_controller.screens.languages import Catalogues
from tests.display.display_harness import outgoing
from tests.support.composed import HOUSE_GAME, HOUSE_LIMITS
from tests.support.dealing import dealer_inputs, seeded_shoe
from tests.support.snapshots import snapshot

BOARD_TEXTS = Catalogues.packaged().messages("en", "board")


def plain(value: object) -> Any:
    """A view as the page reads it (JSON), for the tests to index freely."""
    return json.loads(json.dumps(value))


def texts_in(value: JsonValue) -> list[str]:
    """Every catalogue key named anywhere in a view."""
    if isinstance(value, dict):
        key = value.get("key")
        own = [key] if isinstance(key, str) else []
        return own + [key for item in value.values() for key in texts_in(item)]
    if isinstance(value, list):
        return [key for item in value for key in texts_in(item)]
    return []


def follow_a_shoe(seed: int = 7) -> tuple[BoardModel, list[dict[str, Any]], TableProcedure]:
    """A whole shoe dealt into a board model; the views after each input, and the table."""
    procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
    model = BoardModel(procedure.snapshot(), variant=procedure.variant, table_id="T07")
    interpreter = DecisionInterpreter(pace=Pace())
    views: list[dict[str, Any]] = []
    for n, event in enumerate(dealer_inputs(procedure, iter(seeded_shoe(seed)))):
        decisions = procedure.handle(event)
        now = procedure.snapshot()
        settled: dict[str, Any] = {}
        for message in outgoing(interpreter, decisions, now, n):
            if isinstance(message.payload, TableState):
                model.show(now)
            else:
                model.apply(message)
            if isinstance(message.payload, RoundSettled):
                settled = {"settled": fields_of(message.payload)}
        views.append(settled | plain(model.view()))
    return model, views, procedure


def test_a_whole_shoe_shows_the_tables_own_results_roads_and_counts() -> None:
    model, views, _ = follow_a_shoe()
    settled = [view for view in views if "settled" in view]
    assert len(settled) > 40
    for view in settled:
        result = view["settled"]
        banner = view["board"]["result"]
        assert banner is not None, "a result shows its banner between rounds"
        assert banner["winner"] == result["winner"]
        assert banner["player_total"] == result["player"]["total"]
        assert banner["banker_total"] == result["banker"]["total"]
        assert banner["text"] == {"key": f"game.winner.{result['winner']}"}
        notes = {note["key"] for note in banner["notes"]}
        assert ("game.natural" in notes) == result["natural"]
        assert ("game.player_pair" in notes) == result["player_pair"]
        assert ("game.banker_pair" in notes) == result["banker_pair"]
    final = plain(model.view())
    roads = final["roads"]
    assert isinstance(roads, dict)
    stats = roads["stats"]
    assert isinstance(stats, dict)
    assert stats["rounds"] == len(settled)
    assert stats["banker"] == sum(v["settled"]["winner"] == "banker" for v in settled)
    assert stats["tie"] == sum(v["settled"]["winner"] == "tie" for v in settled)
    last = final["last_results"]
    assert isinstance(last, list)
    assert [bead["winner"] for bead in last] == [
        {"banker": "B", "player": "P", "tie": "T"}[v["settled"]["winner"]] for v in settled[-16:]
    ]


def test_the_board_passes_through_betting_dealing_and_results_and_names_only_its_keys() -> None:
    _, views, _ = follow_a_shoe()
    kinds = {view["board"]["status"]["kind"] for view in views}
    assert {"betting", "dealing", "result", "new_shoe"} <= kinds
    for view in views:
        for key in texts_in(view):
            assert key in BOARD_TEXTS, key


def test_nothing_for_the_staff() -> None:
    _, views, _ = follow_a_shoe()
    text = json.dumps([{"board": view["board"], "roads": view["roads"]} for view in views])
    for word in ("commands", "alarm", "dealer", "supervisor", "staff", "pin", "oversight"):
        assert f'"{word}' not in text, word


def test_a_hold_is_a_neutral_please_wait_with_no_reason_and_no_cards() -> None:
    for reason in HoldReason:
        held = snapshot(PromptAction.HOLD, reason=reason, phase="held", held_in="dealing")
        model = BoardModel(held, variant=VARIANTS["commission"])
        board = model.board()
        assert board["status"] == {"kind": "wait", "text": STATUS_TEXTS["wait"]}
        assert board["hands"] == {
            "player": {"cards": [], "total": None},
            "banker": {"cards": [], "total": None},
        }
        assert reason.value not in json.dumps(model.view())
    for action in (PromptAction.SIGN_IN, PromptAction.CONFIRM_RESULT):
        assert status_kind(snapshot(action, phase="between_rounds"), result_shown=True) == "wait"
    assert status_kind(snapshot(None, phase="faulted"), result_shown=False) == "wait"


def test_a_journal_that_cannot_record_is_a_neutral_please_wait() -> None:
    dealing_snapshot = snapshot(PromptAction.PLAYER_DRAWS)
    model = BoardModel(dealing_snapshot, variant=VARIANTS["commission"], table_id="T07")
    dealing = plain(model.board())
    assert dealing["status"]["kind"] == "dealing"
    refusal = JournalRefusal(cause="database or disk is full (SQLITE_FULL)", disk_full=True)
    [(name, held)] = plain(model.journal(refusal))
    assert name == "board"
    assert held["status"] == plain({"kind": "wait", "text": STATUS_TEXTS["wait"]})
    assert held["hands"]["player"] == {"cards": [], "total": None}
    assert "disk" not in json.dumps(model.view())  # the cause is for the staff
    assert plain(model.journal(None)) == [["board", dealing]]


def test_every_bet_has_a_name_and_side_bets_close_outside_their_window() -> None:
    assert set(BET_NAMES) == set(BETS)
    variant = VARIANTS["commission"]
    late = plain(bets_view(variant, variant.offered_on(45), {}))
    closed = {bet["bet"] for bet in late if isinstance(bet, dict) and not bet["open"]}
    assert closed == {"big", "small"}
    assert all(bet["open"] for bet in plain(bets_view(variant, (), {})) if bet["bet"] in MAIN_BETS)
    assert [bet["bet"] for bet in late] == list(variant.bet_ids)


def test_limits_are_shown_per_bet_in_the_tables_currency() -> None:
    payload = {"currency": "MOP", "limits": {"banker": {"min": 100, "max": 10000}}}
    currency, limits = limits_view(payload)
    assert currency == "MOP"
    bets = bets_view(VARIANTS["commission"], (), limits)
    banker = next(bet for bet in bets if isinstance(bet, dict) and bet["bet"] == "banker")
    assert (banker["min"], banker["max"]) == (100, 10000)
    player = next(bet for bet in bets if isinstance(bet, dict) and bet["bet"] == "player")
    assert (player["min"], player["max"]) == (None, None)
    assert limits_view(None) == (None, {})
    assert limits_view("not limits") == (None, {})
    assert limits_view({"currency": 7, "limits": []}) == (None, {})


def test_a_composed_variant_shows_its_title_and_exactly_its_bets_with_their_limits() -> None:
    procedure = TableProcedure(HOUSE_GAME, table_id="T07", limits=HOUSE_LIMITS)
    board = plain(BoardModel(procedure.snapshot(), variant=HOUSE_GAME).board())
    assert board["variant"] == "House Game"  # its own title, shown as it is
    assert board["currency"] == "MOP"
    assert [bet["bet"] for bet in board["bets"]] == list(HOUSE_GAME.bet_ids)
    for bet in board["bets"]:
        assert bet["name"] == {"key": f"game.bet.{bet['bet']}"}
        assert bet["side"] == (bet["bet"] not in MAIN_BETS)
        limits = HOUSE_LIMITS.limits[bet["bet"]]
        assert (bet["min"], bet["max"]) == (limits.min, limits.max)
    standard = TableProcedure(VARIANTS["commission"], table_id="T07").snapshot()
    shown = BoardModel(standard, variant=VARIANTS["commission"]).board()
    assert shown["variant"] == {"key": "game.variant.commission"}


def test_a_bet_the_catalogue_does_not_name_shows_its_id(monkeypatch: pytest.MonkeyPatch) -> None:
    assert bet_name("a_future_bet") == "a_future_bet"
    monkeypatch.delitem(BET_NAMES, "lucky_6")  # as for a bet newer than the catalogues
    bets = plain(bets_view(HOUSE_GAME, (), {}))
    assert [bet["name"] for bet in bets if bet["bet"] == "lucky_6"] == ["lucky_6"]
    assert [bet["bet"] for bet in bets] == list(HOUSE_GAME.bet_ids)
