# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table procedure's one exception, :class:`ProcedureBug`.

Pure: no I/O, no clock, no randomness.

Three kinds of trouble that never mix: what the game or the shoe does wrong is an alarm or a
hold, a command the procedure forbids is refused (both are values, :mod:`.codes`); only a bug
in the core raises, and it raises :class:`ProcedureBug`, after which the machine is ``FAULTED``
until a supervisor's ``void_shoe``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from table_controller.procedure.decisions import Decision


class ProcedureBug(Exception):  # noqa: N818 - the name says whose fault it is, as h11's errors do
    """The core broke one of its own invariants; the machine is ``FAULTED`` until ``void_shoe``.

    ``decisions`` are what the runtime must still carry out: hold the table and raise the alarm.
    """

    def __init__(self, message: str, decisions: Sequence[Decision] = ()) -> None:
        super().__init__(message)
        self.decisions: tuple[Decision, ...] = tuple(decisions)
