# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Every payload type by the ``type`` it is published with: what the schemas are generated from.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from table_controller.procedure.board_payloads import Odds, Roads, Stats
from table_controller.procedure.codes import EventType
from table_controller.procedure.controller_payloads import CommandReply, Status
from table_controller.procedure.payload_base import Payload
from table_controller.procedure.pit_payloads import (
    AlarmRaised,
    DisputeOpened,
    DisputeResolved,
    StaffChanged,
)
from table_controller.procedure.round_payloads import (
    BettingClosed,
    BettingOpened,
    CardPlaced,
    PromptShown,
    ResultCorrected,
    RoundSettled,
    RoundVoided,
)
from table_controller.procedure.shoe_payloads import (
    BurnAnnounced,
    LastRound,
    ShoeEnded,
    ShoeStarted,
    ShoeVoided,
)
from table_controller.procedure.state_payloads import TableLimits, TableState

#: Every payload type by the ``type`` it is published with.
PAYLOAD_TYPES: Final[Mapping[EventType, type[Payload]]] = {
    cls.TYPE: cls
    for cls in (
        ShoeStarted, BurnAnnounced, BettingOpened, BettingClosed, CardPlaced, PromptShown,
        RoundSettled, RoundVoided, ResultCorrected, LastRound, ShoeEnded, ShoeVoided,
        AlarmRaised, StaffChanged, DisputeOpened, DisputeResolved, Roads, Odds, TableState,
        Stats, TableLimits, Status, CommandReply,
    )
}  # fmt: skip
