# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The decisions of the table procedure: instructions the adapters carry out.

Pure: no I/O, no clock, no randomness.

A small closed set (STYLE.md section 1). The runtime interprets them in one ``match`` that
ends in ``assert_never``. ``Publish`` payloads are the event fields of mqtt-api.md without the
envelope (``schema``, ``type``, ``table_id``, ``seq``, ``ts``), which the publishing edge adds
(:mod:`table_controller.publishing.messages`); settlement values stay ``Fraction`` here.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from table_controller.procedure.errors import AlarmCode, HoldReason, RefusalCode


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


class EventType(enum.StrEnum):
    """The ``type`` of every message the table publishes about play."""

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
    #: Retained on ``<root>/roads`` rather than an event topic.
    ROADS = "roads"
    #: Retained on ``<root>/odds``: every bet's exact odds for the next round.
    ODDS = "odds"


@dataclass(frozen=True, slots=True, kw_only=True)
class Prompt:
    """One prompt for the dealer; ``count`` for ``burn`` (once known), ``reason`` for ``hold``."""

    action: PromptAction
    count: int | None = None
    reason: HoldReason | None = None
    #: The round the prompt is about (the next one for ``open_betting``), if any.
    round_no: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Announce:
    """Show this prompt to the dealer (and publish it as a ``prompt`` event)."""

    prompt: Prompt


@dataclass(frozen=True, slots=True, kw_only=True)
class SetLamp:
    """Light the shoe's indicator."""

    lamp: Lamp


@dataclass(frozen=True, slots=True, kw_only=True)
class Publish:
    """Publish one message; ``retain`` for the retained topics (``roads``)."""

    event_type: EventType
    payload: Mapping[str, object] = field(hash=False)
    retain: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class RaiseAlarm:
    """Tell the pit (the same alarm is also published as an ``alarm`` event)."""

    code: AlarmCode
    message: str
    round_id: str | None = None
    details: Mapping[str, object] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class HoldTable:
    """Stop the dealing: the lamp shows HOLD and the display says why."""

    reason: HoldReason


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumeTable:
    """Every hold is cleared: dealing may go on."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandAccepted:
    """The command was carried out (the reply ``ok: true``)."""

    command_id: str
    command: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandRefused:
    """The command was refused and changed nothing (the reply ``ok: false``)."""

    command_id: str
    command: str
    phase: str
    code: RefusalCode
    message: str


Decision: TypeAlias = (
    Announce
    | SetLamp
    | Publish
    | RaiseAlarm
    | HoldTable
    | ResumeTable
    | CommandAccepted
    | CommandRefused
)
