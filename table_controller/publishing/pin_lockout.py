# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The supervisor's PIN on the dealer display: compared in constant time, locked after misses.

Pure: no I/O and no clock of its own (the caller passes the monotonic time of each attempt).
:meth:`PinLockout.check` answers each supervisor command with ``None`` (the PIN is right) or
the :class:`PinRefusal` to send back; the server counts and logs refusals, never the PIN.
"""

from __future__ import annotations

import hmac
import math
from dataclasses import dataclass
from typing import Final

from table_controller.publishing.command_errors import CommandErrorCode

#: Wrong PINs in a row before supervisor commands are locked for :data:`PIN_LOCKOUT_S`.
MAX_PIN_FAILURES: Final = 5
PIN_LOCKOUT_S: Final = 60.0


@dataclass(frozen=True, slots=True, kw_only=True)
class PinRefusal:
    """Why a supervisor command is refused: the HTTP status, its code and words, a log line."""

    status: int
    error: CommandErrorCode
    message: str
    #: What the server logs (a warning).
    log_event: str
    #: A PIN was given at all (a wrong one, not a missing one).
    pin_given: bool = False
    #: This refusal locked supervisor commands, or they were locked already.
    locked: bool = False


class FailureLock:
    """Wrong PINs in a row, and the lock they set.

    ``max_failures`` wrong PINs in a row lock the PIN for ``lockout_s`` seconds; a right PIN
    clears the count. Shared by the display's supervisor PIN and the staff's sign-in.
    """

    def __init__(
        self, *, max_failures: int = MAX_PIN_FAILURES, lockout_s: float = PIN_LOCKOUT_S
    ) -> None:
        if max_failures < 1 or lockout_s < 0:
            raise ValueError("a lock needs at least one failure and a lockout of 0 s or more")
        self._max_failures = max_failures
        self._lockout_s = lockout_s
        self._failures = 0
        self._locked_until = 0.0

    def wait(self, now: float) -> int | None:
        """Whole seconds left while locked at ``now``; ``None`` when not locked."""
        if now < self._locked_until:
            return math.ceil(self._locked_until - now)
        return None

    def failed(self, now: float) -> bool:
        """Count a wrong PIN at ``now``; whether the PIN is now locked."""
        self._failures += 1
        if self._failures >= self._max_failures:
            self._failures = 0
            self._locked_until = now + self._lockout_s
        return self._locked_until > now

    def succeeded(self) -> None:
        self._failures = 0


class PinLockout:
    """The display's supervisor PIN, or none (supervisor commands disabled).

    ``max_failures`` wrong PINs in a row lock every supervisor command for ``lockout_s``
    seconds; a right PIN clears the count.
    """

    def __init__(
        self,
        pin: str | None,
        *,
        max_failures: int = MAX_PIN_FAILURES,
        lockout_s: float = PIN_LOCKOUT_S,
    ) -> None:
        self._pin = None if pin is None else pin.encode()
        self._lock = FailureLock(max_failures=max_failures, lockout_s=lockout_s)

    def check(self, command: str, given: object, *, now: float) -> PinRefusal | None:
        """``None`` if ``given`` is the PIN and nothing is locked at ``now``; else the refusal."""
        if self._pin is None:
            return PinRefusal(
                status=403,
                error=CommandErrorCode.SUPERVISOR_DISABLED,
                message="supervisor commands are disabled on this display (no PIN is configured)",
                log_event="supervisor command refused: no display PIN configured",
            )
        wait = self._lock.wait(now)
        if wait is not None:
            return locked_refusal(wait, "supervisor command refused: PIN locked")
        attempt = given.encode() if isinstance(given, str) else b""
        if hmac.compare_digest(attempt, self._pin):
            self._lock.succeeded()
            return None
        locked = self._lock.failed(now)
        return PinRefusal(
            status=403,
            error=CommandErrorCode.WRONG_PIN,
            message=f"{command}: the supervisor PIN is missing or wrong",
            log_event="supervisor command refused: wrong PIN",
            pin_given=bool(attempt),
            locked=locked,
        )


def locked_refusal(wait: int, log_event: str) -> PinRefusal:
    """The refusal while a PIN is locked for ``wait`` more seconds."""
    return PinRefusal(
        status=429,
        error=CommandErrorCode.PIN_LOCKED,
        message=f"too many wrong PINs: try again in {wait} s",
        log_event=log_event,
        locked=True,
    )
