# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's sessions: who is signed in at which browser, with which role and CSRF token.

Pure: no I/O and no clock of its own (the caller passes the monotonic time) and no randomness
of its own (the caller passes a token source, ``secrets.token_urlsafe`` in the server). A
session lives in the server's memory only; the browser holds its random id in a cookie
(``Secure``, ``HttpOnly``, ``SameSite=Strict``: docs/floor.md). Every browser that asks gets a
session, signed in or not, so that even the sign-in is protected by a CSRF token: a
synchronizer token, kept with the session and sent by the page in a header with every change.
Signing in gives a new id and a new token (the old id is dropped), so an id planted before the
sign-in is worth nothing after it.

A session ends after :data:`IDLE_S` without a request, after :data:`LIFETIME_S` whatever
happens, on sign-out, or when the server restarts; the page then says the session has ended
and shows the sign-in again.
"""

from __future__ import annotations

import enum
import hmac
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

#: The cookie that holds the session's id.
COOKIE: Final = "floor_session"
#: The header a page sends its CSRF token in.
CSRF_HEADER: Final = "X-CSRF-Token"
#: Seconds a session lasts without a request.
IDLE_S: Final = 30 * 60.0
#: Seconds a signed-in session lasts at most (a shift).
LIFETIME_S: Final = 12 * 3600.0
#: Seconds a session that never signed in lasts without a request.
ANONYMOUS_IDLE_S: Final = 10 * 60.0
#: Sessions kept at most; beyond, the longest idle of those not signed in are dropped first.
MAX_SESSIONS: Final = 20_000


class Role(enum.StrEnum):
    """What a member of staff may do on the floor."""

    #: Sees everything, changes nothing.
    VIEWER = "viewer"
    #: Sees everything and acknowledges alarms.
    SUPERVISOR = "supervisor"


@dataclass(slots=True, kw_only=True)
class Session:
    """One browser's session."""

    id: str
    csrf: str
    created_at: float
    seen_at: float
    staff_id: str | None = None
    name: str | None = None
    role: Role | None = None

    @property
    def signed_in(self) -> bool:
        return self.staff_id is not None

    def expired(self, now: float) -> bool:
        idle = IDLE_S if self.signed_in else ANONYMOUS_IDLE_S
        return now - self.seen_at > idle or (self.signed_in and now - self.created_at > LIFETIME_S)

    def csrf_matches(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.csrf.encode())


class Sessions:
    """Every session the server holds, by id.

    Args:
        token: A fresh unguessable token each call (id and CSRF token alike).
        max_sessions: Sessions kept at most.
    """

    def __init__(self, token: Callable[[], str], *, max_sessions: int = MAX_SESSIONS) -> None:
        self._token = token
        self._max = max_sessions
        self._by_id: OrderedDict[str, Session] = OrderedDict()

    def __len__(self) -> int:
        return len(self._by_id)

    def find(self, session_id: str | None, now: float) -> Session | None:
        """The live session of ``session_id``, marked as seen at ``now``; None: none or ended."""
        if not session_id:
            return None
        session = self._by_id.get(session_id)
        if session is None:
            return None
        if session.expired(now):
            del self._by_id[session_id]
            return None
        session.seen_at = now
        self._by_id.move_to_end(session_id)
        return session

    def new(self, now: float) -> Session:
        """A new session, not signed in."""
        self._make_room(now)
        session = Session(id=self._token(), csrf=self._token(), created_at=now, seen_at=now)
        self._by_id[session.id] = session
        return session

    def sign_in(
        self, old: Session | None, *, staff_id: str, name: str, role: Role, now: float
    ) -> Session:
        """A new signed-in session replacing ``old``: a new id and a new CSRF token."""
        if old is not None:
            self._by_id.pop(old.id, None)
        session = self.new(now)
        session.staff_id, session.name, session.role = staff_id, name, role
        return session

    def end(self, session: Session) -> None:
        self._by_id.pop(session.id, None)

    def end_staff(self, staff_id: str) -> int:
        """End every session of ``staff_id`` (removed from the register); how many."""
        ended = [sid for sid, s in self._by_id.items() if s.staff_id == staff_id]
        for sid in ended:
            del self._by_id[sid]
        return len(ended)

    def _make_room(self, now: float) -> None:
        """Drop ended sessions from the least recently seen end, then the excess."""
        while self._by_id:
            sid, oldest = next(iter(self._by_id.items()))
            if not oldest.expired(now):
                break
            del self._by_id[sid]
        while len(self._by_id) >= self._max:
            anonymous = next((sid for sid, s in self._by_id.items() if not s.signed_in), None)
            del self._by_id[anonymous if anonymous is not None else next(iter(self._by_id))]
