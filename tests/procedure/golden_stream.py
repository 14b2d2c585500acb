# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A long seeded table session and every decision it draws, as wire JSON, for a golden test.

A seeded player deals whole shoes from shuffled decks and, by chance, does what a real table
sees: misreads entered by hand, lost frames (some of them heartbeats), the reader going
offline with cards queued behind it, cut cards anywhere, exposed and dropped cards, misdeals,
voided rounds and shoes, corrected results, assessments with offers and alarms, runtime
failures, foreign cards and commands given in the wrong phase. It reads only the machine's
public interface (its phase, snapshot and decisions), so the same machine behaviour gives the
same stream.

``python -m tests.procedure.golden_stream`` writes the fixture the golden test compares with.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.contract.codes import Phase
from table_controller.contract.envelope import to_wire
from table_controller.contract.payloads.round import RoundSettled
from table_controller.procedure import inputs
from table_controller.procedure.decisions import Decision, Publish
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.inputs import Input
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.cards import Card, all_cards
from table_controller.rules.tableau import Coup, next_hand
from table_controller.rules.variants import VARIANTS

FIXTURE = Path(__file__).parent / "data" / "golden_decisions.jsonl.gz"
#: (variant, betting phase, seed, inputs): each a separate table.
SESSIONS = (
    ("commission", True, 11, 2500),
    ("super_six", True, 12, 2500),
    ("lucky", False, 13, 2000),
    ("mini", True, 14, 1200),
    ("mini", False, 15, 800),
)


def decision_wire(decision: Decision) -> dict[str, Any]:
    """One decision as JSON data: its kind, then its fields (a payload with its ``type``)."""
    data = to_wire(decision)
    assert isinstance(data, dict)
    if isinstance(decision, Publish):
        data["type"] = decision.event_type.value
    return {"decision": type(decision).__name__, **data}


@dataclass
class _Player:
    """The dealer and supervisor of one table, deciding from a seeded random generator."""

    machine: TableProcedure
    rng: random.Random
    stream: list[Card]
    command_no: int = 0
    shoe_no: int = 0
    #: Cards that left the shoe unread, to be entered by hand.
    unread: list[Card] | None = None
    settled: list[str] | None = None
    at: float = 0.0

    def next_card(self) -> Card:
        if not self.stream or self.rng.random() < 0.002:
            return self.rng.choice(list(all_cards()))  # a foreign card, at times
        return self.stream.pop()

    def common(self) -> dict[str, Any]:
        self.command_no += 1
        self.at += 0.5
        return {"at": self.at, "command_id": f"c-{self.command_no}", "operator": "pit-3"}

    def new_deck(self) -> None:
        decks = self.machine.variant.decks
        self.stream = [card for _ in range(decks) for card in all_cards()]
        self.rng.shuffle(self.stream)
        self.unread = []

    def coup_cards(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """A coup the drawing rules could deal, from random cards."""
        points: list[int] = []
        dealt: list[Card] = []
        deck = list(all_cards())
        while next_hand(points) is not None:
            card = self.rng.choice(deck)
            dealt.append(card)
            points.append(card.point)
        coup = Coup.from_cards(tuple(dealt))
        return coup.player, coup.banker

    def settled_here(self) -> list[str]:
        """The rounds settled in the shoe in play (a few from earlier shoes too)."""
        assert self.settled is not None
        shoe_id = self.machine.snapshot().state.shoe_id
        here = [round_id for round_id in self.settled if round_id.startswith(f"{shoe_id}-")]
        return here + self.settled[-2:]

    def some_round_id(self) -> str:
        snapshot = self.machine.snapshot().state
        settled = self.settled_here()
        if settled and self.rng.random() < 0.8:
            return self.rng.choice(settled)
        if snapshot.round_id is not None:
            return snapshot.round_id
        return f"{snapshot.shoe_id}-{self.rng.randint(1, 90)}"

    def any_command(self) -> Input:  # noqa: PLR0911 - one case per command
        pick = self.rng.randrange(10)
        common = self.common()
        if pick == 0:
            return inputs.OpenBetting(**common)
        if pick == 1:
            return inputs.CloseBetting(**common)
        if pick == 2:
            return inputs.Deal(**common)
        if pick == 3:
            return inputs.Misdeal(**common)
        if pick == 4:
            return inputs.VoidRound(**common, round_id=self.some_round_id())
        if pick == 5:
            return inputs.EnterCard(**common, card=self.rng.choice(list(all_cards())))
        if pick == 6:
            player, banker = self.coup_cards()
            return inputs.CorrectResult(**common, round_id=self.some_round_id(), player=player,
                                        banker=banker)
        if pick == 7:
            return inputs.DroppedCard(**common, read=self.rng.random() < 0.5)
        if pick == 8:
            shoe_id = self.rng.choice([None, "S-1", "bad id", ""])
            return inputs.StartNewShoe(**common, shoe_id=shoe_id)
        return inputs.VoidShoe(**common)

    def shoe_item(self) -> Input:
        """What comes out of the shoe next: mostly a card."""
        roll = self.rng.random()
        self.at += 0.25
        if roll < 0.03:
            assert self.unread is not None
            self.unread.append(self.next_card())
            return inputs.CardMisread(at=self.at)
        if roll < 0.045:
            count = self.rng.randint(1, 2)
            assert self.unread is not None
            for _ in range(count):
                if self.rng.random() < 0.6:  # else a heartbeat was lost
                    self.unread.append(self.next_card())
            return inputs.FramesLost(at=self.at, count=count)
        if roll < 0.052:
            return inputs.CutCardDrawn(at=self.at)
        return inputs.CardDrawn(at=self.at, card=self.next_card())

    def choose(self) -> Input:  # noqa: C901, PLR0911, PLR0912 - one case per phase
        """The next input, from what the table shows."""
        machine = self.machine
        state = machine.snapshot().state
        phase = machine.phase
        roll = self.rng.random()
        if roll < 0.02:
            return self.any_command()
        if roll < 0.03:
            self.at += 0.1
            if self.rng.random() < 0.5:
                return inputs.ReaderWentOffline(at=self.at)
            return inputs.ReaderCameBack(at=self.at)
        if roll < 0.033:
            self.at += 0.1
            return inputs.RuntimeFailed(at=self.at,
                                        message=f"draw failed after input {self.command_no}")
        if phase in (Phase.NO_SHOE, Phase.SHOE_OVER):
            if self.rng.random() < 0.9:
                self.shoe_no += 1
                self.new_deck()
                return inputs.StartNewShoe(**self.common(), shoe_id=f"G-{self.shoe_no}")
            return self.shoe_item()
        if phase is Phase.FAULTED:
            return inputs.VoidShoe(**self.common()) if self.rng.random() < 0.7 else self.shoe_item()
        if phase is Phase.HELD:
            reasons = set(state.holds)
            if "foreign_card" in reasons:
                if self.rng.random() < 0.6:
                    return inputs.VoidShoe(**self.common())
                return self.shoe_item()
            if "reader_offline" in reasons and self.rng.random() < 0.4:
                self.at += 0.1
                return inputs.ReaderCameBack(at=self.at)
            if state.missing_cards and self.unread and self.rng.random() < 0.8:
                return inputs.EnterCard(**self.common(), card=self.unread.pop(0))
            if state.missing_cards and self.rng.random() < 0.3:
                return inputs.EnterCard(**self.common(), card=self.next_card())
            if self.rng.random() < 0.1 and state.round_id is not None:
                return inputs.VoidRound(**self.common(), round_id=state.round_id)
            if self.rng.random() < 0.05:
                return inputs.DroppedCard(**self.common(), read=False)
            return self.shoe_item()  # the dealer deals on: queued
        if state.unresolved_lost_frames and self.unread and self.rng.random() < 0.5:
            return inputs.EnterCard(**self.common(), card=self.unread.pop(0))
        if phase is Phase.BETWEEN_ROUNDS:
            if self.rng.random() < 0.05 and state.shoe_id is not None:
                return self.assessment(state.shoe_id)
            if self.rng.random() < 0.04 and self.settled:
                player, banker = self.coup_cards()
                return inputs.CorrectResult(**self.common(), round_id=self.some_round_id(),
                                            player=player, banker=banker)
            if self.rng.random() < 0.03 and self.settled:
                return inputs.VoidRound(**self.common(), round_id=self.some_round_id())
            if self.rng.random() < 0.04:
                return self.shoe_item()
            if state.betting_phase:
                return inputs.OpenBetting(**self.common())
            return inputs.Deal(**self.common()) if self.rng.random() < 0.6 else self.shoe_item()
        if phase is Phase.BETTING:
            if self.rng.random() < 0.04:
                return self.shoe_item()
            if self.rng.random() < 0.02 and state.round_id is not None:
                return inputs.VoidRound(**self.common(), round_id=state.round_id)
            return inputs.CloseBetting(**self.common())
        if phase is Phase.DEALING and self.rng.random() < 0.015:
            slips: list[Input] = [inputs.Misdeal(**self.common()),
                                  inputs.DroppedCard(**self.common(), read=True),
                                  inputs.DroppedCard(**self.common(), read=False)]
            return self.rng.choice(slips)
        return self.shoe_item()

    def assessment(self, shoe_id: str) -> inputs.RoundAssessed:
        self.at += 0.1
        count = self.machine.shoe_count()
        round_no = count.next_round_no if count is not None else 1
        offered = self.machine.variant.offered_on(round_no)
        offer = tuple(bet for bet in offered if self.rng.random() < 0.8)
        return inputs.RoundAssessed(
            at=self.at, shoe_id=shoe_id, round_no=round_no,
            alarms=(inputs.AssessmentAlarm(code="edge_positive",
                                           message="the player has the edge",
                                           details={"bet": "tie", "code": "overridden"}),)
            if self.rng.random() < 0.3 else (),
            offer=offer if self.rng.random() < 0.7 else None,
            suspended=tuple((bet, -0.01) for bet in offered if bet not in offer),
        )


def session(variant: str, betting: bool, seed: int, inputs: int) -> Iterator[dict[str, Any]]:
    """Play one table: per input, the input, its decisions, the state and the shoe count."""
    machine = TableProcedure(VARIANTS[variant], table_id="T07", betting_phase=betting)
    player = _Player(machine=machine, rng=random.Random(seed), stream=[], settled=[])
    for index in range(inputs):
        event = player.choose()
        try:
            decisions = machine.handle(event, origin=f"input {index}")
            bug = None
        except ProcedureBug as error:
            decisions, bug = list(error.decisions), str(error)
        for decision in decisions:
            if isinstance(decision, Publish) and isinstance(decision.payload, RoundSettled):
                assert player.settled is not None
                player.settled.append(decision.payload.round_id)
        count = machine.shoe_count()
        yield {
            "input": repr(event),
            "decisions": [decision_wire(decision) for decision in decisions],
            "bug": bug,
            "state": to_wire(machine.snapshot()),
            "expects_card": machine.expects_card,
            "shoe_count": None if count is None else to_wire(count),
        }


def every_session() -> Iterator[str]:
    """Every line of the fixture: one JSON object per input, the sessions one after another."""
    for variant, betting, seed, given in SESSIONS:
        for step in session(variant, betting, seed, given):
            yield json.dumps(step, separators=(",", ":"), sort_keys=True)


def main() -> None:
    FIXTURE.parent.mkdir(exist_ok=True)
    with gzip.open(FIXTURE, "wt", encoding="utf-8", compresslevel=9) as out:
        for line in every_session():
            out.write(line + "\n")


if __name__ == "__main__":
    main()
