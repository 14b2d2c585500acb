# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller verify-install``: the installed files against those the installer recorded.

Edge module over :mod:`table_controller.integrity.identity`. Prints every added, missing and
changed file, then the identity (``version``, ``sha256``). An editable install has nothing
recorded to verify against: it says so, prints the identity of the sources and exits 0.

Exit status: 0 no difference (or an editable install), 5 any added, missing or changed file.
"""

from __future__ import annotations

import argparse
import json
from typing import Final

from table_controller.cli import Subcommand
from table_controller.integrity import InstallCheck, InstallStatus, installed_identity

#: Exit status when a file was added, is missing or was changed.
MODIFIED: Final = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``verify-install`` flags."""
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")


def run(args: argparse.Namespace) -> int:
    """Check the running install and print the outcome."""
    check = installed_identity()
    if args.json:
        print(json.dumps(check.as_json(), ensure_ascii=False))
    else:
        print_report(check)
    return MODIFIED if check.status is InstallStatus.MODIFIED else 0


SUBCOMMAND = Subcommand(
    help="check the installed files against the hashes the installer recorded",
    description=(
        "Hash every file of the installed distribution, compare with its RECORD, "
        "list added, missing and changed files and print the software identity."
    ),
    add_arguments=add_arguments,
    handler=run,
)


def print_report(check: InstallCheck) -> None:
    """The outcome for a person: one line per difference, then the identity."""
    for label, paths in (
        ("added", check.added),
        ("missing", check.missing),
        ("changed", check.changed),
    ):
        for path in paths:
            print(f"{label:8} {path}")
    for note in check.notes:
        print(note)
    if check.status is InstallStatus.VERIFIED:
        print(f"verified: {check.checked} recorded files match ({check.root})")
    elif check.status is InstallStatus.MODIFIED:
        differences = len(check.added) + len(check.missing) + len(check.changed)
        print(f"MODIFIED: {differences} files differ from those recorded ({check.root})")
    print(f"software: version {check.version} sha256 {check.sha256} ({check.files} files)")
