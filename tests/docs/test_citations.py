# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The repository cites only itself: no file names a style or stack note kept outside it.

Users get the repository and nothing beside it, so a docstring, comment or page that points
to ``STYLE.md``, ``STACK.md`` or a folder next to the checkout points to nothing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[2]
#: What users read (the code's docstrings and comments, the docs, the deploy files) and the
#: tests, but for this folder's, which name those notes to refuse them.
SCOPE: Final = (
    "README.md",
    "pyproject.toml",
    "bench",
    "deploy",
    "docs",
    "drivers",
    "fuzz",
    "scripts",
    "simulators",
    "table_controller",
    "tests",
    ":(exclude)tests/docs",
)
#: Citations of notes outside the repository. The patterns do not match their own text.
OUTSIDE: Final = re.compile(
    r"\bST(?:YLE|ACK)\.md\b"
    r"|\bSTACK[ ](?:pitfall|section)"
    r"|\.\./shared\b"
    r"|\bshared[/]spec\b"
    r"|(?<![\w/.-])spec[/][\w-]+\.md\b"
)


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *SCOPE],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name]


def outside_citations(text: str) -> list[str]:
    """Each line of ``text`` that cites a note kept outside the repository."""
    return [line.strip() for line in text.splitlines() if OUTSIDE.search(line)]


def test_no_tracked_file_cites_a_note_outside_the_repository() -> None:
    tracked = _tracked()
    assert len(tracked) > 100
    found = {}
    for name in tracked:
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue  # images; a file deleted but not yet committed
        if lines := outside_citations(text):
            found[name] = lines
    assert not found, found


@pytest.mark.parametrize(
    "line",
    [
        "Runtime: time and I/O meet here (STYLE.md section 1).",
        "# temporary directories are 0700 (STACK.md pitfall 6).",
        "cancelled (STACK pitfall 12).",
        "see ../shared/spec/cli.md",
        "Keys are the settings of spec/cli.md with `_` for `-`",
    ],
)
def test_the_check_finds_each_kind_of_outside_citation(line: str) -> None:
    assert outside_citations(line) == [line]


@pytest.mark.parametrize(
    "line",
    [
        'Its format: docs/journal-format.md, "The outbox tables".',
        "@asyncapi/specs@6.11.1, installed by scripts/test.sh",
        "the shared subscription hands each message to one worker",
        "the style of the text-line profile",
    ],
)
def test_the_check_passes_citations_inside_the_repository(line: str) -> None:
    assert outside_citations(line) == []


#: What users read: the code's docstrings and comments, the docs and the deploy files.
READ_BY_USERS: Final = ("README.md", "deploy", "docs", "drivers", "simulators", "table_controller")
#: A file named in text: ``contract/envelope.py``, ``docs/backend.md``, ``screen.js``.
CITED_FILE: Final = re.compile(
    r"(?<![\w./-])((?:[\w-]+/)*[\w-]+\.(?:py|md|js|css|html))(?![\w/-])"
)


def missing_citations(text: str, tracked: list[str]) -> set[str]:
    """The files ``text`` names that are not in the repository (a path may start in a package)."""
    return {
        cited
        for cited in CITED_FILE.findall(text)
        if not any(name == cited or name.endswith("/" + cited) for name in tracked)
    }


def test_every_file_the_code_and_docs_name_is_in_the_repository() -> None:
    """A module renamed or merged leaves no docstring pointing at its old name."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode().split("\0")
    found = {}
    for name in subprocess.run(
        ["git", "ls-files", "-z", "--", *READ_BY_USERS], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode().split("\0"):
        if not name.endswith((".py", ".md", ".js", ".html", ".service")):
            continue
        if missing := missing_citations((ROOT / name).read_text(encoding="utf-8"), tracked):
            found[name] = sorted(missing)
    assert not found, found


def test_the_check_finds_a_file_that_is_not_there() -> None:
    tracked = ["table_controller/contract/envelope.py", "docs/backend.md"]
    text = "built by ``contract/envelope.py`` (``display_view.py``), see docs/backend.md"
    assert missing_citations(text, tracked) == {"display_view.py"}
