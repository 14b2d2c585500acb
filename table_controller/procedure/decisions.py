# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The decisions of the table procedure: instructions the adapters carry out.

Pure: no I/O, no clock, no randomness.

A small closed set, each thing said once: an alarm is one ``RaiseAlarm`` and a prompt one
``Announce``, which the adapters both act on and publish. Payloads are the typed values of
the ``*_payloads`` modules (:mod:`~table_controller.contract.payloads.base`); the publishing
edge adds the envelope.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from table_controller.contract import (
    AlarmRaised,
    EventType,
    HoldReason,
    Lamp,
    Payload,
    PromptShown,
    RefusalCode,
)


@dataclass(frozen=True, slots=True)  # one field: built positionally, per message
class Announce:
    """Show this prompt to the dealer; it is published as the ``prompt`` event too."""

    prompt: PromptShown


@dataclass(frozen=True, slots=True, kw_only=True)
class SetLamp:
    """Light the shoe's indicator."""

    lamp: Lamp


@dataclass(frozen=True, slots=True)  # one field: built positionally, per message
class Publish:
    """Publish one message: its payload's type says the topic and whether it is retained."""

    payload: Payload

    @property
    def event_type(self) -> EventType:
        """The message's ``type``."""
        return self.payload.TYPE


@dataclass(frozen=True, slots=True, kw_only=True)
class RaiseAlarm:
    """Tell the pit: the alarm is logged and published as the ``alarm`` event."""

    alarm: AlarmRaised


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
    #: A supervisor command: the supervisor who authorised it.
    supervisor: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandRefused:
    """The command was refused and changed nothing (the reply ``ok: false``)."""

    command_id: str
    command: str
    phase: str
    code: RefusalCode
    message: str
    #: A supervisor command: the supervisor who authorised it.
    supervisor: str | None = None


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
