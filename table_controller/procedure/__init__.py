# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table procedure: a pure state machine from new shoe to shoe end (game-rules.md section 5).

Pure: no I/O, no clock, no randomness, no logging; imports only the standard library and
``table_controller.rules``. Inputs in (:mod:`~table_controller.procedure.inputs`), decisions
out (:mod:`~table_controller.procedure.decisions`); :class:`TableProcedure` is the machine.
"""

from table_controller.procedure.machine import TableProcedure

__all__ = ["TableProcedure"]
