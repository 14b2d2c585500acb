# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The benchmark and reliability pages: one section per measure, for users, not a notebook."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

from tests.docs.markdown import sections

ROOT: Final = Path(__file__).resolve().parents[2]
BENCHMARKS: Final = ROOT / "docs/benchmarks.md"
RELIABILITY: Final = ROOT / "docs/reliability.md"
PAGES: Final = (BENCHMARKS, RELIABILITY)
#: What every measure on the benchmarks page states, in this order.
BENCHMARK_PARTS: Final = ("**Measures**", "**Command:**", "**Target", "**Result", "**Machine:**")
#: What every check on the reliability page states.
RELIABILITY_PARTS: Final = ("**Checks**", "**Command:**", "**Outcome required", "**Result")
#: Sections of the reliability page that group others or describe its counting, not checks.
RELIABILITY_GROUPS: Final = frozenset(
    {"Fuzzing", "Findings kept as regression tests", "Lenient readings"}
)
_DIARY: Final = (
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),  # a date
    re.compile(r"\b\d{1,2}:\d{2}\b"),  # a time of day
    re.compile(r"\bI\b"),  # the writer
    re.compile(r"\b(issue|#)\s*\d+", re.IGNORECASE),  # a tracker's number
    re.compile(r"\b(earlier|previous|used to|before the fix|since the fix)\b", re.IGNORECASE),
)
_PATH: Final = re.compile(r"`((?:bench|tests|docs|scripts|table_controller|drivers)/[\w/.-]+)`")
_LINK: Final = re.compile(r"\]\((?P<target>[^)\s#]+)(?:#[^)\s]*)?\)")


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def _in_order(body: str, parts: tuple[str, ...]) -> list[str]:
    """The parts missing from ``body`` or out of order."""
    wrong: list[str] = []
    position = 0
    for part in parts:
        found = body.find(part, position)
        if found < 0:
            wrong.append(part)
        else:
            position = found
    return wrong


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_page_reads_as_a_reference_not_a_diary(page: Path) -> None:
    text = _text(page)
    for pattern in _DIARY:
        found = [match.group(0) for match in pattern.finditer(text)]
        assert not found, f"{page.name}: {pattern.pattern} finds {found}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_file_the_page_names_exists(page: Path) -> None:
    text = _text(page)
    named = {match.group(1).rstrip(".") for match in _PATH.finditer(text)}
    for link in _LINK.finditer(text):
        if not re.match(r"^[a-z]+://", link["target"]):
            named.add(str((page.parent / link["target"]).resolve().relative_to(ROOT)))
    assert named
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, f"{page.name} names files that do not exist: {missing}"


def test_every_benchmark_states_what_how_target_result_and_machine() -> None:
    measures = sections(_text(BENCHMARKS), 2)
    assert len(measures) >= 8
    for title, body in measures.items():
        wrong = _in_order(body, BENCHMARK_PARTS)
        assert not wrong, f"{title!r} lacks {wrong}"
        command = body.split("**Command:**", 1)[1]
        assert "python" in command.split("\n\n", 1)[0], f"{title!r}: no command to run"


def test_the_restated_targets_are_on_the_benchmarks_page() -> None:
    measures = sections(_text(BENCHMARKS), 2)
    floor = next(body for title, body in measures.items() if "relay" in title)
    assert "bench/bench_card_path_floor.py" in floor
    assert re.search(r"at most \**2x", floor)
    core = next(body for title, body in measures.items() if "core" in title)
    assert "baccarat-engine" in core
    assert re.search(r"at least \**1\.0x", core)
    text = _text(BENCHMARKS)
    assert re.search(r"under \**1\.5 s", text)
    assert re.search(r"under \**80 MB", text)


def test_every_reliability_check_states_what_how_outcome_and_result() -> None:
    text = _text(RELIABILITY)
    checks = {**sections(text, 2), **sections(text, 3)}
    checks = {title: body for title, body in checks.items() if title not in RELIABILITY_GROUPS}
    assert len(checks) >= 10
    for title, body in checks.items():
        wrong = _in_order(body, RELIABILITY_PARTS)
        assert not wrong, f"{title!r} lacks {wrong}"
