# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Random whole shoes through the procedure, every result checked by an independent evaluation.

The evaluation is written here from game-rules.md sections 2-4; no code of
``table_controller.rules`` is used to decide what is expected.
"""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.contract.payloads.round import RoundSettled
from table_controller.procedure.decisions import Decision
from table_controller.procedure.inputs import (
    CardDrawn,
    CardMisread,
    CloseBetting,
    CutCardDrawn,
    EnterCard,
    Input,
    OpenBetting,
    ReaderCameBack,
    ReaderWentOffline,
    StartNewShoe,
)
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.cards import Card
from table_controller.rules.variants import VARIANTS
from tests.procedure.wire import payloads
from tests.procedure.wire import published as published_wire

RANKS = "A23456789TJQK"
SUITS = "SHDC"
F = Fraction


def point(card: str) -> int:
    rank = card[0]
    if rank == "A":
        return 1
    if rank.isdigit():
        return int(rank)
    return 0  # T, J, Q, K


def burn_count(card: str) -> int:
    return point(card) or 10


def coup_from(stream: list[str], start: int) -> tuple[list[str], list[str]]:
    """The hands the rules deal from the stream at ``start`` (independent if-chains)."""
    player, banker = [stream[start], stream[start + 2]], [stream[start + 1], stream[start + 3]]
    nxt = start + 4
    p_total = (point(player[0]) + point(player[1])) % 10
    b_total = (point(banker[0]) + point(banker[1])) % 10
    if p_total >= 8 or b_total >= 8:
        return player, banker
    if p_total <= 5:
        third = point(stream[nxt])
        player.append(stream[nxt])
        nxt += 1
        draws = (b_total <= 2 or (b_total == 3 and third != 8)
                 or (b_total == 4 and 2 <= third <= 7) or (b_total == 5 and 4 <= third <= 7)
                 or (b_total == 6 and third in (6, 7)))
        if draws:
            banker.append(stream[nxt])
    elif b_total <= 5:
        banker.append(stream[nxt])
    return player, banker


def windows(variant: str) -> dict[str, int | None]:
    """The last round of each bet's window (None: every round), from game-rules.md section 4."""
    main: dict[str, int | None] = {"player": None, "banker": None, "tie": None}
    hands = ("player", "banker")
    if variant == "commission":
        return main | {f"{h}_pair": 60 for h in hands} | {"big": 30, "small": 30} | {
            f"{h}_natural_{n}": 60 for h in hands for n in (8, 9)} | {"super_6_plus": 60}
    if variant == "super_six":
        return main | {f"{h}_pair": 60 for h in hands} | {"big": 30, "small": 30,
                                                          "super_six": None}
    if variant == "lucky":
        bets = main | {f"{h}_{c}": 40 for h in hands for c in ("red", "black")}
        bets |= {"lucky_6": 30} | {f"{h}_lucky_pair": 60 for h in hands}
        bets |= {f"{h}_wins_on_{g}": 40 for h in hands for g in ("123", "456", "789")}
        return bets | {f"tie_on_{g}": 40 for g in ("0123", "456", "789")}
    return main


def expected_settlement(  # noqa: C901 - one line per bet of the rule book
    variant: str, player: list[str], banker: list[str], round_no: int
) -> dict[str, Fraction | str]:
    pt = sum(point(c) for c in player) % 10
    bt = sum(point(c) for c in banker) % 10
    winner = "player" if pt > bt else "banker" if bt > pt else "tie"
    total = {"player": pt, "banker": bt}
    cards = {"player": player, "banker": banker}
    commission = variant in ("commission", "mini")

    def wins(condition: bool, pays: Fraction | int) -> Fraction:
        return F(pays) if condition else F(-1)

    def pair(hand: str) -> bool:
        return cards[hand][0][0] == cards[hand][1][0]

    def colour(hand: str, suits: str) -> bool:
        return cards[hand][0][1] in suits and cards[hand][1][1] in suits

    def natural(hand: str, value: int) -> bool:
        first_two = (point(cards[hand][0]) + point(cards[hand][1])) % 10
        return first_two == value  # a two-card 8 or 9 always stands: the hand keeps two cards

    def lucky_pair(hand: str) -> Fraction:
        if not pair(hand):
            return F(-1)
        four = cards[hand][0][0] == "4"
        diamonds = cards[hand][0][1] == cards[hand][1][1] == "D"
        return F(30 if four and diamonds else 15 if four else 12 if diamonds else 9)

    results: dict[str, Fraction] = {}
    results["player"] = F(0) if winner == "tie" else wins(winner == "player", 1)
    if winner == "tie":
        results["banker"] = F(0)
    elif winner != "banker":
        results["banker"] = F(-1)
    else:
        results["banker"] = F(19, 20) if commission else (F(1, 2) if bt == 6 else F(1))
    results["tie"] = wins(winner == "tie", 8)
    six = winner == "banker" and bt == 6
    results["super_six"] = wins(six, 12)
    results["super_6_plus"] = wins(six, 12 if len(banker) == 2 else 18)
    results["big"] = wins(len(player) + len(banker) >= 5, F(1, 2))
    results["small"] = wins(len(player) + len(banker) == 4, F(3, 2))
    results["lucky_6"] = wins((winner == "player" and pt == 6) or six
                              or (winner == "tie" and pt == 6), 6)
    groups = {"123": (1, 2, 3), "456": (4, 5, 6), "789": (7, 8, 9), "0123": (0, 1, 2, 3)}
    for hand in ("player", "banker"):
        results[f"{hand}_pair"] = wins(pair(hand), 11)
        results[f"{hand}_red"] = wins(colour(hand, "HD"), 2)
        results[f"{hand}_black"] = wins(colour(hand, "SC"), 2)
        results[f"{hand}_lucky_pair"] = lucky_pair(hand)
        for value in (8, 9):
            results[f"{hand}_natural_{value}"] = wins(natural(hand, value) and winner == hand, 8)
        pays = {"123": 31, "456": 8 if hand == "player" else 6, "789": 2}
        for group, pay in pays.items():
            results[f"{hand}_wins_on_{group}"] = wins(
                winner == hand and total[hand] in groups[group], pay)
    for group, pay in (("0123", 45), ("456", 24), ("789", 19)):
        results[f"tie_on_{group}"] = wins(winner == "tie" and pt in groups[group], pay)
    virtual = variant == "mini"
    return {
        bet: results[bet] if virtual or last is None or round_no <= last else "not_offered"
        for bet, last in windows(variant).items()
    }


class Player:
    """Feeds a machine, keeps every input and decision, optionally injecting repaired faults."""

    def __init__(self, variant: str, rng: random.Random, *, faults: bool) -> None:
        self.machine = TableProcedure(VARIANTS[variant], table_id="T07")
        self.rng = rng
        self.faults = faults
        self.inputs: list[Input] = []
        self.decisions: list[Decision] = []
        self.count = 0

    def feed(self, event: Input) -> list[Decision]:
        self.inputs.append(event)
        out = self.machine.handle(event)
        self.decisions.extend(out)
        return out

    def command(self, cls: type[OpenBetting | CloseBetting]) -> None:
        self.count += 1
        self.feed(cls(at=float(self.count), command_id=f"c{self.count}", operator="pit"))

    def card(self, code: str) -> list[Decision]:
        return self.feed(CardDrawn(at=0.0, card=Card.parse(code)))

    def deal(self, cards: list[str], cut_before: int | None) -> tuple[list[Decision], list[str]]:
        """Deal a round's cards, a cut card before index ``cut_before``.

        Returns the decisions and the cards entered by hand.
        """
        out: list[Decision] = []
        manual: list[str] = []
        misread = self.rng.randrange(len(cards)) if self.faults and self.rng.random() < 0.3 else -1
        delay = self.rng.randint(0, len(cards) - 1 - misread) if misread >= 0 else 0
        for index, code in enumerate(cards):
            if index == cut_before:
                out += self.feed(CutCardDrawn(at=0.0))
            if self.faults and self.rng.random() < 0.05:
                out += self.feed(ReaderWentOffline(at=0.0))
                out += self.feed(ReaderCameBack(at=0.0))
            if index == misread:
                out += self.feed(CardMisread(at=0.0))
            else:
                out += self.card(code)
            if misread >= 0 and index == misread + delay:
                self.count += 1
                out += self.feed(EnterCard(at=0.0, command_id=f"c{self.count}", operator="sup",
                                           card=Card.parse(cards[misread])))
                manual.append(cards[misread])
        return out, manual


def results_of(decisions: list[Decision], event_type: str) -> list[dict[str, object]]:
    return published_wire(decisions, event_type)


def play_cut_card_shoe(variant: str, seed: int, cut_from_end: int, *, faults: bool) -> Player:
    rng = random.Random(seed)
    stream = [rank + suit for _ in range(8) for rank in RANKS for suit in SUITS]
    rng.shuffle(stream)
    cut_at = len(stream) - cut_from_end
    table = Player(variant, random.Random(seed + 1), faults=faults)
    table.feed(StartNewShoe(at=0.0, command_id="new", operator="pit", shoe_id="S-9"))
    position = 1 + burn_count(stream[0])
    for code in stream[:position]:
        table.card(code)
    round_no = 0
    while True:
        if position == cut_at:
            out = table.feed(CutCardDrawn(at=0.0))
            assert [e["rounds"] for e in results_of(out, "shoe_ended")] == [round_no]
            return table
        round_no += 1
        table.command(OpenBetting)
        table.command(CloseBetting)
        player, banker = coup_from(stream, position)
        count = len(player) + len(banker)
        dealt = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
        assert dealt == stream[position:position + count]
        cut_inside = cut_at - position if position < cut_at < position + count else None
        out, manual = table.deal(dealt, cut_inside)
        position += count
        check_result(out, variant, player, banker, round_no, last=cut_inside is not None,
                     manual=manual)
        if cut_inside is not None:
            assert len(results_of(out, "shoe_ended")) == 1
            return table


def check_result(out: list[Decision], variant: str, player: list[str], banker: list[str],
                 round_no: int, *, last: bool, manual: list[str]) -> None:
    (result,) = results_of(out, "round_result")
    assert result["round_no"] == round_no
    assert result["player"] == {"cards": player, "total": sum(map(point, player)) % 10}
    assert result["banker"] == {"cards": banker, "total": sum(map(point, banker)) % 10}
    # exact: the typed payload keeps the Fractions the wire turns into numbers
    (settled,) = [p for p in payloads(out) if isinstance(p, RoundSettled)]
    assert settled.result.settlement == expected_settlement(variant, player, banker, round_no)
    assert result["settlement"] == {bet: value if isinstance(value, str) else float(value)
                                    for bet, value in settled.result.settlement.items()}
    assert result["last_round"] is last
    assert result["manual_cards"] == manual
    codes = {str(a["code"]) for a in results_of(out, "alarm")}
    assert codes <= {"misread", "reader_offline"}


@settings(max_examples=25, deadline=None)
@given(
    variant=st.sampled_from(["commission", "super_six", "lucky"]),
    seed=st.integers(0, 2**32 - 1),
    cut_from_end=st.integers(14, 120),
    faults=st.booleans(),
)
def test_random_shoes_settle_every_round_as_the_rules_say(
    variant: str, seed: int, cut_from_end: int, faults: bool
) -> None:
    table = play_cut_card_shoe(variant, seed, cut_from_end, faults=faults)
    # Replaying the same inputs gives the same decisions.
    again = TableProcedure(VARIANTS[variant], table_id="T07")
    assert [d for event in table.inputs for d in again.handle(event)] == table.decisions


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), faults=st.booleans())
def test_mini_rounds_from_fresh_shuffles_settle_as_the_rules_say(seed: int, faults: bool) -> None:
    rng = random.Random(seed)
    table = Player("mini", random.Random(seed + 1), faults=faults)
    table.feed(StartNewShoe(at=0.0, command_id="new", operator="pit", shoe_id="V-1"))
    for round_no in range(1, 41):
        stream = [rank + suit for _ in range(6) for rank in RANKS for suit in SUITS]
        rng.shuffle(stream)
        table.command(OpenBetting)
        table.command(CloseBetting)
        player, banker = coup_from(stream, 0)
        dealt = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
        out, manual = table.deal(dealt, None)
        check_result(out, "mini", player, banker, round_no, last=False, manual=manual)
