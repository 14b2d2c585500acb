# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""PINs and their lockouts: the display's shared supervisor PIN, and runs of wrong staff PINs.

Pure: no I/O and no clock of its own (the caller passes the monotonic time of each attempt).
:meth:`PinLockout.check` answers each supervisor command with ``None`` (the PIN is right) or
the :class:`PinRefusal` to send back; the server counts and logs refusals, never the PIN.
:class:`StaffGuessLimits` counts the staff desk's checks (``staff/desk.py``) per staff id and
per client, and is asked before a PIN is hashed, so that a check is counted before anything
is awaited.
"""

from __future__ import annotations

import heapq
import hmac
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from table_controller.contract import CommandErrorCode

#: Wrong PINs in a row before the PIN (or the staff id) is locked for :data:`PIN_LOCKOUT_S`.
MAX_PIN_FAILURES: Final = 5
PIN_LOCKOUT_S: Final = 60.0
#: A client (an address on the display, an operator over MQTT) is locked after this many
#: times the staff ids' run of wrong PINs: room for staff mistyping at one screen, none for
#: trying a few PINs on each of many ids.
CLIENT_FAILURES_FACTOR: Final = 4
#: Staff ids (or clients) whose counts are kept at most, beyond those that must be.
MAX_COUNTED_KEYS: Final = 4096
#: The key of the display's one shared PIN.
_SHARED_PIN: Final = "display PIN"


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
    #: This refusal locked the PIN (or the staff id, or the client), or it was locked already.
    locked: bool = False


@dataclass(slots=True)
class _Count:
    """One key's wrong PINs in a row, its checks under way, and its lock."""

    failures: int = 0
    checking: int = 0
    locked_until: float = -math.inf
    last_at: float = -math.inf

    def idle(self, now: float) -> bool:
        return self.checking == 0 and now >= self.locked_until


def _none_kept(key: str) -> bool:
    del key
    return False


class FailureCounts:
    """Wrong PINs in a row for each key (a staff id, a client), each key locked on its own.

    A check takes a slot of its key (:meth:`begin`) before the PIN is compared and gives it
    back with the outcome (:meth:`failed`, :meth:`succeeded`, :meth:`released`). While
    ``max_failures`` wrong PINs in a row and checks still under way add up to the limit, the
    key takes no other check: parallel requests cannot all start before the first wrong PIN is
    counted. ``max_failures`` wrong PINs in a row lock the key for ``lockout_s`` seconds; a
    right PIN for what was asked clears its count and its lock. A key with nothing counted is
    forgotten, and beyond ``max_keys`` keys the longest idle are, unless ``kept`` (the staff
    ids of the register): whatever keys are sent, memory stays bounded.
    """

    def __init__(
        self,
        *,
        max_failures: int = MAX_PIN_FAILURES,
        lockout_s: float = PIN_LOCKOUT_S,
        max_keys: int = MAX_COUNTED_KEYS,
        kept: Callable[[str], bool] = _none_kept,
    ) -> None:
        if max_failures < 1 or lockout_s < 0 or max_keys < 1:
            raise ValueError("a lock needs at least one failure and a lockout of 0 s or more")
        self._max_failures = max_failures
        self._lockout_s = lockout_s
        self._max_keys = max_keys
        self._kept = kept
        self._counts: dict[str, _Count] = {}

    def __len__(self) -> int:
        return len(self._counts)

    def wait(self, key: str, now: float) -> int | None:
        """Whole seconds before ``key`` may be checked again at ``now``; ``None``: now."""
        count = self._counts.get(key)
        if count is None:
            return None
        if now < count.locked_until:
            return math.ceil(count.locked_until - now)
        if count.failures + count.checking >= self._max_failures:
            # The checks under way would lock the key if they fail: at most a lockout away.
            return max(1, math.ceil(self._lockout_s))
        return None

    def begin(self, key: str, now: float) -> None:
        """A check of ``key`` starts at ``now`` (after :meth:`wait` said it may)."""
        count = self._counts.get(key)
        if count is None:
            self._make_room(now)
            count = self._counts[key] = _Count()
        count.checking += 1
        count.last_at = now

    def failed(self, key: str, now: float) -> bool:
        """A check of ``key`` found a wrong PIN at ``now``; whether the key is locked now."""
        count = self._counts[key]
        count.checking -= 1
        count.failures += 1
        if count.failures >= self._max_failures:
            count.failures = 0
            count.locked_until = now + self._lockout_s
        locked = now < count.locked_until
        self._forget_if_clear(key, count, now)
        return locked

    def succeeded(self, key: str, now: float) -> None:
        """A check of ``key`` found the right PIN, for what it asked: the count is cleared."""
        count = self._counts[key]
        count.checking -= 1
        count.failures = 0
        count.locked_until = -math.inf
        self._forget_if_clear(key, count, now)

    def released(self, key: str, now: float) -> None:
        """A check of ``key`` ended neither right nor wrong: its slot alone is given back."""
        count = self._counts[key]
        count.checking -= 1
        self._forget_if_clear(key, count, now)

    def _forget_if_clear(self, key: str, count: _Count, now: float) -> None:
        if count.failures == 0 and count.idle(now):
            del self._counts[key]

    def _make_room(self, now: float) -> None:
        """Forget the longest idle keys not kept, so that one more fits in ``max_keys``."""
        excess = len(self._counts) + 1 - self._max_keys
        if excess <= 0:
            return
        idle = [
            (count.last_at, key)
            for key, count in self._counts.items()
            if count.idle(now) and not self._kept(key)
        ]
        for _, key in heapq.nsmallest(excess, idle):
            del self._counts[key]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One staff PIN check under way: the staff id it counts against (if any), its client."""

    staff_id: str | None
    client: str


class StaffGuessLimits:
    """The staff desk's counts: one per staff id, one per client, each locked on its own.

    A wrong PIN counts against the staff id (when it is one a register could hold, known or
    not, so that a lockout tells nothing of which ids exist) and against the client. A right
    PIN for what was asked clears both; a right PIN that cannot give what was asked (a
    dealer's, for a supervisor's approval) counts and clears nothing.

    Args:
        max_failures, lockout_s: a staff id's run of wrong PINs and its lockout; a client's
            run is ``max_failures * CLIENT_FAILURES_FACTOR``, its lockout the same.
        known: the ids of the register, whose counts are never forgotten to make room.
    """

    def __init__(
        self,
        *,
        max_failures: int = MAX_PIN_FAILURES,
        lockout_s: float = PIN_LOCKOUT_S,
        known: Callable[[str], bool] = _none_kept,
    ) -> None:
        self.staff = FailureCounts(max_failures=max_failures, lockout_s=lockout_s, kept=known)
        self.clients = FailureCounts(
            max_failures=max_failures * CLIENT_FAILURES_FACTOR, lockout_s=lockout_s
        )

    def begin(self, staff_id: str | None, client: str, now: float) -> Attempt | int:
        """The check of ``staff_id``'s PIN from ``client`` starts at ``now``; or the wait."""
        waits = [self.clients.wait(client, now)]
        if staff_id is not None:
            waits.append(self.staff.wait(staff_id, now))
        longest = max((wait for wait in waits if wait is not None), default=None)
        if longest is not None:
            return longest
        self.clients.begin(client, now)
        if staff_id is not None:
            self.staff.begin(staff_id, now)
        return Attempt(staff_id, client)

    def failed(self, attempt: Attempt, now: float) -> bool:
        """A wrong id or PIN; whether the staff id or the client is locked now."""
        locked = self.clients.failed(attempt.client, now)
        if attempt.staff_id is not None:
            locked = self.staff.failed(attempt.staff_id, now) or locked
        return locked

    def succeeded(self, attempt: Attempt, now: float) -> None:
        self.clients.succeeded(attempt.client, now)
        if attempt.staff_id is not None:
            self.staff.succeeded(attempt.staff_id, now)

    def released(self, attempt: Attempt, now: float) -> None:
        self.clients.released(attempt.client, now)
        if attempt.staff_id is not None:
            self.staff.released(attempt.staff_id, now)


class PinLockout:
    """The display's supervisor PIN, or none (supervisor commands disabled).

    ``max_failures`` wrong PINs in a row lock every supervisor command for ``lockout_s``
    seconds, whoever gives them (there is one PIN to guess); a right PIN clears the count.
    """

    def __init__(
        self,
        pin: str | None,
        *,
        max_failures: int = MAX_PIN_FAILURES,
        lockout_s: float = PIN_LOCKOUT_S,
    ) -> None:
        self._pin = None if pin is None else pin.encode()
        self._lock = FailureCounts(max_failures=max_failures, lockout_s=lockout_s)

    def check(self, command: str, given: object, *, now: float) -> PinRefusal | None:
        """``None`` if ``given`` is the PIN and nothing is locked at ``now``; else the refusal."""
        if self._pin is None:
            return PinRefusal(
                status=403,
                error=CommandErrorCode.SUPERVISOR_DISABLED,
                message="supervisor commands are disabled on this display (no PIN is configured)",
                log_event="supervisor command refused: no display PIN configured",
            )
        wait = self._lock.wait(_SHARED_PIN, now)
        if wait is not None:
            return locked_refusal(wait, "supervisor command refused: PIN locked")
        self._lock.begin(_SHARED_PIN, now)  # compared at once: no other check in between
        attempt = given.encode() if isinstance(given, str) else b""
        if hmac.compare_digest(attempt, self._pin):
            self._lock.succeeded(_SHARED_PIN, now)
            return None
        locked = self._lock.failed(_SHARED_PIN, now)
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
