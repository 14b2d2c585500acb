# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who works the table: the staff register, sign-in at the edge, and the game's pace."""

from table_controller.staff.desk import StaffDesk
from table_controller.staff.register import RegisterError, StaffRegister, check_pin

__all__ = [
    "RegisterError",
    "StaffDesk",
    "StaffRegister",
    "check_pin",
]
