# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Exact odds analyser: median time per composition, against plain enumeration in the same run.

Run: ``python bench/bench_exact.py [--variant lucky] [--compositions 200] [--plain 5]``.
Target: median at most 5 ms per composition for the whole bet menu, and at least
20 times faster than the plain enumeration (``table_controller.rules.enumeration``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from table_controller.rules import enumeration
from table_controller.rules.composition import CARD_ORDER, Composition
from table_controller.rules.exact import analyse
from table_controller.rules.variants import VARIANTS

TARGET_MS = 5.0


def depleted_shoes(decks: int, count: int, seed: int) -> list[Composition]:
    """A full shoe, then shoes with 10 to 300 random cards gone (as a shoe runs down)."""
    rng = random.Random(seed)
    full = [card for card in CARD_ORDER for _ in range(decks)]
    shoes = [Composition.full(decks)]
    while len(shoes) < count:
        rng.shuffle(full)
        gone = rng.randint(10, min(300, len(full) - 20))
        shoes.append(Composition.full(decks).without(full[:gone]))
    return shoes


def timed(function: object, *args: object) -> float:
    start = time.perf_counter()
    function(*args)  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="lucky", choices=sorted(VARIANTS))
    parser.add_argument("--compositions", type=int, default=200)
    parser.add_argument(
        "--plain", type=int, default=5, help="compositions also run through the plain enumeration"
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    variant = VARIANTS[args.variant]
    shoes = depleted_shoes(variant.decks, args.compositions, args.seed)
    # The first call folds the tableau once per process (start-up, not per composition).
    fold_s = timed(analyse, variant, shoes[0])

    fast = [timed(analyse, variant, shoe) for shoe in shoes]
    plain_shoes = shoes[: args.plain]
    plain = [timed(enumeration.bet_values, variant, shoe) for shoe in plain_shoes]
    fast_same = [timed(analyse, variant, shoe) for shoe in plain_shoes]

    print(f"variant {variant.name}: {len(variant.bets)} bets, {variant.decks} decks")
    print(f"first call, folding the tableau (once per process): {fold_s:.3f} s")
    median_ms = statistics.median(fast) * 1e3
    p90_ms = statistics.quantiles(fast, n=10)[-1] * 1e3
    print(
        f"fast analyser: median {median_ms:.3f} ms over {len(fast)} compositions"
        f" (full shoe {fast[0] * 1e3:.3f} ms, p90 {p90_ms:.3f} ms)"
    )
    plain_ms = statistics.median(plain) * 1e3
    print(f"plain enumeration: median {plain_ms:.1f} ms over {len(plain)} compositions")
    ratio = statistics.median(plain) / statistics.median(fast_same)
    print(f"ratio plain / fast on the same compositions: {ratio:.0f}x (target >= 20x)")
    print(f"5 ms median target: {'met' if median_ms <= TARGET_MS else 'NOT met'}")


if __name__ == "__main__":
    main()
