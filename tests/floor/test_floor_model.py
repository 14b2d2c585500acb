# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's pure core: tiles from the tables' messages, and the floor's open alarms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from table_controller.floor.model import Area, FloorModel, OpenAlarm, alarm_number


def status(
    *, online: bool, session: int, last_seq: int = 0, reader: str = "connected"
) -> dict[str, Any]:
    return {
        "type": "status",
        "online": online,
        "session": session,
        "last_seq": last_seq,
        "reader": reader,
        "ts": "2026-11-29T12:00:00.000Z",
    }


def alarm_item(number: int, table: str = "T1", code: str = "misread") -> dict[str, Any]:
    return {
        "alarm_id": f"{table}-A{number:06d}",
        "code": code,
        "message": f"alarm {number}",
        "shoe_id": "S-1",
        "round_id": "S-1-1",
    }


def state(
    seq: int,
    *,
    alarms: Sequence[dict[str, Any]] = (),
    count: int | None = None,
    **fields: Any,
) -> dict[str, Any]:
    return {
        "type": "state",
        "seq": seq,
        "ts": f"2026-11-29T12:00:{seq:02d}.000Z",
        "phase": "between_rounds",
        "shoe_id": "S-1",
        "round_no": 3,
        "cards_left": 380,
        "hold_reason": None,
        "holds": [],
        "dealer": "D-1",
        "supervisor": None,
        "dispute": None,
        "open_alarms": list(alarms),
        "open_alarm_count": len(alarms) if count is None else count,
    } | fields


def alarm_event(seq: int, number: int, table: str = "T1") -> dict[str, Any]:
    return {
        "type": "alarm",
        "seq": seq,
        "ts": f"2026-11-29T12:00:{seq:02d}.000Z",
        **alarm_item(number, table),
    }


def test_a_tile_shows_what_the_table_published() -> None:
    model = FloorModel([Area("Pit 1", ("T1", "T2"))])
    assert model.apply("T1", "status", status(online=True, session=1))
    assert model.apply(
        "T1", "state", state(5, phase="held", hold_reason="misread", holds=["misread"])
    )
    assert model.apply(
        "T1",
        "limits",
        {"seq": 6, "currency": "MOP", "limits": {"banker": {"min": 100, "max": 10000}}},
    )
    assert model.apply("T1", "stats", {"seq": 7, "last_hour": {"rounds_per_hour": 41.5}})
    assert model.apply(
        "T1",
        "roads",
        {
            "seq": 8,
            "bead_plate": [{"winner": "B"}, {"winner": "P", "player_pair": True}, {"winner": "T"}],
        },
    )
    tile = model.tile("T1")
    assert (tile["online"], tile["reader"], tile["phase"], tile["hold_reason"]) == (
        True,
        "connected",
        "held",
        "misread",
    )
    assert (tile["shoe_id"], tile["cards_left"], tile["dealer"]) == ("S-1", 380, "D-1")
    assert tile["limits"] == {"currency": "MOP", "limits": {"banker": {"min": 100, "max": 10000}}}
    assert tile["rounds_per_hour"] == 41.5
    assert [bead["winner"] for bead in tile["strip"]] == ["B", "P", "T"]
    assert tile["strip"][1]["player_pair"] is True
    assert (tile["area"], tile["seq"]) == ("Pit 1", 8)
    never = model.tile("T2")
    assert (never["heard"], never["online"], never["phase"]) == (False, None, None)


def test_an_older_message_of_a_kind_changes_nothing() -> None:
    model = FloorModel()
    assert model.apply("T1", "state", state(10, phase="dealing"))
    assert not model.apply("T1", "state", state(9, phase="betting"))  # a resend of an old one
    assert model.tile("T1")["phase"] == "dealing"
    assert not model.apply("T1", "state", {"type": "state"})  # no seq: not a message of ours


def test_a_late_will_of_an_older_session_is_ignored() -> None:
    model = FloorModel()
    model.apply("T1", "status", status(online=True, session=3))
    assert not model.apply("T1", "status", status(online=False, session=2))
    assert model.tile("T1")["online"] is True
    assert model.apply("T1", "status", status(online=False, session=3))
    assert not model.apply(
        "T1", "status", status(online=True, session=3)
    )  # its own will came first
    assert model.tile("T1")["online"] is False
    assert model.apply("T1", "status", status(online=True, session=4, reader="fault"))
    assert (model.tile("T1")["online"], model.tile("T1")["reader"]) == (True, "fault")


def test_a_new_journal_starts_the_table_afresh() -> None:
    model = FloorModel()
    model.apply("T1", "status", status(online=True, session=1))
    model.apply("T1", "state", state(500, alarms=[alarm_item(7)]))
    model.apply("T1", "status", status(online=True, session=2, last_seq=0))
    assert model.apply("T1", "state", state(3))  # seq 3 of the new journal is shown
    assert model.tile("T1")["open_alarm_count"] == 0


def test_open_alarms_follow_the_state_events_and_acknowledgements() -> None:
    model = FloorModel()
    before = model.alarms_version
    model.apply("T1", "events/alarm", alarm_event(4, 1))
    model.apply("T2", "events/alarm", alarm_event(2, 1, "T2"))
    assert model.alarms_version > before
    assert [a["alarm_id"] for a in model.open_alarms()] == ["T2-A000001", "T1-A000001"]
    model.apply("T1", "state", state(5, alarms=[alarm_item(1)]))
    assert model.open_alarms()[1]["ts"] == "2026-11-29T12:00:04.000Z"  # the raising time stays
    model.apply(
        "T1",
        "events/alarm_acknowledged",
        {
            "seq": 6,
            "ts": "2026-11-29T12:00:06.000Z",
            "alarm_id": "T1-A000001",
            "code": "misread",
            "comment": "seen",
            "supervisor": "S-9",
        },
    )
    assert [a["alarm_id"] for a in model.open_alarms()] == ["T2-A000001"]
    assert model.acknowledgements("T1")[0] | {} == {
        "alarm_id": "T1-A000001",
        "code": "misread",
        "comment": "seen",
        "supervisor": "S-9",
        "ts": "2026-11-29T12:00:06.000Z",
    }
    # A state published before the acknowledgement reached the floor does not reopen it.
    model.apply("T1", "state", state(7, alarms=[alarm_item(1)]))
    assert [a["alarm_id"] for a in model.open_alarms()] == ["T2-A000001"]


def test_a_state_that_lists_every_open_alarm_is_the_truth() -> None:
    model = FloorModel()
    model.apply("T1", "events/alarm", alarm_event(2, 1))
    model.apply("T1", "events/alarm", alarm_event(3, 2))
    model.apply("T1", "state", state(9, alarms=[alarm_item(2)]))  # 1 acknowledged elsewhere
    assert [a["alarm_id"] for a in model.open_alarms()] == ["T1-A000002"]
    assert model.tile("T1")["open_alarm_count"] == 1


def test_older_open_alarms_than_the_state_lists_come_from_the_database() -> None:
    model = FloorModel()
    listed = [alarm_item(number) for number in range(20, 10, -1)]  # the newest 10 of 12
    model.apply("T1", "state", state(50, alarms=listed, count=12))
    assert model.tile("T1")["open_alarm_count"] == 12
    stored = [
        OpenAlarm(
            table_id="T1",
            alarm_id=f"T1-A{n:06d}",
            code="misread",
            message="",
            ts=f"2026-11-29T11:00:{n:02d}.000Z",
        )
        for n in (3, 5, 11, 15)
    ]
    assert model.seed_alarms("T1", stored)
    ids = [a["alarm_id"] for a in model.open_alarms()]
    assert ids[:2] == ["T1-A000003", "T1-A000005"]  # raised earliest, shown first
    assert len(ids) == 12
    assert not model.seed_alarms("T1", stored)  # nothing new


def test_the_database_adds_nothing_a_complete_state_left_out() -> None:
    model = FloorModel()
    model.apply("T1", "state", state(5, alarms=[]))
    stored = [OpenAlarm(table_id="T1", alarm_id="T1-A000001", code="misread", message="")]
    assert not model.seed_alarms("T1", stored)  # the ingest is behind: the table says none
    assert model.seed_alarms(
        "T2", [OpenAlarm(table_id="T2", alarm_id="T2-A000004", code="misread", message="", ts="x")]
    )
    assert model.knows("T2")


def test_the_view_groups_tiles_by_area_and_puts_the_others_last() -> None:
    model = FloorModel([Area("Pit 1", ("T2", "T1")), Area("High limit", ("H1",))])
    model.apply("X9", "state", state(1))
    view = model.view()
    assert view["areas"] == [
        {"name": "Pit 1", "tables": ["T2", "T1"]},
        {"name": "High limit", "tables": ["H1"]},
        {"name": "", "tables": ["X9"]},
    ]
    assert set(view["tiles"]) == {"T1", "T2", "H1", "X9"}
    assert model.area_of("X9") == ""


def test_a_dispute_shows_on_its_tile() -> None:
    model = FloorModel()
    dispute = {
        "dispute_id": "T1-D0001",
        "reason": "patron",
        "round_ids": ["S-1-2"],
        "supervisor": "S-9",
    }
    model.apply("T1", "state", state(3, dispute=dispute, phase="held", hold_reason="dispute"))
    assert model.tile("T1")["dispute"] == dispute


def test_alarm_numbers_are_read_from_their_ids() -> None:
    assert alarm_number("T07-A000412") == 412
    assert alarm_number("nonsense") == 0
