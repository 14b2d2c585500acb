# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The user-facing docs link to each other and to nothing a user of the repository lacks."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

from tests.docs.markdown import sections

ROOT: Final = Path(__file__).resolve().parents[2]
#: The integrator's and the operator's pages.
PAGES: Final = (
    "README.md",
    "docs/mqtt-api.md",
    "docs/first-round.md",
    "docs/game-rules.md",
    "docs/shoe-protocol.md",
    "docs/operations.md",
)
CONTRACTS: Final = (
    "docs/mqtt-api.md",
    "docs/first-round.md",
    "docs/game-rules.md",
    "docs/shoe-protocol.md",
)
_LINK: Final = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def _anchor(title: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation gone, blanks as '-'."""
    text = re.sub(r"[^\w\- ]", "", title.lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    return {_anchor(title) for level in range(1, 7) for title in sections(text, level)}


@pytest.mark.parametrize("page", PAGES)
def test_every_relative_link_reaches_a_file_and_its_heading(page: str) -> None:
    path = ROOT / page
    for match in _LINK.finditer(path.read_text(encoding="utf-8")):
        target = match["target"]
        if re.match(r"^[a-z]+://", target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        assert linked.exists(), f"{page}: {target} does not exist"
        if anchor:
            assert anchor in _anchors(linked), f"{page}: {target} names no heading"


@pytest.mark.parametrize("page", ["README.md", "docs/operations.md", *CONTRACTS])
def test_no_page_points_to_a_spec_folder_users_do_not_have(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert "spec/" not in text
    assert "spec folder" not in text


def test_the_readme_links_every_contract_and_shows_how_to_drive_a_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for contract in CONTRACTS:
        assert f"]({contract})" in readme, contract
    driving = sections(readme, 2)["Driving a table"]
    assert "table-controller run" in driving
    assert "--broker mqtt://" in driving
    assert "/commands" in driving
    assert '"operator"' in driving
    assert "commands/replies" in driving


def test_the_operations_guide_shows_how_to_drive_a_table() -> None:
    guide = (ROOT / "docs/operations.md").read_text(encoding="utf-8")
    driving = sections(guide, 3)["Driving a table"]
    assert "table-controller run" in driving
    assert "--broker mqtt://" in driving
    assert '"operator"' in driving
    assert "](mqtt-api.md)" in driving
