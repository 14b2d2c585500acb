# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The display's view model, pure: prompt words, hands, results, scoreboards on their grids."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.procedure.decisions import EventType, Publish
from table_controller.procedure.machine import TableProcedure
from table_controller.publishing.outgoing import OutgoingMessage
from table_controller.publishing.web import (
    HOLD_REASONS,
    DisplayModel,
    hand_view,
    prompt_view,
    roads_view,
)
from table_controller.rules.cards import Card, hand_total
from table_controller.rules.roads import RoadEntry, Scoreboard, layout_grid
from table_controller.rules.tableau import Winner
from table_controller.rules.variants import VARIANTS
from tests.display.display_harness import dealer_inputs, outgoing, seeded_shoe

# --- the prompt in words ---------------------------------------------------------------


def state_with(action: str | None, **fields: Any) -> dict[str, Any]:
    prompt = None if action is None else {"action": action, **fields.pop("prompt_fields", {})}
    return {"phase": "dealing", "prompt": prompt, "round_no": 12, "cards_seen": 40, **fields}


RESULT_7_TO_5: dict[str, Any] = {
    "round_no": 12,
    "winner": "banker",
    "player_total": 5,
    "banker_total": 7,
    "natural": False,
    "player_pair": False,
    "banker_pair": False,
}


@pytest.mark.parametrize(
    ("state", "result", "text", "tone"),
    [
        (state_with(None, phase="no_shoe"), None, "NEW SHOE", "idle"),
        (state_with("burn", phase="burn_card"), None, "BURN", "burn"),
        (state_with("burn", phase="burning", prompt_fields={"count": 7}), None, "BURN 7", "burn"),
        (state_with("open_betting", phase="between_rounds"), None, "OPEN BETTING", "bet"),
        (state_with("open_betting", phase="betting"), None, "BETTING OPEN", "bet"),
        (state_with("deal"), None, "DEAL", "deal"),
        (state_with("player_draws"), None, "PLAYER DRAWS", "player"),
        (state_with("banker_draws"), None, "BANKER DRAWS", "banker"),
        (state_with("result"), RESULT_7_TO_5, "BANKER WINS", "banker"),
        (
            state_with("result"),
            RESULT_7_TO_5 | {"winner": "player", "player_total": 8, "banker_total": 2},
            "PLAYER WINS",
            "player",
        ),
        (
            state_with("result"),
            RESULT_7_TO_5 | {"winner": "tie", "player_total": 6, "banker_total": 6},
            "TIE",
            "tie",
        ),
        (
            state_with("hold", phase="held", prompt_fields={"reason": "reader_offline"}),
            None,
            "HOLD",
            "hold",
        ),
        (state_with("shoe_over", phase="shoe_over"), None, "SHOE OVER", "idle"),
        (state_with(None, phase="faulted"), None, "HOLD", "hold"),
    ],
)
def test_the_prompt_in_words(
    state: dict[str, Any], result: dict[str, Any] | None, text: str, tone: str
) -> None:
    view = prompt_view(state, result)
    assert (view["text"], view["tone"]) == (text, tone)


def test_a_hold_says_why_and_a_burn_counts_down() -> None:
    for reason, words in HOLD_REASONS.items():
        held = state_with("hold", phase="held", prompt_fields={"reason": reason})
        assert prompt_view(held, None)["detail"] == words
    burning = state_with("burn", phase="burning", cards_seen=4, prompt_fields={"count": 7})
    assert prompt_view(burning, None)["detail"] == "Burn 7 face down: 3 of 7 done"


@pytest.mark.parametrize(
    ("result", "detail"),
    [
        (RESULT_7_TO_5, "Banker 7 · Player 5"),
        (
            RESULT_7_TO_5 | {"winner": "player", "player_total": 7, "banker_total": 1},
            "Player 7 · Banker 1",
        ),
        (
            RESULT_7_TO_5 | {"winner": "tie", "player_total": 6, "banker_total": 6},
            "Player 6 · Banker 6",
        ),
        (
            RESULT_7_TO_5 | {"natural": True, "banker_total": 9, "player_pair": True},
            "Banker 9 · Player 5 · Natural · Player pair",
        ),
    ],
)
def test_a_result_names_the_side_of_each_total_so_it_cannot_read_as_odds(
    result: dict[str, Any], detail: str
) -> None:
    view = prompt_view(state_with("result"), result)
    assert not any(char.isdigit() for char in str(view["text"])), view
    assert view["detail"] == detail


def test_a_result_of_another_round_is_not_shown_as_this_one() -> None:
    view = prompt_view(
        state_with("result", cards={"player": ["9H"], "banker": []}),
        RESULT_7_TO_5 | {"round_no": 11},
    )
    assert view["text"] == "RESULT"


def test_the_round_comes_from_the_prompt_event_when_there_is_one() -> None:
    view = prompt_view(state_with("open_betting", phase="between_rounds"), None, 13)
    assert view["detail"] == "Round 13 next"


def test_hands_show_their_totals_once_every_card_is_known() -> None:
    assert hand_view(["9H", "8D"]) == {"cards": ["9H", "8D"], "total": 7}
    assert hand_view(["KS", "QC", "5D"]) == {"cards": ["KS", "QC", "5D"], "total": 5}
    assert hand_view([]) == {"cards": [], "total": None}
    assert hand_view([None, "9H"]) == {"cards": [None, "9H"], "total": None}
    assert hand_view(["ZZ"])["total"] is None


# --- a whole shoe through the model --------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_the_model_follows_a_whole_shoe(seed: int) -> None:
    procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
    model = DisplayModel(procedure.snapshot())
    results = 0
    for n, event in enumerate(dealer_inputs(procedure, iter(seeded_shoe(seed)))):
        decisions = procedure.handle(event)
        state: Any = procedure.snapshot()
        events = [e for m in outgoing(decisions, state, n) for e in model.apply(m)]
        assert events[-1][0] == "table"
        table: Any = model.table()
        assert table["state"] == state
        prompt = state["prompt"]
        action = None if prompt is None else prompt["action"]
        words = table["prompt"]["text"]
        hands = table["hands"]
        cards = state["cards"]
        for hand in ("player", "banker"):
            codes = cards[hand]
            assert hands[hand]["cards"] == codes
            expected = hand_total(Card.parse(c).point for c in codes) if codes else None
            assert hands[hand]["total"] == expected
        published = [
            d.payload
            for d in decisions
            if isinstance(d, Publish) and d.event_type is EventType.ROUND_RESULT
        ]
        if action == "result":
            assert len(published) == 1
            result: Any = published[0]
            player, banker = result["player"]["total"], result["banker"]["total"]
            expected_words = {"banker": "BANKER WINS", "player": "PLAYER WINS", "tie": "TIE"}
            assert words == expected_words[result["winner"]]
            sides = ["banker", "player"] if result["winner"] == "banker" else ["player", "banker"]
            totals = {"player": player, "banker": banker}
            named = " · ".join(f"{side.title()} {totals[side]}" for side in sides)
            assert table["prompt"]["detail"].startswith(named)
            results += 1
        elif action == "burn" and prompt.get("count") is not None:
            assert words == f"BURN {prompt['count']}"
        elif action in {"deal", "player_draws", "banker_draws", "shoe_over"}:
            assert words == str(action).replace("_", " ").upper()
    assert procedure.snapshot()["phase"] == "shoe_over"
    assert results > 50
    roads: Any = model.view()["roads"]
    assert isinstance(roads, dict)
    assert roads["stats"]["rounds"] == len(roads["bead_plate"]) > 50


# --- scoreboards on their grids ---------------------------------------------------------------

LETTER = {Winner.BANKER: "B", Winner.PLAYER: "P", Winner.TIE: "T"}


def board_of(winners: list[Winner]) -> Scoreboard:
    return Scoreboard.from_entries(
        RoadEntry(
            winner=w,
            player_pair=False,
            banker_pair=False,
            natural=False,
            player_total=0,
            banker_total=0,
        )
        for w in winners
    )


def test_a_long_run_turns_into_a_dragon_tail_along_the_bottom_row() -> None:
    winners = [Winner.BANKER] * 8 + [Winner.PLAYER] * 7
    view: Any = roads_view(board_of(winners).payload("S-1", None))
    cells = [(c["x"], c["y"], c["winner"]) for c in view["big_road"]]
    banker = [(x, y) for x, y, w in cells if w == "B"]
    player = [(x, y) for x, y, w in cells if w == "P"]
    assert banker == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5), (2, 5)]
    # The next column starts beside the first and meets the tail a row higher.
    assert player == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)]
    assert view["width"]["big_road"] == 4


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(list(Winner)), max_size=90))
def test_every_scoreboard_is_laid_out_on_six_rows_without_collisions(
    winners: list[Winner],
) -> None:
    board = board_of(winners)
    payload: Any = board.payload("S-1", 300)
    view: Any = roads_view(payload)
    beads = view["bead_plate"]
    assert [(b["x"], b["y"], b["winner"]) for b in beads] == [
        (i // 6, i % 6, LETTER[w]) for i, w in enumerate(winners)
    ]
    expected_big = [(x, y) for x, y, _ in layout_grid(board.big_road)]
    assert [(c["x"], c["y"]) for c in view["big_road"]] == expected_big
    for name in ("big_road", "big_eye_boy", "small_road", "cockroach_pig"):
        cells = [(c["x"], c["y"]) for c in view[name]]
        assert len(set(cells)) == len(cells)
        assert all(0 <= y < 6 and x >= 0 for x, y in cells)
        assert view["width"][name] == (max(x for x, _ in cells) + 1 if cells else 0)
        if name != "big_road":
            marks = [m for column in payload[name] for m in column]
            assert [c["colour"] for c in view[name]] == marks
    assert view["ask_banker"] == payload["ask_banker"]
    assert view["stats"] == payload["stats"]


# --- alarms and voids ------------------------------------------------------------------------


def message(event_type: str, **payload: object) -> OutgoingMessage:
    return OutgoingMessage(
        key="1.0",
        topic=f"events/{event_type}",
        event_type=event_type,
        payload=payload,
        retain=False,
        ts="2026-11-29T12:34:56.789Z",
    )


def test_alarms_and_voids_are_listed_newest_first_and_bounded() -> None:
    model = DisplayModel({}, alarm_limit=3)
    for n in range(5):
        sent = model.apply(message("alarm", code="misread", message=f"alarm {n}"))
        alarms: Any = model.view()["alarms"]
        assert sent == [("alarm", alarms[0])]
    sent = model.apply(message("round_voided", round_no=4, round_id="S-1-4", reason="misdeal"))
    alarms = model.view()["alarms"]
    assert isinstance(alarms, list)
    assert [a["message"] for a in alarms] == [
        "Round 4 voided (misdeal)",
        "alarm 4",
        "alarm 3",
    ]
    kind: Any = sent[0][1]
    assert kind["kind"] == "void"
    assert model.apply(message("betting_opened", round_no=5)) == []
    assert (
        model.apply(
            OutgoingMessage(
                key="9",
                topic="commands/replies",
                event_type="command_reply",
                payload={"ok": True},
                retain=False,
                ts="x",
            )
        )
        == []
    )


def test_a_new_shoe_forgets_the_last_result() -> None:
    model = DisplayModel({"prompt": {"action": "result"}, "round_no": 3})
    model.apply(
        message(
            "round_result", round_no=3, winner="player", player={"total": 8}, banker={"total": 2}
        )
    )
    table: Any = model.table()
    assert (table["prompt"]["text"], table["prompt"]["detail"]) == (
        "PLAYER WINS",
        "Player 8 · Banker 2",
    )
    assert table["last_result"]["round_no"] == 3
    model.apply(message("shoe_started", shoe_id="S-2"))
    assert model.table()["last_result"] is None
