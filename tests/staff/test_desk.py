# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The staff desk: ids and PINs checked off the event loop, a run of wrong ones locked."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from table_controller.contract.codes import StaffRole
from table_controller.contract.errors import CommandErrorCode
from table_controller.screens.pin_lockout import PinRefusal
from table_controller.staff.desk import StaffDesk
from table_controller.staff.register import RegisterError, StaffMember
from tests.support.staff import STAFF, cheap_hasher, write_register
from tests.support.waiting import until


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def desk_at(path: Path, clock: Clock, **limits: float) -> StaffDesk:
    return StaffDesk(path, clock=clock, hasher=cheap_hasher(), **limits)  # type: ignore[arg-type]


async def test_a_sign_in_record_carries_who_signed_in_and_never_the_pin(tmp_path: Path) -> None:
    desk = desk_at(write_register(tmp_path / "staff.json"), Clock())
    record = {"id": "c-1", "command": "sign_in", "operator": "pit",
              "args": {"staff_id": "D-104", "pin": "10410417"}}  # fmt: skip
    checked = await desk.verified_sign_in(record, client="c")
    who = {"staff_id": "D-104", "name": "Mai Tran", "role": "dealer"}
    assert checked == {"id": "c-1", "command": "sign_in", "operator": "pit", "args": who}
    assert "10410417" not in json.dumps(checked)


async def test_a_wrong_pin_and_an_unknown_id_get_the_same_answer(tmp_path: Path) -> None:
    desk = desk_at(write_register(tmp_path / "staff.json"), Clock())
    wrong = await desk.identify("D-104", "0000", purpose="sign_in", client="c")
    unknown = await desk.identify("D-999", "1041", purpose="sign_in", client="c")
    assert isinstance(wrong, PinRefusal)
    assert isinstance(unknown, PinRefusal)
    assert (wrong.error, wrong.message) == (unknown.error, unknown.message)
    assert wrong.error is CommandErrorCode.WRONG_PIN
    assert "1041" not in unknown.message
    assert desk.wrong_pins == 2
    for given in (None, 1041, "1" * 65):  # not text, or longer than any PIN: never hashed
        refused = await desk.identify("D-104", given, purpose="sign_in", client="c")
        assert isinstance(refused, PinRefusal)


async def test_wrong_pins_in_a_row_lock_sign_in_for_a_while(tmp_path: Path) -> None:
    clock = Clock()
    desk = desk_at(write_register(tmp_path / "staff.json"), clock, max_failures=3, lockout_s=30)
    for _ in range(2):
        assert isinstance(
            await desk.identify("D-104", "0000", purpose="sign_in", client="c"), PinRefusal
        )
    third = await desk.identify("D-104", "0000", purpose="sign_in", client="c")
    assert isinstance(third, PinRefusal)
    assert third.locked
    locked = await desk.identify(
        "D-104", "10410417", purpose="sign_in", client="c"
    )  # right, but locked
    assert isinstance(locked, PinRefusal)
    assert locked.error is CommandErrorCode.PIN_LOCKED
    assert "30 s" in locked.message
    clock.now += 31
    member = await desk.identify("D-104", "10410417", purpose="sign_in", client="c")
    assert isinstance(member, StaffMember)


async def test_checks_started_together_are_counted_before_any_pin_is_hashed(
    tmp_path: Path,
) -> None:
    """Ten approvals at once, the right PIN last: five are checked, the rest refused at once."""
    desk = desk_at(write_register(tmp_path / "staff.json"), Clock())
    pins = [f"{n:04d}" for n in range(9)] + [STAFF["S-9"][2]]
    answers = await asyncio.gather(
        *(
            desk.identify("S-9", pin, role=StaffRole.SUPERVISOR, purpose="void_shoe", client="c")
            for pin in pins
        )
    )
    errors = [answer.error for answer in answers if isinstance(answer, PinRefusal)]
    assert errors == [CommandErrorCode.WRONG_PIN] * 5 + [CommandErrorCode.PIN_LOCKED] * 5
    assert desk.wrong_pins == 5


async def test_a_check_cut_short_counts_as_a_wrong_pin(tmp_path: Path) -> None:
    desk = desk_at(write_register(tmp_path / "staff.json"), Clock(), max_failures=1)
    check = asyncio.create_task(desk.identify("S-9", "9999", purpose="sign_in", client="c"))
    await asyncio.sleep(0)  # under way: its PIN is being hashed
    check.cancel()
    with pytest.raises(asyncio.CancelledError):
        await check
    locked = await desk.identify("S-9", "9999", purpose="sign_in", client="c")
    assert isinstance(locked, PinRefusal)
    assert locked.error is CommandErrorCode.PIN_LOCKED


async def test_a_supervisor_approval_needs_a_supervisor(tmp_path: Path) -> None:
    desk = desk_at(write_register(tmp_path / "staff.json"), Clock())
    dealer = await desk.identify(
        "D-104", "10410417", role=StaffRole.SUPERVISOR, purpose="void_shoe", client="c"
    )
    assert isinstance(dealer, PinRefusal)
    assert dealer.error is CommandErrorCode.NOT_AUTHORISED
    supervisor = await desk.identify(
        "S-9", "9999", role=StaffRole.SUPERVISOR, purpose="void_shoe", client="c"
    )
    assert isinstance(supervisor, StaffMember)


async def test_without_a_register_sign_in_is_refused() -> None:
    desk = StaffDesk(None)
    refused = await desk.identify("D-104", "10410417", purpose="sign_in", client="c")
    assert isinstance(refused, PinRefusal)
    assert refused.error is CommandErrorCode.NO_STAFF_REGISTER
    assert not desk.reload()


async def test_the_register_is_reloaded_when_its_file_changes_and_kept_when_broken(
    tmp_path: Path,
) -> None:
    path = write_register(tmp_path / "staff.json")
    desk = desk_at(path, Clock())
    watching = asyncio.create_task(desk.watch(interval_s=0.01))
    try:
        write_register(path, {"D-300": ("New Dealer", StaffRole.DEALER, "3003"), **STAFF})
        await until(lambda: desk.register is not None and desk.register.get("D-300") is not None)
        assert isinstance(
            await desk.identify("D-300", "3003", purpose="sign_in", client="c"), StaffMember
        )
        path.write_text("{broken")  # a half-edited file: the register in use stays
        os.utime(path, ns=(1, 1))
        await until(lambda: desk.reload_failures > 0)
        assert isinstance(
            await desk.identify("D-300", "3003", purpose="sign_in", client="c"), StaffMember
        )
    finally:
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)


def test_an_unreadable_register_stops_the_desk_at_start(tmp_path: Path) -> None:
    (tmp_path / "staff.json").write_text("[]")
    with pytest.raises(RegisterError):
        StaffDesk(tmp_path / "staff.json")


async def test_a_change_of_owner_or_mode_alone_is_read_again(tmp_path: Path) -> None:
    """After an edit by root that the service could not read, its chown is picked up."""
    path = write_register(tmp_path / "staff.json")
    desk = desk_at(path, Clock())
    watching = asyncio.create_task(desk.watch(interval_s=0.01))
    try:
        await asyncio.sleep(0.05)
        assert desk.reloads == 0
        path.chmod(0o640)  # contents and modification time unchanged
        await until(lambda: desk.reloads == 1)
    finally:
        watching.cancel()
        await asyncio.gather(watching, return_exceptions=True)
