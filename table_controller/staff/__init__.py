# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who works the table: the staff register, sign-in at the edge, and the game's pace."""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.staff.desk import StaffDesk
    from table_controller.staff.register import RegisterError, StaffRegister, check_pin

__all__ = [
    "RegisterError",
    "StaffDesk",
    "StaffRegister",
    "check_pin",
]

__getattr__ = lazy_face(
    __name__,
    {
        "desk": ("StaffDesk",),
        "register": ("RegisterError", "StaffRegister", "check_pin"),
    },
)
