# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""How long ``table-controller journal stats`` takes per shoe of a journal.

A benchmark script, not part of the product. It writes a journal of ``--shoes`` whole seeded
shoes (commission, betting phase, a dealer change every second shoe, a new input every 6 s of
table time, so a shoe lasts about an hour as at a real table), then times, in one process and
interleaved ``--rounds`` times:

* the baseline: the journal read back (its hash chain verified) and replayed through the
  table procedure, which is what any report from a journal must do at the least;
* ``journal stats``: the same, with the pace timeline read from what the table published,
  and the report grouped by dealer, by shoe and by hour.

It prints the median of each per shoe and their ratio. Compliance runs the report over a month
of journals: it must take well under a second per shoe.

Run: ``python bench/bench_journal_stats.py [--shoes 20] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final, Literal

from table_controller.cli.journal import groups, timeline_of
from table_controller.cli.replay import read_inputs
from table_controller.contract.codes import StaffRole
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.inputs import Input, SignIn
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import input_to_record
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal.journal import Journal

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the core bench's seeded shoes

from bench.bench_core import shoe_inputs  # noqa: E402

VARIANT = "commission"
TABLE_ID = "B1"
#: Table time between two inputs: about 45 s a round, as dealt by hand.
INPUT_EVERY = timedelta(seconds=6)
START = datetime(2026, 11, 1, 8, 0, tzinfo=UTC)


def write_journal(path: Path, shoes: int) -> int:
    """A journal of ``shoes`` seeded shoes; returns how many inputs it holds."""
    rng = random.Random(20261201)
    inputs: list[Input] = []
    for shoe_no in range(shoes):
        if shoe_no % 2 == 0:
            dealer = f"D-{shoe_no // 2 + 1}"
            inputs.append(SignIn(at=0.0, command_id=f"in-{shoe_no}", operator="bench",
                                 staff_id=dealer, name=dealer, role=StaffRole.DEALER))  # fmt: skip
        inputs += shoe_inputs(VARIANT, rng, shoe_no)[0]
    with Journal.open(path, table_id=TABLE_ID) as journal:
        for number, event in enumerate(inputs):
            moment = START + INPUT_EVERY * number
            stamp = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
            journal.append("input", input_to_record(event), ts_utc=stamp,
                           monotonic_ns=number * 6_000_000_000)  # fmt: skip
    return len(inputs)


def replay_only(path: Path) -> None:
    machine = TableProcedure(VARIANTS[VARIANT], table_id=TABLE_ID)
    for recorded in read_inputs(path):
        if recorded.event is not None:
            with contextlib.suppress(ProcedureBug):  # a bug: faulted, as the table is
                machine.handle(recorded.event)


def stats_report(path: Path) -> None:
    timeline = timeline_of(path, TableProcedure(VARIANTS[VARIANT], table_id=TABLE_ID))
    ways: tuple[Literal["dealer", "shoe", "hour"], ...] = ("dealer", "shoe", "hour")
    for by in ways:
        groups([(TABLE_ID, timeline)], by)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--shoes", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "bench.journal"
        count = write_journal(path, args.shoes)
        timings: dict[str, list[float]] = {"replay": [], "stats": []}
        for round_no in range(args.rounds):
            order = ("replay", "stats") if round_no % 2 == 0 else ("stats", "replay")
            for side in order:
                began = time.perf_counter()
                (replay_only if side == "replay" else stats_report)(path)
                timings[side].append(time.perf_counter() - began)
        replay = statistics.median(timings["replay"]) / args.shoes
        stats = statistics.median(timings["stats"]) / args.shoes
        print(f"journal: {args.shoes} shoes, {count} inputs")
        print(f"replay through the procedure (baseline): {replay * 1000:.1f} ms per shoe")
        print(f"journal stats --by dealer, shoe and hour: {stats * 1000:.1f} ms per shoe")
        print(f"ratio stats / replay: {stats / replay:.2f}x; target: well under 1000 ms per shoe")


if __name__ == "__main__":
    main()
