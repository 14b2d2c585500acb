# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Every payload type by the ``type`` it is published with: what the schemas are generated from.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from table_controller.contract.codes import EventType
from table_controller.contract.payloads import board as board_payloads
from table_controller.contract.payloads import controller as controller_payloads
from table_controller.contract.payloads import pit as pit_payloads
from table_controller.contract.payloads import round as round_payloads
from table_controller.contract.payloads import shoe as shoe_payloads
from table_controller.contract.payloads import state as state_payloads
from table_controller.contract.payloads.base import Payload

#: Every payload type by the ``type`` it is published with.
PAYLOAD_TYPES: Final[Mapping[EventType, type[Payload]]] = {
    cls.TYPE: cls
    for cls in (
        shoe_payloads.ShoeStarted,
        shoe_payloads.BurnAnnounced,
        round_payloads.BettingOpened,
        round_payloads.BettingClosed,
        round_payloads.CardPlaced,
        round_payloads.PromptShown,
        round_payloads.RoundSettled,
        round_payloads.RoundVoided,
        round_payloads.ResultCorrected,
        shoe_payloads.LastRound,
        shoe_payloads.ShoeEnded,
        shoe_payloads.ShoeVoided,
        pit_payloads.AlarmRaised,
        pit_payloads.AlarmAcknowledged,
        pit_payloads.StaffChanged,
        pit_payloads.DisputeOpened,
        pit_payloads.DisputeResolved,
        board_payloads.Roads,
        board_payloads.Odds,
        state_payloads.TableState,
        board_payloads.Stats,
        state_payloads.TableLimits,
        controller_payloads.Status,
        controller_payloads.CommandReply,
    )
}
