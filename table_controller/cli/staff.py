# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller staff add|remove|list``: edit the staff register.

Edge module. The register is the file the ``staff_register`` setting names (``--register``, or
the ``TABLE_CONTROLLER_STAFF_REGISTER`` environment variable). A PIN is never taken on the
command line: ``add`` asks for it twice without echo on a terminal, or reads one line from
standard input when that is no terminal (for provisioning scripts). The running table service
picks up the change by itself (it watches the file; SIGHUP reloads it at once).

Exit status: 0 done, 1 the register cannot be read or written or the id is unknown, 2 a wrong
flag or value.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from pathlib import Path

from table_controller.cli import Subcommand, UsageError
from table_controller.contract import StaffRole
from table_controller.staff import RegisterError, StaffRegister, check_pin

FAILED = 1
REGISTER_VARIABLE = "TABLE_CONTROLLER_STAFF_REGISTER"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``staff`` actions and their flags."""
    parser.add_argument(
        "--register",
        type=Path,
        metavar="FILE",
        help=f"the register file (default: ${REGISTER_VARIABLE})",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add", help="add a member of staff, or set an existing one's name, role and PIN"
    )
    add.add_argument("staff_id", metavar="ID", help="what the badge reader types, e.g. D-104")
    add.add_argument("--name", required=True, help="the name the displays show")
    add.add_argument("--role", required=True, choices=[role.value for role in StaffRole])
    remove = actions.add_parser("remove", help="remove a member of staff")
    remove.add_argument("staff_id", metavar="ID")
    listing = actions.add_parser("list", help="list the staff (never their PINs)")
    listing.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace) -> int:
    """Carry out one action on the register."""
    path = _register_path(args.register)
    try:
        if args.action == "list":
            return _list(StaffRegister.load(path), as_json=args.json)
        staff = StaffRegister.load(path) if path.exists() or args.action != "add" else None
        staff = staff or StaffRegister()
        if args.action == "add":
            member = staff.add(args.staff_id, args.name, StaffRole(args.role), _read_pin())
            staff.save(path)
            print(f"{member.id} ({member.name}, {member.role.value}) saved in {path}")
        else:
            member = staff.remove(args.staff_id)
            staff.save(path)
            print(f"{member.id} ({member.name}) removed from {path}")
    except RegisterError as error:
        print(f"table-controller staff: {error}", file=sys.stderr)
        return FAILED
    except OSError as error:
        print(f"table-controller staff: cannot write {path}: {error.strerror}", file=sys.stderr)
        return FAILED
    return 0


SUBCOMMAND = Subcommand(
    help="add, remove or list the dealers and supervisors who may sign in",
    description="Edit the staff register (ids, names, roles and PIN hashes).",
    add_arguments=add_arguments,
    handler=run,
)


def _register_path(flag: Path | None) -> Path:
    if flag is not None:
        return flag
    named = os.environ.get(REGISTER_VARIABLE)
    if not named:
        raise UsageError(f"name the register with --register FILE or ${REGISTER_VARIABLE}")
    return Path(named)


def _read_pin() -> str:
    """The new PIN: asked twice without echo on a terminal, else one line of standard input."""
    if sys.stdin.isatty():
        pin = getpass.getpass("PIN: ")
        if getpass.getpass("PIN again: ") != pin:
            raise RegisterError("the two PINs differ; nothing saved")
    else:
        pin = sys.stdin.readline().rstrip("\r\n")
    return check_pin(pin)


def _list(staff: StaffRegister, *, as_json: bool) -> int:
    for member in staff:
        if as_json:
            row = {"id": member.id, "name": member.name, "role": member.role.value}
            print(json.dumps(row, ensure_ascii=False))
        else:
            print(f"{member.id}\t{member.role.value}\t{member.name}")
    return 0
