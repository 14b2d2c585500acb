# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""How much recording a result on the scoreboards costs early and late in a shoe.

A benchmark script, not part of the product: it reads the clock and draws seeded random
results. It times ``Scoreboard.record`` over rounds 1-10 and over rounds 71-80 of many
shoes (and 31-40) and prints the ratio, which stays near 1 because recording is O(1); the
few per cent it exceeds 1 are the derived roads' marks, which rounds 1-10 mostly do not get
yet (each road starts a few Big Road columns in), so round 31-40 costs as much as 71-80.
Building the whole ``roads`` payload is printed too, for information: it grows with the shoe,
as its size does.

Run: ``python bench/bench_roads.py [--shoes 5000] [--seed 7]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import time

from table_controller.rules.roads import RoadEntry, Scoreboard
from table_controller.rules.tableau import Winner

ROUNDS_PER_SHOE = 80
EARLY = range(10)  # rounds 1-10
MIDDLE = range(30, 40)  # rounds 31-40
LATE = range(70, 80)  # rounds 71-80
# Rough 8-deck frequencies; the exact values do not matter for a cost measurement.
WINNER_WEIGHTS = {Winner.BANKER: 0.4586, Winner.PLAYER: 0.4462, Winner.TIE: 0.0952}
PAIR_CHANCE = 0.0747
NATURAL_CHANCE = 0.34


def random_entry(rng: random.Random) -> RoadEntry:
    winner = rng.choices(list(WINNER_WEIGHTS), weights=list(WINNER_WEIGHTS.values()))[0]
    low = rng.randrange(9)
    high = rng.randrange(low + 1, 10)
    player_total, banker_total = {
        Winner.BANKER: (low, high),
        Winner.PLAYER: (high, low),
        Winner.TIE: (low, low),
    }[winner]
    return RoadEntry(
        winner=winner,
        player_pair=rng.random() < PAIR_CHANCE,
        banker_pair=rng.random() < PAIR_CHANCE,
        natural=rng.random() < NATURAL_CHANCE,
        player_total=player_total,
        banker_total=banker_total,
    )


def timed_records(board: Scoreboard, entries: list[RoadEntry], rounds: range) -> int:
    started = time.perf_counter_ns()
    for index in rounds:
        board.record(entries[index])
    return time.perf_counter_ns() - started


def timed_payload(board: Scoreboard) -> int:
    started = time.perf_counter_ns()
    board.payload("S-BENCH", 300)
    return time.perf_counter_ns() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    shoes = [[random_entry(rng) for _ in range(ROUNDS_PER_SHOE)] for _ in range(args.shoes)]

    early_ns = middle_ns = late_ns = payload_early_ns = payload_late_ns = 0
    gc.collect()
    gc.disable()
    try:
        for entries in shoes:
            board = Scoreboard()
            early_ns += timed_records(board, entries, EARLY)
            payload_early_ns += timed_payload(board)
            for index in range(EARLY.stop, MIDDLE.start):
                board.record(entries[index])
            middle_ns += timed_records(board, entries, MIDDLE)
            for index in range(MIDDLE.stop, LATE.start):
                board.record(entries[index])
            late_ns += timed_records(board, entries, LATE)
            payload_late_ns += timed_payload(board)
    finally:
        gc.enable()

    records = args.shoes * len(EARLY)
    print(f"{args.shoes} shoes of {ROUNDS_PER_SHOE} rounds, seed {args.seed}")
    print(f"record, rounds  1-10: {early_ns / records / 1000:7.2f} us per result")
    print(f"record, rounds 31-40: {middle_ns / records / 1000:7.2f} us per result")
    print(f"record, rounds 71-80: {late_ns / records / 1000:7.2f} us per result")
    print(f"ratio 71-80 / 1-10  : {late_ns / early_ns:7.2f}")
    print(f"ratio 71-80 / 31-40 : {late_ns / middle_ns:7.2f}")
    print(
        f"payload at round 10 : {payload_early_ns / args.shoes / 1000:7.2f} us; "
        f"at round 80: {payload_late_ns / args.shoes / 1000:7.2f} us (grows with its size)"
    )


if __name__ == "__main__":
    main()
