# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who is at the table: the dealer's and the supervisor's sign-in and sign-out.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads and changes the
:class:`~table_controller.procedure.table.Table` and imports no other part. The edge has already
checked the staff member's PIN against the register; here a sign-in only says who is at the
table. Staff commands are taken in every phase, held and faulted included: they change who is
attributed, never the game. One dealer at a time: a dealer's sign-in ends the last one's stint.
"""

from __future__ import annotations

from table_controller.contract import Phase, RefusalCode, StaffChanged, StaffRole
from table_controller.procedure.inputs import SignIn, SignOut
from table_controller.procedure.table import Out, Refusal, Table

#: Phases in which the cards in play are the dealer's: a dealer required cannot just leave.
_DEALING_PHASES = frozenset({Phase.BURN_CARD, Phase.BURNING, Phase.DEALING})


def sign_in(table: Table, out: Out, command: SignIn) -> None:
    """``command.staff_id`` is at the table now, as dealer or supervisor."""
    previous = table.dealer
    if command.role is StaffRole.DEALER:
        table.dealer = command.staff_id
    else:
        table.supervisor = command.staff_id
    out.dealer = table.dealer
    out.publish_now(StaffChanged(dealer=table.dealer, previous_dealer=previous,
                             supervisor=table.supervisor, staff_id=command.staff_id,
                             action="sign_in"))


def someone_signed_in(table: Table, command: SignOut | None) -> Refusal | None:
    """A guard: ``sign_out`` while someone is signed in at the table."""
    if table.dealer is None and table.supervisor is None:
        return _not_signed_in("nobody" if command is None else command.staff_id)
    return None


def _not_signed_in(staff_id: str) -> Refusal:
    return RefusalCode.NOT_SIGNED_IN, f"{staff_id} is not signed in at this table"


def sign_out(table: Table, out: Out, command: SignOut) -> Refusal | None:
    """``command.staff_id`` leaves the table; refused if not signed in here."""
    previous = table.dealer
    staff_id = command.staff_id
    if staff_id == table.dealer:
        if table.require_dealer and table.holds.fault is None and table.phase in _DEALING_PHASES:
            return (RefusalCode.ROUND_IN_PLAY,
                    "the cards in play are being dealt: the next dealer signs in to take over")
        table.dealer = None
    elif staff_id == table.supervisor:
        table.supervisor = None
    else:
        return _not_signed_in(staff_id)
    out.dealer = table.dealer
    out.publish_now(StaffChanged(dealer=table.dealer, previous_dealer=previous,
                             supervisor=table.supervisor, staff_id=staff_id, action="sign_out"))
    return None
