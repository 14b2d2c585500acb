# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fairness evidence for virtual tables: N rounds from the RNG card source, against exact odds.

Plays ``--rounds`` rounds of a variant (default ``mini``, six decks reshuffled every round)
through the real table procedure, with cards from :class:`RngCardSource` (the operating
system's cryptographic RNG unless ``--seed``), and compares what came out with the exact
analyser's probabilities:

* banker / player / tie, naturals and pairs: observed against expected counts, chi-square;
* each card's frequency at each of the four opening positions (P1, B1, P2, B2): 52 cells each,
  chi-square with 51 degrees of freedom (every card is equally likely at every position).

Run: ``python bench/rng_fairness.py --rounds 1000000 --report docs/fairness-1m.json``.
The p-values are those of scipy's chi-square distribution (``scipy.stats``).
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

from scipy import stats

from table_controller.procedure.inputs import StartNewShoe
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.composition import CARD_ORDER, Composition
from table_controller.rules.exact import analyse
from table_controller.rules.variants import VARIANTS, Reshuffle
from table_controller.runtime.card_source import RngCardSource

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the virtual table's round is dealt by the tests' helper

from tests.support.dealing import rng_round  # noqa: E402

POSITIONS = ("P1", "B1", "P2", "B2")
#: Rounds under one shoe id: a mini table's scoreboards grow with its shoe, so the run starts a
#: new shoe as an operator would (each round is dealt from fresh decks either way).
ROUNDS_PER_SHOE = 1000


def play(variant_name: str, rounds: int, seed: int | None) -> dict[str, Any]:
    """Deal the rounds; count results and the card at each opening position."""
    variant = VARIANTS[variant_name]
    if variant.reshuffle is not Reshuffle.EVERY_ROUND:
        raise SystemExit("the fairness report compares each round with a full shoe: use mini")
    rng = secrets.SystemRandom() if seed is None else random.Random(seed)
    procedure = TableProcedure(variant, table_id="FAIR")
    source = RngCardSource(variant, rng=rng)
    winners: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    at_position = {position: Counter[str]() for position in POSITIONS}
    for number in range(rounds):
        if number % ROUNDS_PER_SHOE == 0:  # a mini "shoe" is a session of rounds, not of cards
            shoe_id = f"F-{number // ROUNDS_PER_SHOE + 1}"
            procedure.handle(
                StartNewShoe(
                    at=0.0, command_id=f"new{number}", operator="fairness", shoe_id=shoe_id
                )
            )
        cards, result = rng_round(procedure, source, number, operator="fairness")
        for position, card in zip(POSITIONS, cards, strict=False):
            at_position[position][card.code] += 1
        winners[result.winner.value] += 1
        flags["natural"] += result.natural
        flags["player_pair"] += result.player_pair
        flags["banker_pair"] += result.banker_pair
    return {"winners": winners, "flags": flags, "positions": at_position}


def chi_square(observed: list[int], expected: list[float]) -> dict[str, float]:
    test = stats.chisquare(observed, expected)
    return {"chi2": float(test.statistic), "dof": len(observed) - 1, "p_value": float(test.pvalue)}


def report(variant_name: str, rounds: int, counts: dict[str, Any]) -> dict[str, Any]:
    variant = VARIANTS[variant_name]
    exact = analyse(variant, Composition.full(variant.decks))
    names = {"banker": "banker_wins", "player": "player_wins", "tie": "tie"}
    outcomes = {
        side: {
            "observed": counts["winners"][side],
            "expected": float(exact.events[event]) * rounds,
            "probability": float(exact.events[event]),
        }
        for side, event in names.items()
    }
    sides = list(names)
    outcome_test = chi_square(
        [counts["winners"][side] for side in sides], [outcomes[side]["expected"] for side in sides]
    )
    pair = float(exact.events["pair"])
    flags = {
        "natural": (counts["flags"]["natural"], float(exact.events["natural"]) * rounds),
        "player_pair": (counts["flags"]["player_pair"], pair * rounds),
        "banker_pair": (counts["flags"]["banker_pair"], pair * rounds),
    }
    flag_tests = {
        name: {
            "observed": observed,
            "expected": expected,
            **chi_square([observed, rounds - observed], [expected, rounds - expected]),
        }
        for name, (observed, expected) in flags.items()
    }
    positions = {
        position: chi_square(
            [counts["positions"][position][card.code] for card in CARD_ORDER],
            [rounds / len(CARD_ORDER)] * len(CARD_ORDER),
        )
        for position in POSITIONS
    }
    return {
        "variant": variant_name,
        "rounds": rounds,
        "outcomes": outcomes,
        "outcome_test": outcome_test,
        "flags": flag_tests,
        "card_at_position": positions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="mini")
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument(
        "--seed", type=int, help="a seeded RNG instead of the system's (tests only)"
    )
    parser.add_argument("--report", type=Path, help="write the report here as JSON")
    args = parser.parse_args()
    started = time.perf_counter()
    counts = play(args.variant, args.rounds, args.seed)
    result = report(args.variant, args.rounds, counts)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["rng"] = "secrets.SystemRandom" if args.seed is None else f"random.Random({args.seed})"
    for side, row in result["outcomes"].items():
        share = row["observed"] / args.rounds
        expected = row["probability"]
        print(f"{side:7} observed {row['observed']:>9} ({share:.6f})  expected {expected:.6f}")
    test = result["outcome_test"]
    chi2, dof, p_value = test["chi2"], test["dof"], test["p_value"]
    print(f"banker/player/tie chi2 {chi2:.3f} (dof {dof})  p = {p_value:.4f}")
    for name, row in result["flags"].items():
        observed, expected, p_value = row["observed"], row["expected"], row["p_value"]
        print(f"{name:12} observed {observed:>9}  expected {expected:.1f}  p = {p_value:.4f}")
    for position, row in result["card_at_position"].items():
        chi2, dof, p_value = row["chi2"], row["dof"], row["p_value"]
        print(f"card at {position}: chi2 {chi2:.2f} (dof {dof})  p = {p_value:.4f}")
    print(f"{args.rounds} rounds in {result['seconds']} s with {result['rng']}")
    if args.report is not None:
        args.report.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
