# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The staff register: who may sign in at the table, in which role, with which PIN.

A JSON file (``table-controller-staff/1``) that ``table-controller staff add|remove|list``
edits and the table service reads (again on SIGHUP and when the file changes)::

    {"format": "table-controller-staff/1",
     "staff": [{"id": "D-104", "name": "Mai Tran", "role": "dealer",
                "pin_hash": "$argon2id$v=19$m=65536,t=3,p=4$..."}]}

A PIN is stored only as an argon2id hash (``pwdlib``), compared through the library, and is
never logged, echoed or written anywhere else. The file holds hashes, so it is written with
mode 0600 and replaced atomically: a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Final

from pwdlib import PasswordHash
from pwdlib.exceptions import UnknownHashError
from pwdlib.hashers.argon2 import Argon2Hasher
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from table_controller.contract import StaffRole
from table_controller.contract.commands import PIN_PATTERN, STAFF_ID_PATTERN

REGISTER_FORMAT: Final = "table-controller-staff/1"
MAX_NAME_LENGTH: Final = 64
PIN_RULE: Final = "a PIN is 4 to 12 digits"


class RegisterError(ValueError):
    """The register cannot be read or changed as asked; the message says why."""


class _Member(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    id: Annotated[str, StringConstraints(pattern=STAFF_ID_PATTERN)]
    name: Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_LENGTH)]
    role: StaffRole
    pin_hash: Annotated[str, StringConstraints(pattern=r"^\$argon2id?\$")] = Field(repr=False)


class _RegisterFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    format: Annotated[str, StringConstraints(pattern=f"^{re.escape(REGISTER_FORMAT)}$")]
    staff: list[_Member]


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffMember:
    """One member of staff; ``pin_hash`` is the argon2id hash of the PIN."""

    id: str
    name: str
    role: StaffRole
    pin_hash: str = ""

    def __repr__(self) -> str:  # the hash stays out of logs and tracebacks
        return f"StaffMember(id={self.id!r}, name={self.name!r}, role={self.role.value!r})"


def default_hasher() -> PasswordHash:
    """argon2id with the library's recommended cost (about 0.3 s a hash on the table device)."""
    return PasswordHash((Argon2Hasher(),))


def check_pin(pin: str) -> str:
    """``pin`` if it is a usable PIN; :class:`RegisterError` (without the PIN) otherwise."""
    if not re.fullmatch(PIN_PATTERN, pin):
        raise RegisterError(PIN_RULE)
    return pin


def check_staff_id(staff_id: str) -> str:
    """``staff_id`` if it is a usable id; :class:`RegisterError` otherwise."""
    if not re.fullmatch(STAFF_ID_PATTERN, staff_id):
        raise RegisterError(
            f"staff id {staff_id[:40]!r}: 1 to 32 letters, digits, '_', '.' or '-',"
            " starting with a letter or digit"
        )
    return staff_id


class StaffRegister:
    """The staff, by id, and the hasher that checks their PINs."""

    def __init__(
        self,
        members: Mapping[str, StaffMember] | None = None,
        *,
        hasher: PasswordHash | None = None,
    ) -> None:
        self._members = dict(members or {})
        self._hasher = hasher or default_hasher()
        # Checked against when the id is unknown and the register empty (see _decoy_hash).
        self._decoy: str | None = None

    def __iter__(self) -> Iterator[StaffMember]:
        return iter(sorted(self._members.values(), key=lambda member: member.id))

    def __len__(self) -> int:
        return len(self._members)

    def get(self, staff_id: str) -> StaffMember | None:
        return self._members.get(staff_id)

    def add(self, staff_id: str, name: str, role: StaffRole, pin: str) -> StaffMember:
        """A new member (or a new PIN, name and role for an existing id), PIN hashed."""
        member = StaffMember(
            id=check_staff_id(staff_id),
            name=_checked_name(name),
            role=role,
            pin_hash=self._hasher.hash(check_pin(pin)),
        )
        self._members[member.id] = member
        return member

    def remove(self, staff_id: str) -> StaffMember:
        member = self._members.pop(staff_id, None)
        if member is None:
            raise RegisterError(f"no staff member {staff_id!r} in the register")
        return member

    def verify(self, staff_id: str, pin: str) -> StaffMember | None:
        """The member whose id and PIN these are; ``None`` for an unknown id or a wrong PIN.

        CPU-bound (argon2): call it off the event loop.
        """
        member = self._members.get(staff_id)
        known = member.pin_hash if member is not None else self._decoy_hash()
        try:
            matches = self._hasher.verify(pin, known)
        except UnknownHashError:
            return None
        return member if matches and member is not None else None

    def _decoy_hash(self) -> str:
        """What an unknown id's PIN is checked against, its answer thrown away.

        A member's own hash, so that an unknown id costs the time a known one with a wrong PIN
        does, the first time too (making a hash would cost more): the delay tells nothing.
        """
        for member in self._members.values():
            return member.pin_hash
        if self._decoy is None:  # an empty register: every id is unknown alike
            self._decoy = self._hasher.hash("0000")
        return self._decoy

    # --- the file ---------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path, *, hasher: PasswordHash | None = None) -> StaffRegister:
        """Read a register file; :class:`RegisterError` says why one cannot be read."""
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RegisterError(f"{path}: no staff register there") from None
        except (OSError, UnicodeDecodeError) as error:
            raise RegisterError(f"{path}: cannot read the staff register: {error}") from None
        try:
            data = _RegisterFile.model_validate_json(text)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "(the file)"
            raise RegisterError(f"{path}: not a staff register: {where}: {first['msg']}") from None
        members: dict[str, StaffMember] = {}
        for entry in data.staff:
            if entry.id in members:
                raise RegisterError(f"{path}: staff id {entry.id!r} is listed twice")
            members[entry.id] = StaffMember(
                id=entry.id, name=entry.name, role=entry.role, pin_hash=entry.pin_hash
            )
        return cls(members, hasher=hasher)

    def save(self, path: Path) -> None:
        """Write the register atomically, readable by its owner alone (mode 0600).

        A register that is there already keeps its owner and group (the table service's user,
        say), when this process may give them.
        """
        try:
            before: os.stat_result | None = path.stat()
        except FileNotFoundError:
            before = None
        document = {
            "format": REGISTER_FORMAT,
            "staff": [
                {"id": m.id, "name": m.name, "role": m.role.value, "pin_hash": m.pin_hash}
                for m in self
            ],
        }
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                os.fchmod(file.fileno(), 0o600)
                if before is not None:
                    with contextlib.suppress(PermissionError):
                        os.fchown(file.fileno(), before.st_uid, before.st_gid)
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            Path(temporary).replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                Path(temporary).unlink()
            raise


def _checked_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > MAX_NAME_LENGTH or not cleaned.isprintable():
        raise RegisterError(f"a name is 1 to {MAX_NAME_LENGTH} printable characters")
    return cleaned
