# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Measure how often fair, seeded shuffles raise ``shuffle_pattern`` or ``shoe_repeated``.

Used by ``test_false_alarms.py`` and runnable on its own for longer measurements::

    python -m tests.protection.measure_false_alarms --shoes 20000 --rate 0.05

Each shoe is a seeded ``random.Random`` shuffle of ``decks`` decks. The longest run of each
kind in the whole shoe is recorded (the distribution is compared with the computed chances);
the cards dealt before a cut card 14 cards from the end go through ``check_shuffle``. Every
new shoe's first 24 cards are compared with the openings of the 10 shoes before it.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
from collections import Counter
from dataclasses import dataclass, field

from table_controller.protection.replay_edges import replay_edges, split_rounds
from table_controller.protection.shoe_repeats import (
    DEFAULT_OPENING_CARDS,
    DEFAULT_PAST_SHOES,
    PastShoe,
    RepeatCheck,
    check_repeated,
    repeat_bound,
    repeat_limit,
)
from table_controller.protection.shuffle_checks import (
    RunKind,
    ShuffleLimits,
    check_shuffle,
    expected_consecutive_runs,
    longest_run,
    run_tail,
    shuffle_limits,
)
from table_controller.rules.cards import RANKS, Card
from table_controller.rules.variants import VARIANTS
from tests.protection.shoes import fair_shoe

#: Cards behind the cut card, never dealt.
CUT_CARD_FROM_END = 14
#: Run lengths whose number of maximal consecutive-rank runs is counted.
COUNTED_LENGTHS = (4, 5, 6, 7)


def maximal_consecutive_runs(shoe: list[Card]) -> Counter[int]:
    """How many maximal runs of consecutive ranks (either direction) have each length >= 2."""
    ranks = [RANKS.index(card.rank) for card in shoe]
    found: Counter[int] = Counter()
    for step in (1, -1):
        length = 1
        for previous, rank in itertools.pairwise(ranks):
            if rank - previous == step:
                length += 1
                continue
            if length >= 2:
                found[length] += 1
            length = 1
        if length >= 2:
            found[length] += 1
    return found


@dataclass(slots=True, kw_only=True)
class Measurement:
    """Alarm counts over ``shoes`` fair shoes, and the rates the theory predicts."""

    shoes: int
    limits: ShuffleLimits
    repeat_rate: float
    #: Shoes flagged by each detector, whole shoe.
    by_kind: dict[RunKind, int] = field(default_factory=dict)
    #: How many shoes had each longest run length, per kind (whole shoe).
    longest: dict[RunKind, Counter[int]] = field(default_factory=dict)
    #: Maximal consecutive-rank runs of each length, summed over the shoes.
    consecutive_runs: Counter[int] = field(default_factory=Counter)
    #: Shoes flagged by any detector: whole shoe, and the cards dealt before the cut card.
    any_whole: int = 0
    any_dealt: int = 0
    #: Dealt-card alarms that the whole shoe did not also raise (the theory says: none).
    dealt_not_whole: int = 0
    repeated: int = 0
    #: Sum over shoes of the bound on each shoe's ``shoe_repeated`` chance.
    repeat_bound_sum: float = 0.0

    def rate(self, count: int) -> float:
        return count / self.shoes

    def sigma(self, rate: float) -> float:
        """The binomial standard error of a measured rate whose true value is ``rate``."""
        return math.sqrt(rate * (1 - rate) / self.shoes)

    @property
    def expected_any(self) -> float:
        """The chance of any run alarm if the three detectors were independent."""
        return 1 - math.prod(1 - limit.false_alarm_rate for limit in self.limits.limits.values())

    def tail(self, kind: RunKind, length: int) -> float:
        """Measured share of shoes whose longest run of ``kind`` is ``length`` or more."""
        return self.rate(sum(n for k, n in self.longest[kind].items() if k >= length))

    def mean_runs_at_least(self, length: int) -> float:
        """Measured mean number of maximal consecutive-rank runs of ``length`` or more."""
        runs = sum(n for k, n in self.consecutive_runs.items() if k >= length)
        return runs / self.shoes

    def runs_table(self) -> str:
        lines = ["maximal consecutive-rank runs >= k per shoe: measured mean vs E[N_k] (sigma)"]
        for length in COUNTED_LENGTHS:
            theory = float(expected_consecutive_runs(self.limits.decks, length))
            lines.append(
                f"  k = {length}: {self.mean_runs_at_least(length):.6f} vs {theory:.6f} "
                f"({math.sqrt(theory / self.shoes):.6f})"
            )
        return "\n".join(lines)

    def tail_table(self, smallest: float = 1e-5) -> str:
        """Measured against computed chance of a run of each length, while the chance is seen."""
        lines = ["longest run >= k in a fair shoe: measured vs theory (sigma)"]
        for kind in RunKind:
            length = 2
            while (theory := run_tail(kind, self.limits.decks, length)) >= smallest:
                measured = self.tail(kind, length)
                lines.append(
                    f"  {kind.value:<18} k = {length:>2}: {measured:.6f} vs {theory:.6f} "
                    f"({self.sigma(theory):.6f})"
                )
                length += 1
        return "\n".join(lines)

    def report(self) -> str:
        lines = [
            (
                f"{self.shoes} fair {self.limits.decks}-deck shoes, shuffle_pattern rate "
                f"{self.limits.false_alarm_rate} (designed {self.limits.designed_rate:.5f})"
            ),
        ]
        for kind, limit in self.limits.limits.items():
            measured = self.rate(self.by_kind[kind])
            lines.append(
                f"  {kind.value:<18} run >= {limit.length:>2}: measured {measured:.5f}  "
                f"theory {limit.false_alarm_rate:.5f} ({'exact' if limit.exact else 'bound'}, "
                f"sigma {self.sigma(limit.false_alarm_rate):.5f})"
            )
        lines.append(
            f"  any detector, whole shoe: {self.rate(self.any_whole):.5f} "
            f"(independent-detector estimate {self.expected_any:.5f}); dealt cards only: "
            f"{self.rate(self.any_dealt):.5f}"
        )
        lines.append(
            f"shoe_repeated rate {self.repeat_rate}: measured {self.rate(self.repeated):.5f}, "
            f"bound {self.repeat_bound_sum / self.shoes:.6f}"
        )
        return "\n".join(lines)


def measure(
    shoes: int,
    *,
    decks: int = 8,
    rate: float = 0.05,
    repeat_rate: float = 0.05,
    seed: int = 20_260_101,
) -> Measurement:
    """Deal ``shoes`` seeded fair shoes through the detectors and count the alarms."""
    rng = random.Random(seed)
    limits = shuffle_limits(decks, rate)
    check = RepeatCheck(decks=decks, false_alarm_rate=repeat_rate)
    result = Measurement(shoes=shoes, limits=limits, repeat_rate=repeat_rate)
    result.by_kind = dict.fromkeys(RunKind, 0)
    result.longest = {kind: Counter() for kind in RunKind}
    past: list[PastShoe] = []
    for number in range(shoes):
        shoe = fair_shoe(decks, rng)
        whole: set[RunKind] = set()
        for kind in RunKind:
            run = longest_run(shoe, kind)
            assert run is not None
            result.longest[kind][run.length] += 1
            if run.length >= limits.limits[kind].length:
                whole.add(kind)
        result.consecutive_runs.update(maximal_consecutive_runs(shoe))
        # The cards dealt before the cut card go through the detector as the runtime calls it.
        dealt = {
            finding.run.kind
            for finding in check_shuffle(shoe[: len(shoe) - CUT_CARD_FROM_END], limits)
        }
        for kind in whole:
            result.by_kind[kind] += 1
        result.any_whole += bool(whole)
        result.any_dealt += bool(dealt)
        result.dealt_not_whole += bool(dealt - whole)
        shoe_id = f"S-{number}"
        if past:
            result.repeated += bool(check_repeated(shoe_id, shoe, past, check))
            lengths = [len(p.cards) for p in past]
            limit = repeat_limit(DEFAULT_OPENING_CARDS, lengths, decks, repeat_rate)
            result.repeat_bound_sum += repeat_bound(DEFAULT_OPENING_CARDS, lengths, decks, limit)
        past = [*past, PastShoe(shoe_id=shoe_id, cards=tuple(shoe[:DEFAULT_OPENING_CARDS]))]
        past = past[-DEFAULT_PAST_SHOES:]
    return result


def edge_positive_incidence(shoes: int, *, variant_name: str, seed: int) -> tuple[int, int]:
    """How many fair shoes had an offered bet turn player-favourable, and how many alarms.

    Not a false alarm: a real edge for a card counter. Dealt to the cut card, fixed windows.
    """
    variant = VARIANTS[variant_name]
    rng = random.Random(seed)
    flagged = alarms = 0
    for number in range(shoes):
        flat = fair_shoe(variant.decks, rng)[: variant.cards - CUT_CARD_FROM_END]
        shoe = split_rounds(f"S-{number}", flat, burn=variant.burn)
        raised = sum(len(replayed.alarms) for replayed in replay_edges(variant, shoe))
        flagged += bool(raised)
        alarms += raised
    return flagged, alarms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--shoes", type=int, default=20_000)
    parser.add_argument("--decks", type=int, default=8)
    parser.add_argument("--rate", type=float, default=0.05)
    parser.add_argument("--repeat-rate", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=20_260_101)
    parser.add_argument(
        "--edge-shoes",
        type=int,
        default=0,
        help="also replay this many fair shoes for edge_positive incidence (about 0.1 s each)",
    )
    parser.add_argument("--variant", default="commission", choices=sorted(VARIANTS))
    args = parser.parse_args(argv)
    result = measure(
        args.shoes,
        decks=args.decks,
        rate=args.rate,
        repeat_rate=args.repeat_rate,
        seed=args.seed,
    )
    print(result.report())
    print(result.tail_table())
    print(result.runs_table())
    if args.edge_shoes:
        flagged, alarms = edge_positive_incidence(
            args.edge_shoes, variant_name=args.variant, seed=args.seed
        )
        print(
            f"edge_positive ({args.variant}, fixed windows, threshold 0): {flagged} of "
            f"{args.edge_shoes} fair shoes had an offered bet turn player-favourable "
            f"({alarms} alarms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
