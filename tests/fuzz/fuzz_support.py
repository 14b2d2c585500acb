# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Budgets, tallies, known-bug bookkeeping and common strategies of the fuzz suites.

Test support: no I/O except the optional JSON report written at the end of a session and
the scratch directories of the file targets.

Two profiles. The *fast* one runs in CI: each target gets a few hundred derandomised examples
(a few thousand in total, well under a minute). The *long* one is marked ``slow`` and sized by
``FUZZ_EXAMPLES`` (examples per unit of weight; each target has a weight, so the total is
``FUZZ_EXAMPLES x sum(weights)``); it runs in rounds of at most 2,000 examples, each a fresh
hypothesis run seeded from ``FUZZ_SEED``, the target and the round, so a run is repeatable.
Every example that actually reaches a target is counted here, with the bytes, frames,
lines and cards it carried, and the totals are printed at the end of the session (and written
as JSON to ``FUZZ_REPORT`` when that is set).

A *known bug* is an exception the oracle has already pinned on a specific input shape, with a
strict-xfail test in ``test_known_bugs.py`` that demonstrates it. The properties recognise it
with a narrow predicate, count the hit and move on, so that the fuzzers keep exercising the
rest of the target; any other exception fails the property. When a bug is fixed its hits
drop to zero and its xfail test starts to pass, which fails the suite until the entry is
removed.
"""

from __future__ import annotations

import collections
import json
import math
import os
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

#: Examples per unit of weight in the long profile when ``FUZZ_EXAMPLES`` is not set.
DEFAULT_LONG_EXAMPLES: Final = 2_000
#: Examples per target in the fast (CI) profile, before its weight.
FAST_EXAMPLES: Final = 150

T = TypeVar("T")

_SUPPRESSED: Final = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.large_base_example,
    HealthCheck.function_scoped_fixture,
]


def long_examples_per_weight() -> int:
    """``FUZZ_EXAMPLES`` from the environment, or the default for ``--slow`` runs."""
    text = os.environ.get("FUZZ_EXAMPLES", "")
    return int(text) if text.strip().isdigit() else DEFAULT_LONG_EXAMPLES


def fast_settings(weight: float = 1.0) -> settings:
    """Settings of the CI profile: derandomised, no example database."""
    return settings(
        max_examples=max(1, round(FAST_EXAMPLES * weight)),
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=_SUPPRESSED,
    )


#: The long profile runs in rounds of at most this many examples, each a fresh hypothesis
#: run with its own seed, so that memory stays flat however long the run.
ROUND_EXAMPLES: Final = 2_000


def fuzz_seed() -> int:
    """``FUZZ_SEED`` from the environment (0 unless set): the long run it names is repeatable."""
    text = os.environ.get("FUZZ_SEED", "")
    return int(text) if text.strip().isdigit() else 0


def long_total(weight: float) -> int:
    """How many examples a target of this weight gets in the long profile."""
    return max(1, round(long_examples_per_weight() * weight))


def long_rounds(weight: float) -> list[int]:
    """The round numbers of a target of this weight (for ``pytest.mark.parametrize``)."""
    return list(range(math.ceil(long_total(weight) / ROUND_EXAMPLES)))


def run_long_round(
    target: str,
    check: Callable[[T], None],
    values: st.SearchStrategy[T],
    weight: float,
    round_no: int,
) -> None:
    """One round of the long profile: up to ``ROUND_EXAMPLES`` examples with a fixed seed.

    Args:
        target: Names the round's seed together with ``FUZZ_SEED`` and ``round_no``.
        check: The property, called with each generated value.
        values: What to generate.
        weight: The target's weight, which sets its total number of examples.
        round_no: Which round of the target this is.
    """
    examples = min(ROUND_EXAMPLES, long_total(weight) - round_no * ROUND_EXAMPLES)
    run_seed = zlib.crc32(f"{target}/{fuzz_seed()}/{round_no}".encode())

    @seed(run_seed)
    @settings(
        max_examples=examples,
        derandomize=False,
        database=None,
        deadline=None,
        suppress_health_check=_SUPPRESSED,
    )
    @given(values)
    def one_round(value: T) -> None:
        check(value)

    one_round()


@dataclass(frozen=True, slots=True, kw_only=True)
class KnownBug:
    """A crash already reported to the lead, demonstrated by a strict-xfail test."""

    key: str
    where: str
    summary: str


#: Every known bug the properties tolerate (and count), by key.
KNOWN_BUGS: Final[dict[str, KnownBug]] = {}  # all seven found so far are fixed


@dataclass(slots=True)
class TargetTally:
    """What one target was fed during this session."""

    examples: int = 0
    units: collections.Counter[str] = field(default_factory=collections.Counter)
    known_bug_hits: collections.Counter[str] = field(default_factory=collections.Counter)


#: Totals of this session, by target name.
TALLIES: Final[dict[str, TargetTally]] = collections.defaultdict(TargetTally)


def count_example(target: str, inputs: int, **units: int) -> None:
    """One example reached ``target``.

    Args:
        target: The target's name in the report.
        inputs: How many inputs the example fed it: frames, mutated frames and garbage runs of
            a byte stream, lines of a text stream, payloads, records or documents of a batch.
        **units: Anything else worth adding up (bytes, cards delivered, accepted inputs).
    """
    tally = TALLIES[target]
    tally.examples += 1
    tally.units["inputs"] += inputs
    tally.units.update(units)


def count_known_bug(target: str, key: str) -> None:
    """An input hit a known bug (see :data:`KNOWN_BUGS`): counted, not failed."""
    assert key in KNOWN_BUGS, key
    TALLIES[target].known_bug_hits[key] += 1


def report_lines(failed: int) -> list[str]:
    """The session's totals, one line per target and a grand total.

    Args:
        failed: How many fuzz tests failed this session (a crash or a broken oracle).
    """
    if not TALLIES:
        return []
    lines = []
    total = inputs = 0
    for target in sorted(TALLIES):
        tally = TALLIES[target]
        total += tally.examples
        inputs += tally.units["inputs"]
        units = ", ".join(f"{name}={value}" for name, value in sorted(tally.units.items()))
        known = ", ".join(f"{k}={v}" for k, v in sorted(tally.known_bug_hits.items())) or "none"
        lines.append(f"{target}: examples={tally.examples}; {units}; known bug hits: {known}")
    verdict = "all oracles held" if failed == 0 else f"{failed} fuzz test(s) FAILED"
    lines.append(f"total: {total} examples, {inputs} inputs; {verdict}")
    return lines


def write_report(path: Path) -> None:
    """The totals as JSON, for docs/reliability.md."""
    data = {
        target: {
            "examples": tally.examples,
            "units": dict(tally.units),
            "known_bug_hits": dict(tally.known_bug_hits),
        }
        for target, tally in sorted(TALLIES.items())
    }
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def one_in(n: int) -> st.SearchStrategy[bool]:
    """True about once in ``n`` draws.

    Not ``integers(0, n - 1) == 0``: hypothesis favours the ends of a range, so that would
    come up far more often than once in ``n``.
    """
    return st.integers(1, n).map(lambda pick: pick == (n + 1) // 2)


def rarely(
    usual: st.SearchStrategy[Any], rare: st.SearchStrategy[Any], n: int = 5
) -> st.SearchStrategy[Any]:
    """``rare`` about once in ``n`` draws, ``usual`` otherwise."""
    return one_in(n).flatmap(lambda pick: rare if pick else usual)


#: Well-formed card codes: a rank then a suit (``QH``, ``TS``).
card_codes = st.builds(
    lambda rank, suit: rank + suit, st.sampled_from("A23456789TJQK"), st.sampled_from("SHDC")
)


def command_args(
    command: str,
    *,
    text: st.SearchStrategy[str],
    card: st.SearchStrategy[Any],
    hand_card: st.SearchStrategy[Any],
) -> st.SearchStrategy[dict[str, Any]]:
    """The ``args`` of ``command`` in the shape the contract asks for, with these values."""
    hand = st.lists(hand_card, min_size=2, max_size=3)
    strategies: dict[str, st.SearchStrategy[dict[str, Any]]] = {
        "new_shoe": st.fixed_dictionaries({}, optional={"shoe_id": st.none() | text}),
        "void_round": st.fixed_dictionaries({"round_id": text}),
        "manual_card": st.fixed_dictionaries({"card": card}),
        "correct_result": st.fixed_dictionaries({"round_id": text, "player": hand, "banker": hand}),
        "dropped_card": st.fixed_dictionaries({"read": st.booleans()}),
    }
    return strategies.get(command, st.just({}))


@dataclass(frozen=True, slots=True)
class Stream:
    """Bytes on the line, how many pieces (frames, lines) they were made of, and the reads."""

    data: bytes
    inputs: int
    reads: tuple[bytes, ...]


def split_into_reads(draw: st.DrawFn, data: bytes, max_read: int) -> tuple[bytes, ...]:
    """``data`` cut into the pieces successive reads of a port might return (empty ones too)."""
    sizes = draw(st.lists(st.integers(1, max_read), max_size=len(data) + 1))
    reads, position = [], 0
    for size in sizes:
        reads.append(data[position : position + size])
        position += size
    reads.append(data[position:])
    return tuple(reads)


def in_a_scratch_directory(check: Callable[[T, Path], None]) -> Callable[[T], None]:
    """``check`` of one example with a fresh temporary directory, removed afterwards."""

    def check_in_scratch(example: T) -> None:
        with tempfile.TemporaryDirectory() as directory:
            check(example, Path(directory))

    return check_in_scratch
