# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The staff register file: hashes only, written whole and privately, read strictly."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from table_controller.contract.codes import StaffRole
from table_controller.staff.register import REGISTER_FORMAT, RegisterError, StaffRegister
from tests.support.staff import STAFF, cheap_hasher, write_register


def test_a_saved_register_reads_back_and_checks_pins(tmp_path: Path) -> None:
    path = write_register(tmp_path / "staff.json")
    register = StaffRegister.load(path, hasher=cheap_hasher())
    assert [member.id for member in register] == sorted(STAFF)
    for staff_id, (name, role, pin) in STAFF.items():
        member = register.verify(staff_id, pin)
        assert member is not None
        assert (member.name, member.role) == (name, role)
        assert register.verify(staff_id, "0000") is None
    assert register.verify("nobody", "1041") is None


class CountingHasher(PasswordHash):
    """The tests' cheap argon2id, counting the hashes it makes and the ones it checks against."""

    def __init__(self) -> None:
        super().__init__((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
        self.made = 0
        self.checked: list[str] = []

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self.made += 1
        return super().hash(password, salt=salt)

    def verify(self, password: str | bytes, hash: str | bytes) -> bool:  # noqa: A002
        self.checked.append(str(hash))
        return super().verify(password, hash)


def test_an_unknown_id_costs_one_check_against_a_members_hash_even_the_first(
    tmp_path: Path,
) -> None:
    """No hash is made for an unknown id, first or not: its delay is a known id's."""
    hasher = CountingHasher()
    register = StaffRegister.load(write_register(tmp_path / "staff.json"), hasher=hasher)
    hashes = {member.pin_hash for member in register}
    assert register.verify("X-404", STAFF["D-104"][2]) is None
    assert register.verify("D-104", "0000") is None
    assert register.verify("X-405", "0000") is None
    assert hasher.made == 0
    assert len(hasher.checked) == 3
    assert set(hasher.checked) <= hashes
    assert StaffRegister(hasher=hasher).verify("X-404", "0000") is None  # an empty register


def test_the_file_holds_argon2id_hashes_never_a_pin_and_only_its_owner_reads_it(
    tmp_path: Path,
) -> None:
    path = write_register(tmp_path / "staff.json")
    text = path.read_text()
    document = json.loads(text)
    assert document["format"] == REGISTER_FORMAT
    for entry in document["staff"]:
        assert entry["pin_hash"].startswith("$argon2id$")
    for _, _, pin in STAFF.values():
        assert f'"{pin}"' not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".staff.json.")]
    member = StaffRegister.load(path).get("D-104")
    assert member is not None
    assert "argon2" not in repr(member)


def test_a_changed_pin_replaces_the_old_one(tmp_path: Path) -> None:
    register = StaffRegister(hasher=cheap_hasher())
    register.add("D-1", "Ann", StaffRole.DEALER, "1111")
    register.add("D-1", "Ann B", StaffRole.SUPERVISOR, "2222")
    assert register.verify("D-1", "1111") is None
    member = register.verify("D-1", "2222")
    assert member is not None
    assert (member.name, member.role, len(register)) == ("Ann B", StaffRole.SUPERVISOR, 1)
    assert register.remove("D-1").id == "D-1"
    with pytest.raises(RegisterError, match="no staff member 'D-1'"):
        register.remove("D-1")


@pytest.mark.parametrize(
    ("staff_id", "name", "pin", "words"),
    [
        ("D 1", "Ann", "1234", "staff id"),
        ("-D1", "Ann", "1234", "staff id"),
        ("x" * 33, "Ann", "1234", "staff id"),
        ("D-1", "", "1234", "name"),
        ("D-1", "A\x00n", "1234", "name"),
        ("D-1", "Ann", "123", "PIN"),
        ("D-1", "Ann", "12a4", "PIN"),
        ("D-1", "Ann", "1234\n", "PIN"),
    ],
)
def test_a_bad_id_name_or_pin_is_refused_naming_what(
    staff_id: str, name: str, pin: str, words: str
) -> None:
    register = StaffRegister(hasher=cheap_hasher())
    with pytest.raises(RegisterError, match=words) as refused:
        register.add(staff_id, name, StaffRole.DEALER, pin)
    assert pin.strip() not in str(refused.value)  # a refusal never repeats the PIN


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("", "not a staff register"),
        ("[]", "not a staff register"),
        ('{"format": "other/1", "staff": []}', "format"),
        ('{"format": "table-controller-staff/1", "staff": [{"id": "D-1"}]}', "staff.0"),
        (
            (
                '{"format": "table-controller-staff/1", "staff": [{"id": "D-1", "name": "A",'
                ' "role": "boss", "pin_hash": "$argon2id$x"}]}'
            ),
            "role",
        ),
        (
            (
                '{"format": "table-controller-staff/1", "staff": [{"id": "D-1", "name": "A",'
                ' "role": "dealer", "pin_hash": "plain"}]}'
            ),
            "pin_hash",
        ),
    ],
)
def test_a_broken_register_file_is_refused_with_where(
    tmp_path: Path, content: str, words: str
) -> None:
    path = tmp_path / "staff.json"
    path.write_text(content)
    with pytest.raises(RegisterError, match=words):
        StaffRegister.load(path)


def test_an_id_listed_twice_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    path = write_register(tmp_path / "staff.json")
    document = json.loads(path.read_text())
    document["staff"].append(document["staff"][0])
    path.write_text(json.dumps(document))
    with pytest.raises(RegisterError, match="listed twice"):
        StaffRegister.load(path)
    with pytest.raises(RegisterError, match="no staff register there"):
        StaffRegister.load(tmp_path / "missing.json")


def test_saving_keeps_the_owner_and_group_the_register_was_given(tmp_path: Path) -> None:
    path = write_register(tmp_path / "staff.json")
    try:
        os.chown(path, 4321, 4321)  # the table service's user, say
    except PermissionError:
        pytest.skip("giving a file away needs root")
    register = StaffRegister.load(path, hasher=cheap_hasher())
    register.add("D-5", "Eve", StaffRole.DEALER, "5555")
    register.save(path)
    found = path.stat()
    assert (found.st_uid, found.st_gid) == (4321, 4321)
    assert stat.S_IMODE(found.st_mode) == 0o600
