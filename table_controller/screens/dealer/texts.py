# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer display's texts for the table's codes: catalogue keys, never words.

Pure: no I/O. Literal maps from a code (a hold reason, an alarm, a void reason, a winner) to
the key of its text (:func:`~table_controller.screens.languages.localised`), so that the
key-match test (``tests/display/test_catalogues.py``) finds every key in the sources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from table_controller.contract import AlarmCode, HoldReason, JsonValue, VoidReason
from table_controller.screens.languages import localised

#: What the dealer reads under HOLD, per hold reason.
HOLD_REASONS: Final[Mapping[HoldReason, JsonValue]] = {
    HoldReason.READER_OFFLINE: localised("display.hold.reader_offline"),
    HoldReason.MISREAD: localised("display.hold.misread"),
    HoldReason.LOST_FRAMES: localised("display.hold.lost_frames"),
    HoldReason.FOREIGN_CARD: localised("display.hold.foreign_card"),
    HoldReason.PROCEDURE_FAULT: localised("display.hold.procedure_fault"),
    HoldReason.SOFTWARE_MODIFIED: localised("display.hold.software_modified"),
    HoldReason.DISPUTE: localised("display.hold.dispute"),
    HoldReason.RESULT_NOT_CONFIRMED: localised("display.hold.result_not_confirmed"),
}
#: What the dealer reads under HOLD while the journal refuses writes, by whether the disk is
#: full (``contract/journal_refusal.py``).
JOURNAL_HOLDS: Final[Mapping[bool, JsonValue]] = {
    True: localised("display.hold.journal_full"),
    False: localised("display.hold.journal_refuses"),
}
#: The name of each alarm on the alarm list (the alarm's own English message is the
#: technician's, shown on hover).
ALARM_NAMES: Final[Mapping[AlarmCode, JsonValue]] = {
    AlarmCode.UNNECESSARY_CARD: localised("display.alarm.unnecessary_card"),
    AlarmCode.FOREIGN_CARD: localised("display.alarm.foreign_card"),
    AlarmCode.LOST_FRAMES: localised("display.alarm.lost_frames"),
    AlarmCode.READER_OFFLINE: localised("display.alarm.reader_offline"),
    AlarmCode.MISREAD: localised("display.alarm.misread"),
    AlarmCode.CARD_AFTER_LAST_ROUND: localised("display.alarm.card_after_last_round"),
    AlarmCode.EXPOSED_CARD: localised("display.alarm.exposed_card"),
    AlarmCode.CARD_WITHOUT_SHOE: localised("display.alarm.card_without_shoe"),
    AlarmCode.UNEXPECTED_CUT_CARD: localised("display.alarm.unexpected_cut_card"),
    AlarmCode.PROCEDURE_FAULT: localised("display.alarm.procedure_fault"),
    AlarmCode.EDGE_POSITIVE: localised("display.alarm.edge_positive"),
    AlarmCode.SHUFFLE_PATTERN: localised("display.alarm.shuffle_pattern"),
    AlarmCode.SHOE_REPEATED: localised("display.alarm.shoe_repeated"),
    AlarmCode.IMPOSSIBLE_COUNT: localised("display.alarm.impossible_count"),
    AlarmCode.LOST_FRAMES_LEFT_OVER: localised("display.alarm.lost_frames_left_over"),
    AlarmCode.SOFTWARE_MODIFIED: localised("display.alarm.software_modified"),
    AlarmCode.RESULT_NOT_CONFIRMED: localised("display.alarm.result_not_confirmed"),
    AlarmCode.SUPERVISOR_CALLED: localised("display.alarm.supervisor_called"),
}
#: Why a round was voided, in words.
VOID_REASONS: Final[Mapping[VoidReason, JsonValue]] = {
    VoidReason.EXPOSED_CARD: localised("display.void_reason.exposed_card"),
    VoidReason.MISDEAL: localised("display.void_reason.misdeal"),
    VoidReason.DROPPED_CARD: localised("display.void_reason.dropped_card"),
    VoidReason.MISREAD: localised("display.void_reason.misread"),
    VoidReason.AFTER_LAST_ROUND: localised("display.void_reason.after_last_round"),
    VoidReason.SHOE_VOIDED: localised("display.void_reason.shoe_voided"),
    VoidReason.SUPERVISOR: localised("display.void_reason.supervisor"),
}
#: The winner's banner of a result, and the order its totals are named in (the winner's first).
WINNERS: Final[Mapping[str, tuple[JsonValue, tuple[str, str]]]] = {
    "banker": (localised("game.winner.banker"), ("banker", "player")),
    "player": (localised("game.winner.player"), ("player", "banker")),
    "tie": (localised("game.winner.tie"), ("player", "banker")),
}
SIDES: Final[Mapping[str, JsonValue]] = {
    "player": localised("game.player"),
    "banker": localised("game.banker"),
}
RESULT_NOTES: Final = (
    ("natural", localised("game.natural")),
    ("player_pair", localised("game.player_pair")),
    ("banker_pair", localised("game.banker_pair")),
)
#: The prompt while a required dealer is not signed in: text, detail, tone.
SIGN_IN: Final = (
    localised("display.prompt.sign_in"),
    localised("display.prompt.sign_in.detail"),
    "idle",
)


def side_total(side: str, total: JsonValue) -> JsonValue:
    """``Banker 7``: a side's name beside its total (a dash while it has none)."""
    shown = "\u2013" if total is None else total
    return localised("display.side_total", side=SIDES[side], total=shown)
