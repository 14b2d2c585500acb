# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The console view's lines and its gap and duplicate accounting: pure, no broker."""

from __future__ import annotations

import json

import pytest

from table_controller.demo.console import ConsoleView, describe_event, describe_result

PREFIX = "baccarat/tables"


def result(round_no: int, seq: int, **fields: object) -> dict[str, object]:
    message: dict[str, object] = {
        "schema": "baccarat-table/1",
        "type": "round_result",
        "table_id": "T01",
        "seq": seq,
        "shoe_id": "S-0001",
        "round_no": round_no,
        "round_id": f"S-0001-{round_no}",
        "player": {"cards": ["5H", "KD"], "total": 5},
        "banker": {"cards": ["7C", "QS"], "total": 7},
        "winner": "banker",
        "natural": False,
        "player_pair": False,
        "banker_pair": False,
        "dealer": "D-1",
    }
    message.update(fields)
    return message


def feed(
    view: ConsoleView,
    channel: str,
    message: dict[str, object] | bytes,
    *,
    table: str = "T01",
    retained: bool = False,
) -> list[str]:
    payload = message if isinstance(message, bytes) else json.dumps(message).encode()
    incoming = view.read(f"{PREFIX}/{table}/{channel}", payload, retained=retained)
    assert incoming is not None
    return view.handle(incoming)


def test_a_result_reads_winner_totals_natural_and_pairs() -> None:
    assert describe_result(result(12, 1)) == (
        "S-0001-12  BANKER 7-5             pairs: -     dealer D-1  player 5H KD     banker 7C QS"
    )
    natural = result(
        3,
        1,
        winner="player",
        natural=True,
        player={"cards": ["4H", "4S"], "total": 8},
        banker={"cards": ["2C", "KS"], "total": 2},
        player_pair=True,
    )
    assert describe_result(natural) == (
        "S-0001-3  PLAYER 8-2  (natural)  pairs: P     dealer D-1  player 4H 4S     banker 2C KS"
    )
    tie = result(
        4,
        1,
        winner="tie",
        player={"cards": ["3H", "4S"], "total": 7},
        banker={"cards": ["7C", "7D"], "total": 7},
        player_pair=True,
        banker_pair=True,
    )
    assert "TIE    7-7" in describe_result(tie)
    assert "pairs: P B " in describe_result(tie)


def test_a_result_with_missing_fields_still_gives_a_line() -> None:
    line = describe_result({"type": "round_result", "player": "?", "winner": "banker"})
    assert line.startswith("?  BANKER ?-?")
    assert "dealer -" in line


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ({"type": "round_voided", "round_id": "S-1-4", "reason": "exposed_card"},
         "S-1-4  VOIDED (exposed_card)"),
        ({"type": "shoe_started", "shoe_id": "S-1", "variant": "lucky"},
         "shoe S-1 started (lucky)"),
        ({"type": "last_round", "round_id": "S-1-70"}, "cut card: last round S-1-70"),
        ({"type": "last_round", "round_id": None}, "cut card: last round (none)"),
        ({"type": "shoe_ended", "shoe_id": "S-1", "reason": "cut_card", "rounds": 71},
         "shoe S-1 ended (cut_card), 71 rounds"),
        ({"type": "shoe_voided", "shoe_id": "S-1"}, "shoe S-1 VOIDED"),
        ({"type": "alarm", "code": "foreign_card", "message": "QH seen 9 times"},
         "ALARM foreign_card: QH seen 9 times"),
        ({"type": "burn", "first_card": "TD", "count": 10, "done": False},
         "burn: TD turned up, 10 to burn"),
        ({"type": "burn", "first_card": "TD", "count": 10, "done": True, "cards": ["QH"]}, None),
        ({"type": "card", "card": "QH"}, None),
        ({"type": "prompt", "action": "deal"}, None),
        ({"type": "staff_changed", "staff_id": "D-2", "dealer": "D-2", "previous_dealer": "D-1",
          "action": "sign_in"}, "dealer D-2 signed in"),
        ({"type": "staff_changed", "staff_id": "S-9", "dealer": "D-2", "previous_dealer": "D-2",
          "action": "sign_out"}, "supervisor S-9 signed out"),
    ],
)  # fmt: skip
def test_each_event_the_view_shows(message: dict[str, object], line: str | None) -> None:
    assert describe_event(message) == line


def test_the_view_prints_results_and_counts_each_round_once() -> None:
    view = ConsoleView(prefix=PREFIX)
    assert feed(view, "events/card", {"type": "card", "seq": 1, "card": "5H"}) == []
    lines = feed(view, "events/round_result", result(1, 2))
    assert len(lines) == 1
    assert lines[0].startswith("T01 S-0001-1  BANKER 7-5")
    assert feed(view, "commands/replies", {"type": "command_reply", "seq": 3, "ok": True}) == []
    assert feed(view, "events/round_result", result(2, 4)) != []
    assert view.results == 2
    assert view.summary() == "2 results, 0 duplicates, 0 gaps"


def test_duplicates_are_dropped_and_gaps_and_late_messages_flagged() -> None:
    view = ConsoleView(prefix=PREFIX)
    feed(view, "events/round_result", result(1, 10))
    assert feed(view, "events/round_result", result(1, 10)) == ["T01 DUPLICATE seq 10 (dropped)"]
    lines = feed(view, "events/round_result", result(2, 13))
    assert lines[0] == "T01 GAP seq 11-12 missing (got 13)"
    assert lines[1].startswith("T01 S-0001-2 ")
    assert feed(view, "state", {"type": "state", "seq": 12}) == ["T01 LATE seq 12 (fills a gap)"]
    assert (view.results, view.duplicates, view.gaps) == (2, 1, 1)


def test_commands_and_retained_snapshots_are_not_the_stream() -> None:
    view = ConsoleView(prefix=PREFIX)
    command: dict[str, object] = {"id": "x", "command": "open_betting", "operator": "p"}
    assert feed(view, "commands", command) == []
    assert feed(view, "events/round_result", result(1, 50), retained=True) == []
    assert feed(view, "state", {"type": "state", "seq": 7}) == []
    assert view.tracker.highest("T01") == 7
    assert view.results == 0


def test_status_lines_and_a_stale_will() -> None:
    view = ConsoleView(prefix=PREFIX)
    online = {"type": "status", "seq": 0, "online": True, "session": 2, "reader": "connected"}
    assert feed(view, "status", online) == ["T01 ONLINE (session 2, reader connected)"]
    stale = {"type": "status", "seq": 0, "online": False, "session": 1}
    assert feed(view, "status", stale) == ["T01 stale will of session 1 ignored"]
    offline = {"type": "status", "seq": 5, "online": False, "session": 2}
    assert feed(view, "status", offline) == ["T01 OFFLINE (session 2)"]


def test_unreadable_messages_and_messages_without_seq_are_flagged() -> None:
    view = ConsoleView(prefix=PREFIX)
    assert feed(view, "events/card", b"{not json") == ["T01 UNREADABLE message on events/card"]
    assert feed(view, "events/card", {"type": "card"}) == ["T01 NO SEQ in a message on events/card"]
    assert view.read("elsewhere/T01/state", b"{}", retained=False) is None


def test_tables_are_counted_apart() -> None:
    view = ConsoleView(prefix=PREFIX)
    feed(view, "events/round_result", result(1, 1), table="T01")
    lines = feed(view, "events/round_result", result(1, 1), table="T02")
    assert lines[0].startswith("T02 ")
    assert view.settled == {"T01": {"S-0001-1"}, "T02": {"S-0001-1"}}
