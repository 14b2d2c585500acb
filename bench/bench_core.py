# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Rounds per second through the pure table procedure, settlement and scoreboards included.

A benchmark script, not part of the product: it reads the clock and shuffles with a seeded
random. It builds the inputs of whole shoes first (new shoe, burn, then for every round
``open_betting``, ``close_betting`` and the cards, the cut card where it falls), then times
``TableProcedure.handle`` over them: start-up and input generation are not counted. Every
round is settled (``settle_round``) and the ``roads`` payload is built after each result, as
the table does. For information it also times the same inputs with the roads payload left
out, to show what the scoreboards cost.

The published baseline is the npm package ``baccarat-engine`` 1.1.5 at about 7,700 rounds/s;
the target is at least twice that. With ``--node`` the script installs that package into a
temporary directory (``npm install``; nothing is kept) and times it in the same run on the
same machine: ``dealGame`` + ``calculateGameResult`` per round, and again with its roadmaps
(bead plate, big road and the three derived roads) rebuilt after each round. Both sides are
timed ``--repeat`` times over the same number of shoes and compared median to median (and best
to best), so that one pass slowed by a busy machine does not decide the ratio.

Run: ``taskset -c 0 python bench/bench_core.py [--variant commission] [--shoes 200] [--node]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from table_controller.procedure.events import (
    CardDrawn,
    CloseBetting,
    CutCardDrawn,
    Input,
    OpenBetting,
    StartNewShoe,
)
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.cards import Card, all_cards
from table_controller.rules.tableau import next_hand
from table_controller.rules.variants import VARIANTS, Reshuffle

BASELINE_ROUNDS_PER_S = 7_700  # baccarat-engine 1.1.5, as published with the target
MINI_ROUNDS_PER_SHOE = 70
NODE_SCRIPT = """
const Engine = require('baccarat-engine/src/gameEngine/baccaratGameEngine');
const Roadmaps = require('baccarat-engine/src/roadmaps/roadmapGenerator');
const shoes = Number(process.argv[2]);
const withRoads = process.argv[3] === 'roads';
const repeat = Number(process.argv[4]);
const roadmaps = new Roadmaps();
const passes = [];
for (let pass = 0; pass < repeat; pass += 1) {
  let rounds = 0;
  let elapsed = 0n;
  for (let s = 0; s < shoes; s += 1) {
    const engine = new Engine();
    engine.shoe.createDecks();
    engine.shoe.shuffle();
    engine.burnCards();
    const results = [];
    const started = process.hrtime.bigint();
    while (!engine.isBurnNeeded) {
      const hand = engine.dealGame();
      results.push(engine.resultsEngine.calculateGameResult(hand));
      if (withRoads) {
        const bigRoad = roadmaps.bigRoad(results);
        roadmaps.beadPlate(results, {columns: 20, rows: 6});
        roadmaps.bigEyeRoad(bigRoad);
        roadmaps.smallRoad(bigRoad);
        roadmaps.cockroachPig(bigRoad);
      }
      rounds += 1;
    }
    elapsed += process.hrtime.bigint() - started;
  }
  passes.push({rounds, seconds: Number(elapsed) / 1e9});
}
console.log(JSON.stringify(passes));
"""


def _command(cls: type[OpenBetting | CloseBetting], number: int) -> Input:
    return cls(at=float(number), command_id=f"c{number}", operator="bench")


def _deal_round(stream: list[Card], position: int, cut_at: int | None,
                inputs: list[Input]) -> tuple[int, bool]:
    """Append one round's cards, and the cut card if it falls inside the round.

    Returns the new position in the stream and whether the cut card came out.
    """
    points: list[int] = []
    cut = False
    while next_hand(points) is not None:
        if position == cut_at:
            inputs.append(CutCardDrawn(at=0.0))
            cut = True
        card = stream[position]
        inputs.append(CardDrawn(at=0.0, card=card))
        points.append(card.point)
        position += 1
    return position, cut


def shoe_inputs(variant_name: str, rng: random.Random, shoe_no: int) -> tuple[list[Input], int]:
    """The inputs of one whole shoe and how many rounds they deal."""
    variant = VARIANTS[variant_name]
    deck = [card for _ in range(variant.decks) for card in all_cards()]
    inputs: list[Input] = [
        StartNewShoe(at=0.0, command_id=f"shoe-{shoe_no}", operator="bench",
                     shoe_id=f"B-{shoe_no}")
    ]
    rounds = 0
    if variant.reshuffle is Reshuffle.EVERY_ROUND:
        for _ in range(MINI_ROUNDS_PER_SHOE):
            rng.shuffle(deck)
            inputs += [_command(OpenBetting, rounds), _command(CloseBetting, rounds)]
            _deal_round(deck, 0, None, inputs)
            rounds += 1
        return inputs, rounds
    stream = deck[:]
    rng.shuffle(stream)
    cut_at = len(stream) - rng.randint(52, 78)  # one to one and a half decks behind the cut
    position = 1 + stream[0].burn_count
    inputs += [CardDrawn(at=0.0, card=card) for card in stream[:position]]
    while position != cut_at:
        inputs += [_command(OpenBetting, rounds), _command(CloseBetting, rounds)]
        position, cut = _deal_round(stream, position, cut_at, inputs)
        rounds += 1
        if cut:
            return inputs, rounds
    inputs.append(CutCardDrawn(at=0.0))
    return inputs, rounds


def _no_roads(_shoe: object) -> None:
    pass


def time_core(variant_name: str, shoes: list[list[Input]], *, roads: bool) -> float:
    """Seconds spent in ``handle`` over every shoe, for a fresh machine."""
    machine = TableProcedure(VARIANTS[variant_name], table_id="BENCH")
    if not roads:  # for information only: what the run costs without the roads payload
        machine._publish_roads = _no_roads  # type: ignore[method-assign, assignment]  # noqa: SLF001
    handle = machine.handle
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        for inputs in shoes:
            for event in inputs:
                handle(event)
        return time.perf_counter() - started
    finally:
        gc.enable()


def time_node(shoes: int, repeat: int) -> dict[bool, list[float]] | None:
    """Rounds per second of baccarat-engine 1.1.5 in each pass, without and with its roadmaps.

    ``None`` when node or npm is missing.
    """
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        return None
    rates: dict[bool, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-baccarat-engine-") as folder:
        subprocess.run(  # noqa: S603 - fixed arguments, our own temporary directory
            [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", folder,
             "baccarat-engine@1.1.5"], check=True, capture_output=True, timeout=300)
        script = Path(folder) / "bench.js"
        script.write_text(NODE_SCRIPT, encoding="utf-8")
        for roads in (False, True):
            done = subprocess.run(  # noqa: S603 - fixed arguments, our own script
                [node, str(script), str(shoes), "roads" if roads else "results", str(repeat)],
                check=True, capture_output=True, text=True, cwd=folder, timeout=600)
            rates[roads] = [float(run["rounds"]) / float(run["seconds"])
                            for run in json.loads(done.stdout)]
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="commission")
    parser.add_argument("--shoes", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--node", action="store_true",
                        help="also time baccarat-engine 1.1.5 (npm install into a temp dir)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    built = [shoe_inputs(args.variant, rng, number) for number in range(args.shoes)]
    shoes = [inputs for inputs, _ in built]
    rounds = sum(count for _, count in built)
    inputs = sum(len(shoe) for shoe in shoes)
    print(f"variant {args.variant}: {args.shoes} shoes, {rounds} rounds, {inputs} inputs")
    figures: dict[str, list[float]] = {}
    for label, roads in (("settlement + roads", True), ("settlement, no roads payload", False)):
        runs = [rounds / time_core(args.variant, shoes, roads=roads) for _ in range(args.repeat)]
        figures[label] = runs
        print(f"  {label:30s} median {statistics.median(runs):9,.0f} rounds/s  "
              f"best {max(runs):9,.0f}  ({1e6 / statistics.median(runs):.1f} us/round)")
    ours = figures["settlement + roads"]
    print(f"  vs the published baseline {BASELINE_ROUNDS_PER_S:,} rounds/s: "
          f"{statistics.median(ours) / BASELINE_ROUNDS_PER_S:.2f}x (target 2x)")
    if not args.node:
        return
    theirs = time_node(args.shoes, args.repeat)
    if theirs is None:
        print("  baccarat-engine: node or npm not found; not measured")
        return
    for label, roads in (("results only", False), ("results + roadmaps", True)):
        runs = theirs[roads]
        print(f"  baccarat-engine 1.1.5 {label:20s} median {statistics.median(runs):9,.0f} "
              f"rounds/s  best {max(runs):9,.0f}; ours with roads / theirs = "
              f"{statistics.median(ours) / statistics.median(runs):.2f}x "
              f"(best / best {max(ours) / max(runs):.2f}x)")


if __name__ == "__main__":
    main()
