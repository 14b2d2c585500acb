# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The codes the procedure speaks in: message types, lamps, prompts, refusals, holds, alarms.

Pure: no I/O, no clock, no randomness. What the game or the shoe does wrong is an alarm or a
hold (:class:`AlarmCode`, :class:`HoldReason`); a command the procedure forbids is refused with a
:class:`RefusalCode`; a voided round says why with a :class:`VoidReason`.
"""

from __future__ import annotations

import enum


class RefusalCode(enum.StrEnum):
    """Why a command was refused (the ``error`` of a command reply)."""

    #: The command has no edge from the current phase in the transition table.
    WRONG_PHASE = "wrong_phase"
    #: The table is held; only supervisor commands that clear a hold are taken.
    TABLE_HELD = "table_held"
    #: ``open_betting`` / ``close_betting`` on a table configured without a betting phase.
    NO_BETTING_PHASE = "no_betting_phase"
    #: ``deal`` on a table with a betting phase: closing the betting deals the round.
    BETTING_PHASE = "betting_phase"
    #: ``manual_card`` when no card is missing.
    NO_CARD_MISSING = "no_card_missing"
    #: ``void_round`` / ``correct_result`` naming a round this shoe has not dealt or settled.
    UNKNOWN_ROUND = "unknown_round"
    #: The round or the shoe is already voided.
    ALREADY_VOIDED = "already_voided"
    #: ``correct_result`` with cards the drawing rules could not have dealt.
    INVALID_COUP = "invalid_coup"
    #: ``correct_result`` with the cards the round already has.
    UNCHANGED = "unchanged"
    #: A correction that would put a card in the shoe more often than its decks hold it.
    FOREIGN_CARD = "foreign_card"
    #: ``new_shoe`` with an id that is empty, too long, has blanks, or was used already.
    INVALID_SHOE_ID = "invalid_shoe_id"
    #: The table is faulted (a bug, or an input not carried out): only ``void_shoe`` is taken.
    FAULTED = "faulted"
    #: ``require_dealer``: no shoe, betting or deal while no dealer is signed in.
    NO_DEALER = "no_dealer"
    #: ``sign_out`` of someone who is not signed in at the table.
    NOT_SIGNED_IN = "not_signed_in"
    #: ``require_dealer``: the dealer signs out while a burn or a round is dealt (the next
    #: dealer signs in instead, which ends the stint).
    ROUND_IN_PLAY = "round_in_play"
    #: ``dispute`` while one is open (one at a time: it holds the table).
    DISPUTE_OPEN = "dispute_open"
    #: ``resolve_dispute`` of no dispute open, or of another one.
    NO_SUCH_DISPUTE = "no_such_dispute"
    #: ``acknowledge`` of an alarm that holds nothing now.
    NOTHING_TO_ACKNOWLEDGE = "nothing_to_acknowledge"
    #: ``acknowledge_alarm`` of an id no alarm of this table was raised with.
    UNKNOWN_ALARM = "unknown_alarm"
    #: ``acknowledge_alarm`` of an alarm a supervisor has acknowledged already.
    ALREADY_ACKNOWLEDGED = "already_acknowledged"
    #: ``call_supervisor`` while the last call is open (no supervisor acknowledged it yet).
    ALREADY_CALLED = "already_called"
    #: ``confirm_result`` with no result waiting for it, or for another round.
    NOTHING_TO_CONFIRM = "nothing_to_confirm"
    #: Results are confirmed: the last one waits, so no round starts and no other is changed.
    RESULT_UNCONFIRMED = "result_unconfirmed"
    #: ``set_limits`` naming a bet the variant does not offer, or a minimum that is not above
    #: zero or is above its maximum.
    INVALID_LIMITS = "invalid_limits"


class HoldReason(enum.StrEnum):
    """Why the dealing is stopped (the ``reason`` of a ``hold`` prompt)."""

    READER_OFFLINE = "reader_offline"
    MISREAD = "misread"
    LOST_FRAMES = "lost_frames"
    FOREIGN_CARD = "foreign_card"
    PROCEDURE_FAULT = "procedure_fault"
    #: The installed software differs from what its installer recorded, until acknowledged.
    SOFTWARE_MODIFIED = "software_modified"
    #: A supervisor opened a dispute, until it is resolved.
    DISPUTE = "dispute"
    #: The dealer reported that the cards on the layout differ from the shoe's reading.
    RESULT_NOT_CONFIRMED = "result_not_confirmed"


class AlarmCode(enum.StrEnum):
    """The ``code`` of an ``alarm`` event (mqtt-api.md lists the first six; the rest are ours)."""

    UNNECESSARY_CARD = "unnecessary_card"
    FOREIGN_CARD = "foreign_card"
    LOST_FRAMES = "lost_frames"
    READER_OFFLINE = "reader_offline"
    MISREAD = "misread"
    CARD_AFTER_LAST_ROUND = "card_after_last_round"
    EXPOSED_CARD = "exposed_card"
    CARD_WITHOUT_SHOE = "card_without_shoe"
    UNEXPECTED_CUT_CARD = "unexpected_cut_card"
    PROCEDURE_FAULT = "procedure_fault"
    #: An offered bet's house edge dropped below the threshold (the player has the edge).
    EDGE_POSITIVE = "edge_positive"
    #: The shoe's order is too regular for a fair shuffle.
    SHUFFLE_PATTERN = "shuffle_pattern"
    #: The shoe repeats the order of a recent shoe.
    SHOE_REPEATED = "shoe_repeated"
    #: More cards came out than the shoe holds.
    IMPOSSIBLE_COUNT = "impossible_count"
    #: Lost frames the burn or round did not need: a card drawn for one may still be entered.
    LOST_FRAMES_LEFT_OVER = "lost_frames_left_over"
    #: The installed software differs from what its installer recorded.
    SOFTWARE_MODIFIED = "software_modified"
    #: The cards on the layout differ from the shoe's reading (the second source).
    RESULT_NOT_CONFIRMED = "result_not_confirmed"
    #: The dealer, or an operator, called a supervisor to the table (``call_supervisor``).
    SUPERVISOR_CALLED = "supervisor_called"


class VoidReason(enum.StrEnum):
    """The ``reason`` of a ``round_voided`` event (mqtt-api.md)."""

    EXPOSED_CARD = "exposed_card"
    MISDEAL = "misdeal"
    DROPPED_CARD = "dropped_card"
    MISREAD = "misread"
    AFTER_LAST_ROUND = "after_last_round"
    SHOE_VOIDED = "shoe_voided"
    SUPERVISOR = "supervisor"


class EventType(enum.StrEnum):
    """The ``type`` of every message the table publishes."""

    SHOE_STARTED = "shoe_started"
    BURN = "burn"
    BETTING_OPENED = "betting_opened"
    BETTING_CLOSED = "betting_closed"
    CARD = "card"
    PROMPT = "prompt"
    ROUND_RESULT = "round_result"
    ROUND_VOIDED = "round_voided"
    RESULT_CORRECTED = "result_corrected"
    LAST_ROUND = "last_round"
    SHOE_ENDED = "shoe_ended"
    SHOE_VOIDED = "shoe_voided"
    ALARM = "alarm"
    #: A supervisor acknowledged an open alarm (``acknowledge_alarm``).
    ALARM_ACKNOWLEDGED = "alarm_acknowledged"
    STAFF_CHANGED = "staff_changed"
    DISPUTE_OPENED = "dispute_opened"
    DISPUTE_RESOLVED = "dispute_resolved"
    #: Retained on ``<root>/roads``.
    ROADS = "roads"
    #: Retained on ``<root>/odds``: every bet's exact odds for the next round.
    ODDS = "odds"
    #: Retained on ``<root>/state``.
    STATE = "state"
    #: Retained on ``<root>/stats``: game pace (shoe, dealer's stint, last hour).
    STATS = "stats"
    #: Retained on ``<root>/limits``: each bet's minimum and maximum stake.
    LIMITS = "limits"
    #: Retained on ``<root>/status``, and the last will.
    STATUS = "status"
    #: ``<root>/commands/replies``.
    COMMAND_REPLY = "command_reply"


class Lamp(enum.StrEnum):
    """The shoe's indicator (shoe-protocol.md ``LAMP``)."""

    #: The next card out of the shoe goes to the Player (burn cards light it too).
    PLAYER = "PLAYER"
    #: The next card goes to the Banker.
    BANKER = "BANKER"
    #: The coup is complete: both hands stand.
    STAND = "STAND"
    #: Stop dealing.
    HOLD = "HOLD"
    #: No card is expected.
    OFF = "OFF"


class PromptAction(enum.StrEnum):
    """What the dealer is asked to do next (mqtt-api.md ``prompt``)."""

    BURN = "burn"
    OPEN_BETTING = "open_betting"
    DEAL = "deal"
    PLAYER_DRAWS = "player_draws"
    BANKER_DRAWS = "banker_draws"
    RESULT = "result"
    HOLD = "hold"
    SHOE_OVER = "shoe_over"
    #: ``require_dealer``: a dealer signs in before the table goes on.
    SIGN_IN = "sign_in"
    #: Results are confirmed: the dealer checks the layout against the shoe's result.
    CONFIRM_RESULT = "confirm_result"


class CutCardWhen(enum.StrEnum):
    """When the cut card came out (``last_round``)."""

    DURING_ROUND = "during_round"
    BETWEEN_ROUNDS = "between_rounds"


class ShoeEndReason(enum.StrEnum):
    """Why a shoe ended (``shoe_ended``)."""

    CUT_CARD = "cut_card"
    NEW_SHOE = "new_shoe"


class ReaderState(enum.StrEnum):
    """The card reader as ``status`` reports it."""

    CONNECTED = "connected"
    OFFLINE = "offline"
    FAULT = "fault"


class StaffRole(enum.StrEnum):
    """What a member of staff does at the table (the staff register's ``role``)."""

    DEALER = "dealer"
    SUPERVISOR = "supervisor"


class Phase(enum.StrEnum):
    """Where the table is in its shoe."""

    #: No shoe has been started yet.
    NO_SHOE = "no_shoe"
    #: A new shoe: the first card is turned face up to tell how many cards to burn.
    BURN_CARD = "burn_card"
    #: Burning the cards the first card ordered.
    BURNING = "burning"
    #: Between rounds: waiting for ``open_betting`` or, with no betting phase, the next deal.
    BETWEEN_ROUNDS = "between_rounds"
    #: Bets are being taken: a card now is an exposed card.
    BETTING = "betting"
    #: The round's cards are expected, as the drawing rules call for them.
    DEALING = "dealing"
    #: The shoe ended (cut card) or was voided; waiting for ``new_shoe``.
    SHOE_OVER = "shoe_over"
    #: Dealing is stopped over one of the phases of ``HOLDABLE`` (shown, never stored).
    HELD = "held"
    #: The core hit a bug, or the runtime could not carry out an input: held until ``void_shoe``.
    FAULTED = "faulted"
