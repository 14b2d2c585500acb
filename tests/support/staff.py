# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A staff register for tests: real argon2id hashes at a cost a test can afford."""

from __future__ import annotations

from pathlib import Path

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from table_controller.contract.codes import StaffRole
from table_controller.staff.register import StaffRegister

#: Who the tests sign in: id -> (name, role, PIN).
STAFF = {
    "D-104": ("Mai Tran", StaffRole.DEALER, "10410417"),
    "D-207": ("Lee Min-jun", StaffRole.DEALER, "2072"),
    "S-9": ("Chan Wai Man", StaffRole.SUPERVISOR, "9999"),
}


def cheap_hasher() -> PasswordHash:
    """argon2id with the smallest cost: the same format and checks, milliseconds a hash."""
    return PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))


def write_register(
    path: Path,
    staff: dict[str, tuple[str, StaffRole, str]] = STAFF,
    *,
    hasher: PasswordHash | None = None,
) -> Path:
    """A register file holding ``staff``; the table reads any argon2id.

    The PINs are hashed cheaply unless ``hasher`` says otherwise (``default_hasher()`` for the
    production cost, where a test needs each check to take as long as on the table).
    """
    register = StaffRegister(hasher=cheap_hasher() if hasher is None else hasher)
    for staff_id, (name, role, pin) in staff.items():
        register.add(staff_id, name, role, pin)
    register.save(path)
    return path
