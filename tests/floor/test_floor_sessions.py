# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's sessions: ids, CSRF tokens, sign-in rotation, ends and bounds."""

from __future__ import annotations

import itertools

from table_controller.floor.sessions import (
    ANONYMOUS_IDLE_S,
    IDLE_S,
    LIFETIME_S,
    Role,
    Sessions,
)


def tokens() -> Sessions:
    counter = itertools.count(1)
    return Sessions(lambda: f"token-{next(counter)}", max_sessions=4)


def test_signing_in_gives_a_new_id_and_token_and_drops_the_old() -> None:
    sessions = tokens()
    anonymous = sessions.new(0.0)
    signed = sessions.sign_in(anonymous, staff_id="S-9", name="Chan", role=Role.SUPERVISOR, now=1.0)
    assert signed.id != anonymous.id
    assert signed.csrf != anonymous.csrf
    assert sessions.find(anonymous.id, 2.0) is None
    assert sessions.find(signed.id, 2.0) is signed
    assert signed.signed_in
    assert signed.role is Role.SUPERVISOR


def test_the_csrf_token_must_match_exactly() -> None:
    session = tokens().new(0.0)
    assert session.csrf_matches(session.csrf)
    assert not session.csrf_matches(None)
    assert not session.csrf_matches("")
    assert not session.csrf_matches(session.csrf + "x")


def test_sessions_end_when_idle_or_too_old() -> None:
    sessions = tokens()
    anonymous = sessions.new(0.0)
    assert sessions.find(anonymous.id, ANONYMOUS_IDLE_S + 1) is None
    signed = sessions.sign_in(None, staff_id="D-1", name="D", role=Role.VIEWER, now=0.0)
    assert sessions.find(signed.id, IDLE_S - 1) is signed  # seen: the idle time starts again
    assert sessions.find(signed.id, 2 * IDLE_S - 2) is signed
    assert sessions.find(signed.id, 3 * IDLE_S) is None
    kept = sessions.sign_in(None, staff_id="D-1", name="D", role=Role.VIEWER, now=0.0)
    now = 0.0
    while now <= LIFETIME_S:
        now += IDLE_S / 2
        found = sessions.find(kept.id, now)
    assert found is None  # a shift at most, however busy


def test_sign_out_and_removal_from_the_register_end_sessions() -> None:
    sessions = tokens()
    one = sessions.sign_in(None, staff_id="D-1", name="D", role=Role.VIEWER, now=0.0)
    two = sessions.sign_in(None, staff_id="D-1", name="D", role=Role.VIEWER, now=0.0)
    sessions.end(one)
    assert sessions.find(one.id, 1.0) is None
    assert sessions.end_staff("D-1") == 1
    assert sessions.find(two.id, 1.0) is None


def test_a_flood_of_new_sessions_drops_those_not_signed_in_first() -> None:
    sessions = tokens()
    signed = sessions.sign_in(None, staff_id="S-9", name="S", role=Role.SUPERVISOR, now=0.0)
    for _ in range(10):
        sessions.new(1.0)
    assert len(sessions) == 4
    assert sessions.find(signed.id, 2.0) is signed
