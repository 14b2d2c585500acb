# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Sign-in at the edge: staff ids and PINs checked against the register before the core.

Runtime adapter. ``sign_in`` commands (from MQTT or the display) and the display's supervisor
commands come here first. The PIN is checked off the event loop (argon2 is slow on purpose)
and never goes further: the table procedure, and so the journal, get only the verified
``staff_id``, ``name`` and ``role``. An unknown id and a wrong PIN get the same answer, after
the same hashing time.

Wrong PINs are counted per staff id and per client (``screens/pin_lockout.py``,
:class:`~table_controller.screens.pin_lockout.StaffGuessLimits`), and a check is counted
before its PIN is hashed: nothing is awaited between looking at a lock and counting the
attempt, so requests sent in parallel cannot all pass a lock that the first few would set.

The register is read from its file at start, again on SIGHUP (:meth:`StaffDesk.reload`) and
when the file changes (:meth:`StaffDesk.watch`: its contents, or its owner or mode, so that a
``chown`` after an edit is picked up); a file that cannot be read keeps the register in use,
with an error logged and counted.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import structlog
from pwdlib import PasswordHash

from table_controller.contract import CommandErrorCode, StaffRole
from table_controller.contract.commands import STAFF_ID_PATTERN
from table_controller.screens import (
    MAX_PIN_FAILURES,
    PIN_LOCKOUT_S,
    PinRefusal,
    StaffGuessLimits,
    locked_refusal,
)
from table_controller.staff.register import RegisterError, StaffMember, StaffRegister

_LOG = structlog.get_logger("table_controller.staff")
#: How often the register file is looked at for a change, in seconds.
WATCH_INTERVAL_S: Final = 2.0


@dataclass(frozen=True, slots=True)
class _FileStamp:
    """What changes when the file is replaced, edited, or given another owner or mode."""

    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int


def _stamp(path: Path) -> _FileStamp | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return _FileStamp(found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


class StaffDesk:
    """Checks staff ids and PINs; holds the register and reloads it.

    Args:
        path: the register file; ``None``: no register (sign-in is refused).
        max_failures, lockout_s: wrong PINs in a row before a staff id is locked, and for how
            long (a client is locked after ``CLIENT_FAILURES_FACTOR`` times as many,
            ``screens/pin_lockout.py``).
        clock: monotonic seconds, for the lock.
        hasher: the PIN hasher (tests use a cheap one).
    """

    def __init__(
        self,
        path: Path | None,
        *,
        max_failures: int = MAX_PIN_FAILURES,
        lockout_s: float = PIN_LOCKOUT_S,
        clock: Callable[[], float] = time.monotonic,
        hasher: PasswordHash | None = None,
    ) -> None:
        self.path = path
        self._hasher = hasher
        self._clock = clock
        self._register: StaffRegister | None = None
        self._limits = StaffGuessLimits(
            max_failures=max_failures, lockout_s=lockout_s, known=self._in_register
        )
        self._stamp: _FileStamp | None = None
        #: Wrong ids or PINs since start (sign-in and supervisor approvals).
        self.wrong_pins = 0
        #: Reloads of the register since start, and those that failed (the one in use kept).
        self.reloads = 0
        self.reload_failures = 0
        if path is not None:
            self._stamp = _stamp(path)
            self._register = StaffRegister.load(path, hasher=hasher)  # a bad file stops the start

    @property
    def register(self) -> StaffRegister | None:
        return self._register

    def _in_register(self, staff_id: str) -> bool:
        return self._register is not None and self._register.get(staff_id) is not None

    def reload(self) -> bool:
        """Read the register file again; ``False`` (logged, counted) if it cannot be read."""
        if self.path is None:
            _LOG.info("no staff register to reload")
            return False
        self._stamp = _stamp(self.path)
        try:
            register = StaffRegister.load(self.path, hasher=self._hasher)
        except RegisterError as error:
            self.reload_failures += 1
            _LOG.error("staff register not reloaded: the one in use is kept", error=str(error))
            return False
        self._register = register
        self.reloads += 1
        _LOG.info("staff register loaded", path=str(self.path), staff=len(register))
        return True

    async def watch(self, interval_s: float = WATCH_INTERVAL_S) -> None:
        """Reload the register whenever its file changes, until cancelled."""
        if self.path is None:
            return
        while True:
            await asyncio.sleep(interval_s)
            stamp = _stamp(self.path)
            if stamp is not None and stamp != self._stamp:
                self.reload()

    async def identify(
        self,
        staff_id: object,
        pin: object,
        *,
        role: StaffRole | None = None,
        purpose: str,
        client: str,
    ) -> StaffMember | PinRefusal:
        """The member with this id and PIN (in ``role``, if given), or why not.

        ``purpose`` names what is asked in the refusal (``sign_in``, ``void_round`` ...);
        ``client`` who asks (``display 10.0.0.5``, ``mqtt pit-1``), for the client's count.
        A right PIN without ``role`` is refused (``not_authorised``), counts no wrong PIN and
        clears none: only a check that gives what was asked clears its id's count.
        """
        register = self._register
        if register is None:
            return PinRefusal(
                status=403,
                error=CommandErrorCode.NO_STAFF_REGISTER,
                message=f"{purpose}: no staff register is configured on this table",
                log_event="staff refused: no register",
            )
        # An id no register could hold counts against the client alone.
        counted = staff_id if isinstance(staff_id, str) and _is_staff_id(staff_id) else None
        attempt = self._limits.begin(counted, client, self._clock())
        if isinstance(attempt, int):
            return locked_refusal(attempt, "staff refused: PIN locked")
        member = None
        try:
            if isinstance(staff_id, str) and isinstance(pin, str) and len(pin) <= 64:
                member = await asyncio.to_thread(register.verify, staff_id, pin)
        except BaseException:  # cut short (cancelled) or a bug: counted as a wrong PIN
            self._limits.failed(attempt, self._clock())
            raise
        if member is None:
            self.wrong_pins += 1
            locked = self._limits.failed(attempt, self._clock())
            return PinRefusal(
                status=403,
                error=CommandErrorCode.WRONG_PIN,
                message=f"{purpose}: the staff id or the PIN is wrong",
                log_event="staff refused: wrong id or PIN",
                pin_given=isinstance(pin, str) and bool(pin),
                locked=locked,
            )
        if role is not None and member.role is not role:
            self._limits.released(attempt, self._clock())
            return PinRefusal(
                status=403,
                error=CommandErrorCode.NOT_AUTHORISED,
                message=f"{purpose}: {member.id} is not a {role.value}",
                log_event="staff refused: wrong role",
            )
        self._limits.succeeded(attempt, self._clock())
        return member

    async def verified_sign_in(
        self, record: Mapping[str, object], *, client: str
    ) -> dict[str, object] | PinRefusal:
        """A ``sign_in`` command record with its PIN checked and replaced by who signed in."""
        args = record.get("args")
        given = args if isinstance(args, Mapping) else {}
        found = await self.identify(
            given.get("staff_id"), given.get("pin"), purpose="sign_in", client=client
        )
        if isinstance(found, PinRefusal):
            return found
        return {
            **record,
            "args": {"staff_id": found.id, "name": found.name, "role": found.role.value},
        }


def _is_staff_id(text: str) -> bool:
    return re.fullmatch(STAFF_ID_PATTERN, text) is not None
