# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who may give a command from the dealer display, and as whom it is recorded.

Adapter helper of ``screens/dealer/app.py``. A request's body (``{"command", "args", "pin",
"staff_id"}``) becomes the command record the table service takes, or a
:class:`CommandError` that the server answers with. Who gives which command is its row of
the table of commands (``contract/commands/table.py``: a command over MQTT only is refused):

* a dealer's command is recorded with the operator ``display``;
* ``sign_in``: the staff id and PIN are checked by the staff desk, which puts the staff
  member it identified in place of the PIN (the PIN goes no further);
* a supervisor command, on a table with a staff register: a supervisor's own staff id and PIN
  (``staff_id``, ``pin``), and the command records that supervisor; without a register: the
  display's shared supervisor PIN, recorded as ``display-supervisor``.

Wrong PINs are counted and logged (never the PIN), and a run of them locks for a while: the
shared PIN as a whole, a staff member's PIN per staff id, and each client (the HTTP peer's
address, :func:`display_client`) on its own (``screens/pin_lockout.py``).
``recall`` (any operator, no PIN) is answered at the edge from the table's recall book
(:meth:`DisplayGate.recall_asked`), never by the procedure.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Final, Protocol

import structlog

from table_controller.contract import DEFAULT_CURRENCY, CommandErrorCode, StaffRole
from table_controller.contract.commands import (
    COMMANDS_BY_NAME,
    DEFAULT_ROUNDS,
    CommandMessage,
    Giver,
)
from table_controller.ingress import CommandRejection, validate_command
from table_controller.screens.dealer.view import StaffDirectory, StaffMemberLike
from table_controller.screens.pin_lockout import PinLockout, PinRefusal

_LOG = structlog.get_logger("table_controller.display")

#: Operator ids the journal records for commands from the display.
DEALER_OPERATOR: Final = "display"
SUPERVISOR_OPERATOR: Final = "display-supervisor"


class CommandError(Exception):
    """A request to ``/api/commands`` that is refused before it reaches the core."""

    def __init__(self, status: int, error: CommandErrorCode, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message


class StaffCheck(Protocol):
    """The staff desk (``staff/desk.py``): checks ids and PINs against the register."""

    @property
    def register(self) -> StaffDirectory | None: ...

    async def identify(
        self,
        staff_id: object,
        pin: object,
        *,
        role: StaffRole | None = None,
        purpose: str,
        client: str,
    ) -> StaffMemberLike | PinRefusal: ...

    async def verified_sign_in(
        self, record: Mapping[str, object], *, client: str
    ) -> dict[str, object] | PinRefusal: ...


def display_client(address: str | None) -> str:
    """The client whose wrong PINs are counted together: the display's HTTP peer address."""
    return f"display {address or 'unknown'}"


class DisplayGate:
    """Turns the display's requests into command records, or refuses them.

    Args:
        pin: the display's shared supervisor PIN (tables without a staff register); None: none.
        staff: the staff desk; None, or a desk without a register: no sign-in.
        clock: monotonic seconds, for the PIN lockout.
        currency: the table's: ``set_limits`` amounts finer than its minor unit are refused.
    """

    def __init__(
        self,
        *,
        pin: str | None,
        staff: StaffCheck | None,
        clock: Callable[[], float],
        currency: str = DEFAULT_CURRENCY,
    ) -> None:
        self._currency = currency
        self._pin = PinLockout(pin)
        self._staff = staff
        self._clock = clock
        #: Commands refused for a missing or wrong PIN (or staff id) since start.
        self.pin_refusals = 0
        #: Requests refused as malformed (unknown command, bad args ...).
        self.bad_requests = 0

    @property
    def staff(self) -> StaffDirectory | None:
        """The staff register, when the table has one."""
        return None if self._staff is None else self._staff.register

    async def record(self, body: Mapping[str, object], *, client: str) -> dict[str, object]:
        """The command record for a request's body, or :class:`CommandError` saying why not.

        ``client`` is who sent it (:func:`display_client`), whose wrong PINs count together.
        """
        command = body.get("command")
        spec = COMMANDS_BY_NAME.get(command) if isinstance(command, str) else None
        if spec is None:
            self.bad_requests += 1
            raise CommandError(
                400, CommandErrorCode.UNKNOWN_COMMAND, f"unknown command {str(command)[:40]!r}"
            )
        if not spec.giver.on_the_display:
            raise CommandError(
                403, CommandErrorCode.NOT_AUTHORISED, f"{spec.name} is taken over MQTT only"
            )
        supervisor: str | None = None
        operator = DEALER_OPERATOR
        if spec.giver is Giver.SUPERVISOR:
            supervisor = await self._supervisor(spec.name, body, client)
            operator = SUPERVISOR_OPERATOR if supervisor == SUPERVISOR_OPERATOR else operator
        parsed = self._parsed(spec.name, operator, body.get("args", {}))
        record = parsed.to_record()
        if supervisor is not None:
            record["supervisor"] = supervisor
        if spec.staff_desk:
            if self._staff is None:
                raise CommandError(
                    403,
                    CommandErrorCode.NO_STAFF_REGISTER,
                    f"{spec.name}: no staff register is configured on this table",
                )
            checked = await self._staff.verified_sign_in(record, client=client)
            if isinstance(checked, PinRefusal):
                self._refused(spec.name, checked, client)
            else:
                record = checked
        return record

    async def _supervisor(self, command: str, body: Mapping[str, object], client: str) -> str:
        """Who authorises a supervisor command: a supervisor of the register, or the PIN."""
        if self.staff is not None and self._staff is not None:
            found = await self._staff.identify(
                body.get("staff_id"),
                body.get("pin"),
                role=StaffRole.SUPERVISOR,
                purpose=command,
                client=client,
            )
            if isinstance(found, PinRefusal):
                self._refused(command, found, client)
            else:
                return found.id
        refusal = self._pin.check(command, body.get("pin"), now=self._clock())
        if refusal is not None:
            self._refused(command, refusal, client)
        return SUPERVISOR_OPERATOR

    @staticmethod
    def recall_asked(record: Mapping[str, object]) -> int | None:
        """The rounds a ``recall`` asks for, answered at the edge; None: for the procedure.

        ``recall`` is read-only and any operator may give it: on the display no PIN is asked.
        """
        if record.get("command") != "recall":
            return None
        args = record.get("args")
        rounds = args.get("rounds", DEFAULT_ROUNDS) if isinstance(args, Mapping) else None
        if not isinstance(rounds, int):  # ``record`` checked it: a bug if this fails
            raise TypeError(f"recall: rounds {rounds!r} was not checked")
        return rounds

    def _parsed(self, command: str, operator: str, args: object) -> CommandMessage:
        # Read as the same command over MQTT is: one fault, one code and message.
        checked = validate_command(
            {"command": command, "id": f"display-{uuid.uuid4().hex}", "operator": operator,
             "args": args},
            currency=self._currency,
        )  # fmt: skip
        if isinstance(checked, CommandRejection):
            self.bad_requests += 1
            status = 413 if checked.code is CommandErrorCode.OVERSIZED else 400
            raise CommandError(status, checked.code, checked.message)
        return checked

    def _refused(self, command: str, refusal: PinRefusal, client: str) -> None:
        """Count and log a refused PIN (never the PIN itself), then refuse the request."""
        self.pin_refusals += 1
        if refusal.error is CommandErrorCode.WRONG_PIN:
            _LOG.warning(
                refusal.log_event,
                command=command,
                client=client,
                pin_given=refusal.pin_given,
                refusals=self.pin_refusals,
                locked=refusal.locked,
            )
        else:
            _LOG.warning(refusal.log_event, command=command, client=client)
        raise CommandError(refusal.status, refusal.error, refusal.message)
