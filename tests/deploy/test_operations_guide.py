# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The operations guide names every deploy file, and only sub-commands that exist."""

from __future__ import annotations

import re

from table_controller.cli import SUBCOMMAND_MODULES
from tests.deploy.conftest import DEPLOY, OPERATIONS_GUIDE


def test_the_guide_lists_every_deploy_file_and_no_other() -> None:
    guide = OPERATIONS_GUIDE.read_text(encoding="utf-8")
    table = re.search(
        r"\| file in `deploy/` \| installed as \|\n\|---\|---\|\n((?:\|.*\n)+)", guide
    )
    assert table is not None
    listed: set[str] = set()
    for row in table[1].splitlines():
        names = re.findall(r"`([^`]+)`", row.split("|")[1])
        # `table-controller-backup.service`, `.timer`: a name, then its sibling by suffix
        first = names[0]
        listed.add(first)
        listed.update(first.rsplit(".", 1)[0] + name for name in names[1:] if name.startswith("."))
    shipped = {
        str(path.relative_to(DEPLOY))
        for path in DEPLOY.rglob("*")
        if path.is_file() and path.name != "README.md"
    }
    assert listed == shipped


def test_every_sub_command_the_guide_runs_exists() -> None:
    """Invocations: a command line or inline code starting with the program, or its path."""
    guide = OPERATIONS_GUIDE.read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [
        line.strip()
        for block in re.findall(r"```sh\n(.*?)```", guide, flags=re.DOTALL)
        for line in block.splitlines()
    ]
    lines += re.findall(r"`([^`\n]+)`", guide)
    invocation = re.compile(r"(?:^|bin/)table-controller\s+([a-z][a-z_-]*)")
    used = {match[1] for line in lines for match in invocation.finditer(line)}
    known = {name.replace("_", "-") for name in SUBCOMMAND_MODULES}
    assert {"reader", "journal", "watch", "replay"} <= used
    assert used <= known, used - known
