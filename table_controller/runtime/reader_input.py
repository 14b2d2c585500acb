# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the shoe reader's events mean to the table: procedure inputs, audit rows, reader state."""

from __future__ import annotations

from drivers import events as reader
from table_controller.contract import ReaderState
from table_controller.procedure import (
    CardDrawn,
    CardMisread,
    CutCardDrawn,
    FramesLost,
    Input,
    ReaderCameBack,
    ReaderWentOffline,
)
from table_controller.rules import Card


def reader_input(event: reader.ReaderEvent, at: float) -> Input | None:  # noqa: PLR0911 - a case each
    """The procedure input a reader event stands for, or None if it is not one."""
    match event:
        case reader.CardSeen(card=card):
            return CardDrawn(at=at, card=Card.parse(card))
        case reader.CutCardSeen():
            return CutCardDrawn(at=at)
        case reader.CardMisread():
            return CardMisread(at=at)
        case reader.FramesLost(count=count):
            return FramesLost(at=at, count=count)
        case reader.ReaderOffline():
            return ReaderWentOffline(at=at)
        case reader.ReaderOnline():
            return ReaderCameBack(at=at)
        case _:
            return None


def audit_record(event: reader.ReaderEvent) -> dict[str, object] | None:
    """Reader facts worth keeping for compliance though the procedure does not act on them."""
    match event:
        case reader.ReaderHello(model=model, firmware=firmware, serial=serial):
            return {"reader_hello": {"model": model, "firmware": firmware, "serial": serial}}
        case reader.ReaderStatus(state=state, code=code):
            return {"reader_status": {"state": str(state), "code": code}}
        case reader.ReaderAlarm(code=code, text=text):
            return {"reader_alarm": {"code": code, "text": text}}
        case _:
            return None


def reader_state_after(event: reader.ReaderEvent) -> ReaderState | None:
    """The reader's state an event tells of (``reader`` in the status), or None if none."""
    match event:
        case reader.ReaderOnline():
            return ReaderState.CONNECTED
        case reader.ReaderOffline():
            return ReaderState.OFFLINE
        case reader.ReaderStatus(state=shoe_state):
            faulty = str(shoe_state) == "FAULT"
            return ReaderState.FAULT if faulty else ReaderState.CONNECTED
        case _:
            return None
