# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Each procedure of game-rules.md section 5 as a short input sequence with its expected events."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from table_controller.contract.codes import Phase
from table_controller.procedure import inputs
from table_controller.procedure.decisions import (
    Announce,
    CommandAccepted,
    CommandRefused,
    Decision,
    HoldTable,
    ResumeTable,
    SetLamp,
)
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.inputs import Input
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import input_from_record, input_to_record
from table_controller.procedure.states import ROUTES, Trigger
from table_controller.rules.cards import Card, all_cards, parse_cards
from table_controller.rules.tableau import next_hand
from table_controller.rules.variants import VARIANTS, Variant
from tests.procedure.wire import published, types, wire

# --- a small driver: inputs by name, decisions collected ----------------------------------------


def variant(name: str, **changes: Any) -> Variant:
    base = VARIANTS[name]
    return replace(base, **changes) if changes else base


class Script:
    """Feeds a machine with synthetic times; ``last`` holds the decisions of the last input."""

    def __init__(self, variant_: Variant | str = "commission", *, betting: bool = True) -> None:
        chosen = VARIANTS[variant_] if isinstance(variant_, str) else variant_
        self.machine = TableProcedure(chosen, table_id="T07", betting_phase=betting)
        self.now = 0.0
        self.commands = 0
        self.last: list[Decision] = []
        self.all: list[Decision] = []

    def feed(self, event: Input) -> list[Decision]:
        self.last = self.machine.handle(event)
        self.all.extend(self.last)
        return self.last

    def _at(self) -> float:
        self.now += 0.25
        return self.now

    def _common(self) -> dict[str, Any]:
        self.commands += 1
        return {"at": self._at(), "command_id": f"c-{self.commands}", "operator": "pit-12"}

    # shoe inputs
    def cards(self, text: str) -> list[Decision]:
        out: list[Decision] = []
        for card in parse_cards(text.split()):
            out += self.feed(inputs.CardDrawn(at=self._at(), card=card))
        self.last = out
        return out

    def misread(self) -> list[Decision]:
        return self.feed(inputs.CardMisread(at=self._at()))

    def cut(self) -> list[Decision]:
        return self.feed(inputs.CutCardDrawn(at=self._at()))

    def lost(self, count: int) -> list[Decision]:
        return self.feed(inputs.FramesLost(at=self._at(), count=count))

    def offline(self) -> list[Decision]:
        return self.feed(inputs.ReaderWentOffline(at=self._at()))

    def online(self) -> list[Decision]:
        return self.feed(inputs.ReaderCameBack(at=self._at()))

    # commands
    def new_shoe(self, shoe_id: str | None = "S-1") -> list[Decision]:
        return self.feed(inputs.StartNewShoe(**self._common(), shoe_id=shoe_id))

    def open(self) -> list[Decision]:
        return self.feed(inputs.OpenBetting(**self._common()))

    def close(self) -> list[Decision]:
        return self.feed(inputs.CloseBetting(**self._common()))

    def deal(self) -> list[Decision]:
        return self.feed(inputs.Deal(**self._common()))

    def misdeal(self) -> list[Decision]:
        return self.feed(inputs.Misdeal(**self._common()))

    def void_round(self, round_id: str) -> list[Decision]:
        return self.feed(inputs.VoidRound(**self._common(), round_id=round_id))

    def void_shoe(self) -> list[Decision]:
        return self.feed(inputs.VoidShoe(**self._common()))

    def manual(self, card: str) -> list[Decision]:
        return self.feed(inputs.EnterCard(**self._common(), card=Card.parse(card)))

    def correct(self, round_id: str, player: str, banker: str) -> list[Decision]:
        return self.feed(inputs.CorrectResult(**self._common(), round_id=round_id,
                                              player=parse_cards(player.split()),
                                              banker=parse_cards(banker.split())))

    def dropped(self, *, read: bool) -> list[Decision]:
        return self.feed(inputs.DroppedCard(**self._common(), read=read))

    # set-ups
    def ready(self, shoe_id: str = "S-1", burn: str = "AS 2C") -> Script:
        """A new shoe burned (by default: A face up, one card burned), ready for round 1."""
        self.new_shoe(shoe_id)
        if self.machine.variant.burn:
            self.cards(burn)
        return self

    def play(self, cards: str) -> list[Decision]:
        """One whole round: open and close the betting (if any), then the cards."""
        if self.machine.snapshot().state.betting_phase:
            self.open()
            self.close()
        return self.cards(cards)

    def phase(self) -> str:
        return self.machine.phase.value

    @property
    def state(self) -> dict[str, Any]:
        """The ``<root>/state`` payload as published."""
        return wire(self.machine.snapshot().state)


def one(decisions: Iterable[Decision], event_type: str) -> dict[str, Any]:
    found = published(decisions, event_type)
    assert len(found) == 1, f"expected one {event_type}, got {len(found)}: {types(decisions)}"
    return found[0]


def refusal(decisions: list[Decision]) -> CommandRefused:
    refused = [d for d in decisions if isinstance(d, CommandRefused)]
    assert len(refused) == 1, decisions
    assert not any(isinstance(d, CommandAccepted) for d in decisions)
    return refused[0]


def accepted(decisions: list[Decision]) -> bool:
    return any(isinstance(d, CommandAccepted) for d in decisions) and not any(
        isinstance(d, CommandRefused) for d in decisions
    )


def lamps(decisions: Iterable[Decision]) -> list[str]:
    return [d.lamp.value for d in decisions if isinstance(d, SetLamp)]


def prompts(decisions: Iterable[Decision]) -> list[str]:
    return [d.prompt.action.value for d in decisions if isinstance(d, Announce)]


def holds(decisions: Iterable[Decision]) -> list[str]:
    return [d.reason.value for d in decisions if isinstance(d, HoldTable)]


def shuffled_rounds(count: int, *, seed: int, decks: int = 8) -> list[str]:
    """``count`` whole coups cut from one seeded shuffled shoe, each as card text."""
    shoe = [card for _ in range(decks) for card in all_cards()]
    random.Random(seed).shuffle(shoe)
    rounds: list[str] = []
    position = 0
    for _ in range(count):
        points: list[int] = []
        start = position
        while next_hand(points) is not None:
            points.append(shoe[position].point)
            position += 1
        rounds.append(" ".join(card.code for card in shoe[start:position]))
    return rounds


#: P 4S KH 9D = 3, B 6C JD = 6: the Player draws a 9, the Banker stands on 6; Banker wins.
BANKER_WINS = "4S 6C KH JD 9D"
#: P 8H KS = natural 8, B 2C 3D = 5: both stand; Player wins.
PLAYER_NATURAL = "8H 2C KS 3D"
#: P 3H 4S = 7, B 3C 4D = 7: both stand; Tie.
TIE_SEVEN = "3H 3C 4S 4D"


# --- the ordinary round ------------------------------------------------------------------------


def test_a_round_prompts_every_step_and_settles_every_bet() -> None:
    table = Script("super_six").ready()
    assert prompts(table.open()) == []  # the open_betting prompt was shown after the burn
    assert types(table.last) == ["betting_opened"]
    assert lamps(table.close()) == ["PLAYER"]
    assert prompts(table.last) == ["deal"]
    assert lamps(table.cards("4S")) == ["BANKER"]
    assert lamps(table.cards("6C")) == ["PLAYER"]
    assert lamps(table.cards("KH")) == ["BANKER"]
    decisions = table.cards("JD")
    assert (lamps(decisions), prompts(decisions)) == (["PLAYER"], ["player_draws"])
    decisions = table.cards("9D")
    assert types(decisions) == ["card", "round_result", "roads", "prompt"]
    assert (lamps(decisions), prompts(decisions)) == (["STAND"], ["result"])
    result = one(decisions, "round_result")
    assert result["round_id"] == "S-1-1"
    assert result["player"] == {"cards": ["4S", "KH", "9D"], "total": 3}
    assert result["banker"] == {"cards": ["6C", "JD"], "total": 6}
    assert (result["winner"], result["cards_dealt"], result["natural"]) == ("banker", 5, False)
    assert result["settlement"] == {
        "player": -1, "banker": Fraction(1, 2), "tie": -1, "super_six": 12,
        "player_pair": -1, "banker_pair": -1, "big": Fraction(1, 2), "small": -1,
    }


def test_banker_draws_prompt_when_player_stands() -> None:
    table = Script().ready()
    table.open()
    table.close()
    decisions = table.cards("7S 2C KH 3D")  # P 7 stands, B 5 draws
    assert prompts(decisions)[-1] == "banker_draws"
    assert lamps(decisions)[-1] == "BANKER"
    assert one(table.cards("4H"), "round_result")["banker"]["total"] == 9


def test_side_bets_are_not_offered_outside_their_window() -> None:
    table = Script("super_six").ready(burn="AD 2D")
    for cards in shuffled_rounds(30, seed=30, decks=7):  # 7 decks: the burn never makes a foreign
        table.play(cards)
    result = one(table.play(PLAYER_NATURAL), "round_result")
    assert result["round_no"] == 31
    assert result["settlement"]["big"] == "not_offered"
    assert result["settlement"]["small"] == "not_offered"
    assert result["settlement"]["player_pair"] == -1


# --- 1. new shoe and burn ----------------------------------------------------------------------


@pytest.mark.parametrize(("first", "count"), [("AS", 1), ("7H", 7), ("TD", 10), ("KC", 10)])
def test_new_shoe_burns_as_many_cards_as_the_face_up_card_says(first: str, count: int) -> None:
    table = Script()
    decisions = table.new_shoe("S-1")
    assert types(decisions) == ["shoe_started", "roads", "prompt"]
    assert (prompts(decisions), lamps(decisions)) == (["burn"], ["PLAYER"])
    assert refusal(table.open()).code == "wrong_phase"
    burn = one(table.cards(first), "burn")
    assert (burn["first_card"], burn["count"], burn["done"]) == (first, count, False)
    assert published(table.last, "prompt")[0]["count"] == count
    burned = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC"][:count]
    for card in burned[:-1]:
        assert table.cards(card) == []
    done = one(table.cards(burned[-1]), "burn")
    assert (done["cards"], done["done"]) == (burned, True)
    assert (prompts(table.last), lamps(table.last)) == (["open_betting"], ["OFF"])
    assert table.state["cards_seen"] == count + 1
    assert accepted(table.open())


def test_mini_burns_nothing_and_deals_at_once() -> None:
    table = Script("mini")
    decisions = table.new_shoe("V-1")
    assert "burn" not in prompts(decisions)
    assert table.phase() == "between_rounds"
    assert one(table.open(), "betting_opened")["round_id"] == "V-1-1"


def test_a_shoe_id_is_numbered_when_not_given_and_never_reused() -> None:
    table = Script("mini")
    assert one(table.new_shoe(None), "shoe_started")["shoe_id"] == "T07-S0001"
    assert refusal(table.new_shoe("T07-S0001")).code == "invalid_shoe_id"
    assert refusal(table.new_shoe("has blank")).code == "invalid_shoe_id"
    assert one(table.new_shoe("T07-S0002"), "shoe_started")["shoe_id"] == "T07-S0002"
    assert one(table.new_shoe(None), "shoe_started")["shoe_id"] == "T07-S0003"


def test_a_misread_face_up_burn_card_is_entered_by_hand() -> None:
    table = Script()
    table.new_shoe()
    assert holds(table.misread()) == ["misread"]
    assert refusal(table.open()).code == "table_held"
    decisions = table.manual("3H")
    assert one(decisions, "burn")["count"] == 3
    table.cards("2D")
    table.misread()  # a burned card need not be read
    done = one(table.cards("4D"), "burn")
    assert done["cards"] == ["2D", None, "4D"]
    assert table.state["cards_seen"] == 4


# --- 2. cut card ---------------------------------------------------------------------------


def test_cut_card_during_a_round_makes_it_the_last() -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.cards("4S 6C")
    last = one(table.cut(), "last_round")
    assert (last["round_id"], last["cut_card"]) == ("S-1-1", "during_round")
    table.cards("KH JD")
    decisions = table.cards("9D")
    assert types(decisions) == ["card", "round_result", "roads", "shoe_ended", "prompt"]
    assert one(decisions, "round_result")["last_round"] is True
    assert (prompts(decisions), lamps(decisions)[-1]) == (["shoe_over"], "OFF")
    assert refusal(table.open()).code == "wrong_phase"


def test_cut_card_between_rounds_ends_the_shoe_at_once() -> None:
    table = Script().ready()
    table.play(TIE_SEVEN)
    decisions = table.cut()
    assert types(decisions) == ["last_round", "shoe_ended", "prompt"]
    assert one(decisions, "last_round")["round_id"] == "S-1-1"
    assert one(decisions, "shoe_ended")["rounds"] == 1


def test_cut_card_while_betting_voids_the_round_that_would_follow() -> None:
    table = Script().ready()
    table.play(TIE_SEVEN)
    table.open()
    decisions = table.cut()
    assert types(decisions) == ["last_round", "round_voided", "shoe_ended", "prompt"]
    assert one(decisions, "last_round")["round_id"] == "S-1-1"
    voided = one(decisions, "round_voided")
    assert (voided["round_id"], voided["reason"], voided["cards"]) == ("S-1-2", "after_last_round",
                                                                       [])


def test_cards_after_the_last_round_are_an_invalid_round() -> None:
    table = Script().ready()
    table.play(TIE_SEVEN)
    table.cut()
    decisions = table.cards("9H")
    assert types(decisions) == ["alarm", "round_voided"]
    assert one(decisions, "alarm")["code"] == "card_after_last_round"
    voided = one(decisions, "round_voided")
    assert (voided["round_id"], voided["reason"], voided["cards"]) == ("S-1-2", "after_last_round",
                                                                       ["9H"])
    again = table.cards("8H")
    assert types(again) == ["alarm"]
    assert one(again, "alarm")["round_id"] == "S-1-2"


def test_a_second_cut_card_and_mini_cut_cards_raise_an_alarm() -> None:
    table = Script().ready()
    table.play(TIE_SEVEN)
    table.cut()
    assert one(table.cut(), "alarm")["code"] == "unexpected_cut_card"
    mini = Script("mini").ready("V-1")
    assert one(mini.cut(), "alarm")["code"] == "unexpected_cut_card"
    assert mini.phase() == "between_rounds"


# --- 3. exposed card -------------------------------------------------------------------------


def test_exposed_card_during_betting_voids_the_round() -> None:
    table = Script().ready()
    table.open()
    decisions = table.cards("QD")
    assert one(decisions, "alarm")["code"] == "exposed_card"
    voided = one(decisions, "round_voided")
    assert (voided["round_id"], voided["reason"], voided["cards"]) == ("S-1-1", "exposed_card",
                                                                       ["QD"])
    assert published(decisions, "prompt")[0] == {
        "type": "prompt", "shoe_id": "S-1", "round_no": 2, "round_id": "S-1-2", "dealer": None,
        "action": "open_betting",
    }
    assert one(table.open(), "betting_opened")["round_id"] == "S-1-2"
    table.close()
    assert one(table.cards(TIE_SEVEN), "round_result")["round_no"] == 2


# --- 4. unnecessary card -----------------------------------------------------------------------


def test_unnecessary_card_after_a_result_changes_nothing() -> None:
    table = Script().ready()
    result = one(table.play(BANKER_WINS), "round_result")
    decisions = table.cards("5H")
    assert types(decisions) == ["alarm"]
    alarm = one(decisions, "alarm")
    assert (alarm["code"], alarm["round_id"], alarm["card"]) == ("unnecessary_card", "S-1-1", "5H")
    assert table.state["cards"] == {"player": result["player"]["cards"],
                                    "banker": result["banker"]["cards"]}
    assert one(table.play(TIE_SEVEN), "round_result")["round_no"] == 2


def test_without_betting_phase_the_next_card_starts_the_next_round() -> None:
    table = Script(betting=False).ready()
    assert refusal(table.open()).code == "no_betting_phase"
    assert (table.state["prompt"], table.state["lamp"]) == ({"action": "deal"}, "PLAYER")
    one(table.cards(BANKER_WINS), "round_result")
    assert table.state["lamp"] == "STAND"
    decisions = table.cards("3H")
    assert one(decisions, "card")["round_id"] == "S-1-2"
    assert prompts(decisions) == ["deal"]


def test_deal_command_on_tables_with_and_without_betting_phase() -> None:
    assert refusal(Script().ready().deal()).code == "betting_phase"
    table = Script("mini", betting=False).ready("V-1")
    table.play(TIE_SEVEN)
    assert accepted(table.deal())
    assert table.state["round_id"] == "V-1-2"
    assert refusal(table.deal()).code == "wrong_phase"


# --- 5. misread --------------------------------------------------------------------------------


def test_misread_holds_the_round_until_the_card_is_entered() -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.cards("4S")
    decisions = table.misread()
    assert one(decisions, "alarm")["code"] == "misread"
    assert (holds(decisions), lamps(decisions), prompts(decisions)) == (["misread"], ["HOLD"],
                                                                         ["hold"])
    assert table.phase() == "held"
    assert table.cards("KH JD") == []  # dealt past the hold: queued in order
    decisions = table.manual("6C")
    assert types(decisions)[:3] == ["card", "card", "card"]
    cards = published(decisions, "card")
    assert [(c["card"], c["manual"]) for c in cards] == [("6C", True), ("KH", False),
                                                         ("JD", False)]
    assert prompts(decisions) == ["player_draws"]
    result = one(table.cards("9D"), "round_result")
    assert result["banker"]["cards"] == ["6C", "JD"]
    assert result["manual_cards"] == ["6C"]


def test_manual_card_is_refused_when_nothing_is_missing() -> None:
    table = Script().ready()
    table.open()
    table.close()
    assert refusal(table.manual("6C")).code == "no_card_missing"


def test_a_round_held_by_a_misread_can_be_voided() -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.cards("4S")
    table.misread()
    table.cards("KH")
    decisions = table.void_round("S-1-1")
    voided = one(decisions, "round_voided")
    assert (voided["reason"], voided["cards"]) == ("misread", ["4S", "KH"])
    assert voided["operator"] == "pit-12"
    assert "ResumeTable" in [type(d).__name__ for d in decisions]
    assert table.phase() == "between_rounds"


def test_lost_frames_hold_until_the_missing_cards_are_entered() -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.cards("4S")
    decisions = table.lost(2)
    assert (one(decisions, "alarm")["code"], holds(decisions)) == ("lost_frames", ["lost_frames"])
    table.manual("6C")
    assert table.phase() == "held"
    table.manual("KH")
    assert table.phase() == "dealing"
    assert one(table.cards("JD 9D"), "round_result")["manual_cards"] == ["6C", "KH"]
    assert table.state["cards_seen"] == 2 + 5


def _coup_completed_with_a_lost_frame_left_over(table: Script) -> None:
    """P 4S 5D (a natural 9), B 5C and a card lost with one more: one entry completes it."""
    table.open()
    table.close()
    table.cards("4S 5C 5D")
    table.lost(2)
    table.manual("KH")


def test_a_lost_frame_the_coup_did_not_need_is_left_over_for_the_supervisor() -> None:
    table = Script().ready()
    _coup_completed_with_a_lost_frame_left_over(table)
    decisions = table.last
    assert one(decisions, "round_result")["manual_cards"] == ["KH"]
    left_over = one(decisions, "alarm")
    assert (left_over["code"], left_over["count"], left_over["round_id"]) == (
        "lost_frames_left_over", 1, "S-1-1")
    assert holds(decisions) == []
    assert (table.phase(), table.state["unresolved_lost_frames"]) == ("between_rounds", 1)
    assert table.state["cards_seen"] == 2 + 4

    decisions = table.manual("7H")  # the dealer drew a card for it: counted and discarded
    assert accepted(decisions)
    assert (one(decisions, "alarm")["code"], one(decisions, "alarm")["card"]) == (
        "unnecessary_card", "7H")
    assert types(decisions) == ["alarm"]
    assert (table.state["cards_seen"], table.state["unresolved_lost_frames"]) == (2 + 5, 0)
    assert refusal(table.manual("7D")).code == "no_card_missing"
    assert table.phase() == "between_rounds"


def test_left_over_lost_frames_were_not_cards_once_the_next_round_starts() -> None:
    table = Script().ready()
    _coup_completed_with_a_lost_frame_left_over(table)
    table.open()
    assert table.state["unresolved_lost_frames"] == 0
    assert refusal(table.manual("7H")).code == "wrong_phase"
    table.close()
    assert refusal(table.manual("7H")).code == "no_card_missing"
    assert table.state["cards_seen"] == 2 + 4


def test_a_left_over_card_entered_without_a_betting_phase_starts_no_round() -> None:
    table = Script(betting=False).ready()
    table.deal()
    table.cards("4S 5C 5D")
    table.lost(2)
    table.manual("KH")
    assert accepted(table.manual("7H"))
    assert (table.phase(), table.state["round_no"], table.state["cards_seen"]) == (
        "between_rounds", 1, 2 + 5)


def test_lost_frames_of_a_voided_round_are_left_over_and_a_new_shoe_forgets_them() -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.cards("4S")
    table.lost(1)
    decisions = table.void_round("S-1-1")
    assert types(decisions)[:2] == ["round_voided", "alarm"]
    assert one(decisions, "alarm")["code"] == "lost_frames_left_over"
    assert table.state["unresolved_lost_frames"] == 1
    assert accepted(table.manual("6C"))
    assert (table.state["cards_seen"], table.state["unresolved_lost_frames"]) == (2 + 2, 0)

    table.open()
    table.close()
    table.cards("4D")
    table.lost(1)
    table.void_round("S-1-2")
    assert table.state["unresolved_lost_frames"] == 1
    table.void_shoe()
    assert (table.phase(), table.state["unresolved_lost_frames"]) == ("shoe_over", 0)
    assert refusal(table.manual("6D")).code == "no_card_missing"


def test_a_left_over_card_that_would_be_foreign_is_refused() -> None:
    table = Script(variant("commission", decks=1))
    table.ready(burn="AS 2C")
    table.open()
    table.close()
    table.cards("2D 2H 2S")  # with the burn's 2C, every two of the one deck is out
    table.lost(2)
    table.manual("7C")  # player 2+2 = 4 draws, banker 2+7 = 9: a natural, the coup is done
    assert table.state["unresolved_lost_frames"] == 1
    assert refusal(table.manual("2C")).code == "foreign_card"
    assert table.state["unresolved_lost_frames"] == 1


def test_lost_frames_while_betting_only_raise_an_alarm() -> None:
    table = Script().ready()
    table.open()
    assert types(table.lost(1)) == ["alarm"]
    assert accepted(table.close())


def test_reader_offline_holds_and_queues_until_it_is_back() -> None:
    table = Script().ready()
    table.open()
    table.close()
    decisions = table.offline()
    assert (one(decisions, "alarm")["code"], holds(decisions)) == ("reader_offline",
                                                                   ["reader_offline"])
    assert table.cards("4S 6C") == []
    decisions = table.online()
    assert type(decisions[0]).__name__ == "ResumeTable"
    assert [c["card"] for c in published(decisions, "card")] == ["4S", "6C"]
    assert lamps(decisions) == ["PLAYER"]


# --- 6. dropped card -----------------------------------------------------------------------


def test_a_dropped_card_that_was_read_is_reused() -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.cards("4S 6C")
    decisions = table.dropped(read=True)
    assert accepted(decisions)
    assert types(decisions) == []
    assert one(table.cards("KH JD 9D"), "round_result")["winner"] == "banker"


def test_a_dropped_card_that_was_not_read_voids_the_round() -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.cards("4S 6C")
    decisions = table.dropped(read=False)
    voided = one(decisions, "round_voided")
    assert (voided["reason"], voided["cards"]) == ("dropped_card", ["4S", "6C"])
    assert prompts(decisions) == ["open_betting"]
    assert one(table.open(), "betting_opened")["round_no"] == 2


# --- 7. misdeal, void and correction ---------------------------------------------------------


def test_misdeal_voids_the_round_on_the_table() -> None:
    table = Script().ready()
    table.open()
    assert refusal(table.misdeal()).code == "wrong_phase"
    table.close()
    table.cards("4S 6C KH")
    voided = one(table.misdeal(), "round_voided")
    assert (voided["reason"], voided["cards"], voided["was_settled"]) == ("misdeal",
                                                                          ["4S", "6C", "KH"], False)


def test_a_settled_round_can_be_voided_once() -> None:
    table = Script().ready()
    table.play(BANKER_WINS)
    table.play(PLAYER_NATURAL)
    decisions = table.void_round("S-1-1")
    voided = one(decisions, "round_voided")
    assert (voided["reason"], voided["was_settled"]) == ("supervisor", True)
    assert voided["cards"] == BANKER_WINS.split()
    roads = one(decisions, "roads")
    assert roads["stats"]["rounds"] == 1
    assert [bead["winner"] for bead in roads["bead_plate"]] == ["P"]
    assert refusal(table.void_round("S-1-1")).code == "already_voided"
    assert refusal(table.void_round("S-1-9")).code == "unknown_round"


def test_a_correction_names_the_original_and_settles_again() -> None:
    table = Script().ready()
    table.play(BANKER_WINS)
    decisions = table.correct("S-1-1", "4S KH 9D", "6C JD")
    assert refusal(decisions).code == "unchanged"
    assert refusal(table.correct("S-1-1", "4S KH", "6C JD")).code == "invalid_coup"
    decisions = table.correct("S-1-1", "8S KH", "6C JD")
    corrected = one(decisions, "result_corrected")
    assert corrected["correction_no"] == 1
    assert corrected["original"]["player"] == {"cards": ["4S", "KH", "9D"], "total": 3}
    assert corrected["original"]["winner"] == "banker"
    assert (corrected["winner"], corrected["natural"]) == ("player", True)
    assert corrected["settlement"]["player"] == 1
    assert corrected["settlement"]["player_natural_8"] == 8
    assert [bead["winner"] for bead in one(decisions, "roads")["bead_plate"]] == ["P"]
    again = one(table.correct("S-1-1", "4S KH 9D", "6C JD"), "result_corrected")
    assert (again["correction_no"], again["original"]["winner"]) == (2, "player")


def test_a_correction_cannot_create_a_foreign_card() -> None:
    table = Script(variant("commission", decks=1)).ready(burn="AS 2C")
    table.play(BANKER_WINS)
    assert refusal(table.correct("S-1-1", "4S KH AS", "6C JD")).code == "foreign_card"


# --- 8. void shoe --------------------------------------------------------------------------


def test_void_shoe_voids_the_round_in_play_and_ends_the_shoe() -> None:
    table = Script().ready()
    table.play(TIE_SEVEN)
    table.open()
    table.close()
    table.cards("4S")
    decisions = table.void_shoe()
    assert types(decisions) == ["round_voided", "shoe_voided", "prompt"]
    assert one(decisions, "round_voided")["reason"] == "shoe_voided"
    assert one(decisions, "shoe_voided")["rounds_voided"] == ["S-1-2"]
    assert refusal(table.void_shoe()).code == "already_voided"
    assert one(table.cards("5S"), "alarm")["code"] == "card_after_last_round"
    assert accepted(table.new_shoe("S-2"))


def test_void_shoe_is_taken_after_the_shoe_ended() -> None:
    table = Script().ready()
    table.play(TIE_SEVEN)
    table.cut()
    assert one(table.void_shoe(), "shoe_voided")["rounds_voided"] == []


# --- 9. card accounting --------------------------------------------------------------------


def test_a_foreign_card_holds_the_table_until_the_shoe_is_voided() -> None:
    table = Script(variant("commission", decks=1)).ready(burn="AS 2C")
    table.open()
    table.close()
    decisions = table.cards("AS")
    alarm = one(decisions, "alarm")
    assert (alarm["code"], alarm["card"], alarm["seen"]) == ("foreign_card", "AS", 2)
    assert holds(decisions) == ["foreign_card"]
    assert "card" not in types(decisions)
    table.cards("3H")
    assert refusal(table.manual("4H")).code == "no_card_missing"
    table.misdeal()
    assert table.phase() == "held"
    assert refusal(table.open()).code == "table_held"
    decisions = table.void_shoe()
    assert "ResumeTable" in [type(d).__name__ for d in decisions]
    assert table.phase() == "shoe_over"


# --- 10. reshuffle every round (mini) -------------------------------------------------------------


def test_mini_counts_rounds_on_and_accounts_cards_per_round() -> None:
    table = Script("mini").ready("V-1")
    for number in range(1, 9):  # the same cards eight times: 6 decks, but a fresh shuffle each
        result = one(table.play(TIE_SEVEN), "round_result")
        assert result["round_id"] == f"V-1-{number}"
        assert table.state["cards_seen"] == 4
        assert "alarm" not in types(table.all)
    decisions = table.new_shoe("V-2")
    assert types(decisions)[:2] == ["shoe_ended", "shoe_started"]
    assert one(decisions, "shoe_ended")["reason"] == "new_shoe"
    assert one(table.play(TIE_SEVEN), "round_result")["round_id"] == "V-2-1"


def test_new_shoe_between_rounds_is_refused_on_a_cut_card_shoe() -> None:
    table = Script().ready()
    table.play(TIE_SEVEN)
    assert refusal(table.new_shoe("S-2")).code == "wrong_phase"


# --- snapshot, timers and faults ---------------------------------------------------------------


def test_snapshot_shows_the_round_in_play() -> None:
    table = Script("lucky").ready()
    table.open()
    table.close()
    table.cards("4S 6C KH")
    state = table.state
    assert state["variant"] == "lucky"
    assert (state["shoe_id"], state["round_no"], state["round_id"]) == ("S-1", 1, "S-1-1")
    assert state["phase"] == "dealing"
    assert state["prompt"] == {"action": "deal"}
    assert state["cards"] == {"player": ["4S", "KH"], "banker": ["6C"]}
    assert (state["cards_seen"], state["cards_left"]) == (5, 416 - 5)
    offered = state["bets_offered"]
    assert isinstance(offered, list)
    assert "lucky_6" in offered
    assert (state["last_round"], state["hold_reason"]) == (False, None)


def test_a_bug_leaves_the_machine_faulted() -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.machine._table.round = None  # break an invariant from outside, as a bug would
    with pytest.raises(ProcedureBug) as caught:
        table.cards("4S")
    assert holds(caught.value.decisions) == ["procedure_fault"]
    assert table.machine.phase is Phase.FAULTED
    assert refusal(table.open()).code == "faulted"
    assert table.cards("6C") == []


def test_a_bug_holds_the_table_naming_the_input_until_a_supervisor_voids_the_shoe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = Script().ready()
    table.open()
    table.close()
    table.cards("4S")

    def broken(*_args: object, **_kwargs: object) -> Phase:
        raise KeyError("7D")

    routes = ROUTES[Phase.DEALING]
    dealing = routes[Trigger.CARD]
    monkeypatch.setitem(routes, Trigger.CARD, replace(dealing, step=broken))  # a bug, as it were
    with pytest.raises(ProcedureBug) as caught:
        table.machine.handle(inputs.CardDrawn(at=9.0, card=Card.parse("7D")),
                             origin="journal row 42")
    fault = caught.value.decisions
    assert (holds(fault), lamps(fault), prompts(fault)) == (["procedure_fault"], ["HOLD"], ["hold"])
    alarm = one(fault, "alarm")
    assert alarm == {"type": "alarm", "shoe_id": "S-1", "round_no": 1, "round_id": "S-1-1",
                     "dealer": None, "alarm_id": "T07-A000001", "code": "procedure_fault",
                     "message": "journal row 42 (card 7D) could not be carried out: "
                                "KeyError: '7D'"}
    state = table.state
    assert (state["phase"], state["held_in"], state["holds"], state["lamp"]) == (
        "faulted", None, ["procedure_fault"], "HOLD")
    assert not table.machine.expects_card
    assert refusal(table.close()).code == "faulted"
    assert refusal(table.new_shoe("S-2")).code == "faulted"
    assert table.cards("6C") == []
    monkeypatch.setitem(routes, Trigger.CARD, dealing)  # the bug fixed: the way out needs it not
    decisions = table.feed(inputs.VoidShoe(**table._common(), supervisor="S-9"))
    assert accepted(decisions)
    # Who took the table out of its fault is named, as on any void.
    assert [one(decisions, kind)["supervisor"] for kind in ("round_voided", "shoe_voided")] == [
        "S-9", "S-9"]
    assert [type(d) for d in decisions if isinstance(d, HoldTable | ResumeTable)] == [ResumeTable]
    assert types(decisions) == ["round_voided", "shoe_voided", "prompt"]
    voided = one(decisions, "round_voided")
    assert (voided["round_id"], voided["reason"], voided["cards"]) == ("S-1-1", "shoe_voided",
                                                                       ["4S"])
    assert one(decisions, "shoe_voided")["rounds_voided"] == ["S-1-1"]
    assert (table.phase(), lamps(decisions), prompts(decisions)) == ("shoe_over", ["OFF"],
                                                                     ["shoe_over"])
    assert table.state["holds"] == []
    table.ready("S-2")
    assert one(table.play(BANKER_WINS), "round_result")["round_id"] == "S-2-1"


def test_a_runtime_failure_faults_the_table_and_replays_to_the_same_decisions() -> None:
    failed = inputs.RuntimeFailed(at=2.0,
                                  message="the card source could not draw after journal row 4: "
                                          "RuntimeError: the virtual shoe is empty")
    assert input_from_record(input_to_record(failed), default_at=0.0, default_command_id="",
                             default_operator="") == failed
    common = {"operator": "pit-12"}
    given: list[Input] = [
        inputs.StartNewShoe(at=0.0, command_id="c-1", shoe_id="S-1", **common),
        inputs.CardDrawn(at=0.5, card=Card.parse("AS")),
        inputs.CardDrawn(at=1.0, card=Card.parse("2C")),
        inputs.OpenBetting(at=1.5, command_id="c-2", **common),
        failed,
        inputs.CloseBetting(at=3.0, command_id="c-3", **common),
        failed,
        inputs.VoidShoe(at=4.0, command_id="c-4", **common),
        inputs.StartNewShoe(at=5.0, command_id="c-5", shoe_id="S-2", **common),
    ]
    runs = []
    for _ in range(2):
        machine = TableProcedure(VARIANTS["commission"], table_id="T07")
        runs.append(([machine.handle(event) for event in given], wire(machine.snapshot().state)))
    assert runs[0] == runs[1]
    decisions, state = runs[0]
    assert holds(decisions[4]) == ["procedure_fault"]
    assert one(decisions[4], "alarm")["message"] == failed.message
    assert refusal(decisions[5]).code == "faulted"
    assert holds(decisions[6]) == []  # a second failure: another alarm, the hold stands
    assert one(decisions[6], "alarm")["message"] == failed.message
    assert accepted(decisions[7])
    assert one(decisions[7], "shoe_voided")["rounds_voided"] == ["S-1-1"]
    assert accepted(decisions[8])
    assert (state["phase"], state["shoe_id"]) == ("burn_card", "S-2")


def test_the_runtime_faults_the_table_for_a_row_or_a_command_it_could_not_carry_out() -> None:
    table = Script("mini")
    decisions = table.machine.fault(None, origin="journal row 3",
                                    error="not an input: record version 2 is not 1")
    assert one(decisions, "alarm")["message"] == (
        "journal row 3 could not be carried out: not an input: record version 2 is not 1")
    assert table.phase() == "faulted"
    command = inputs.Deal(at=1.0, command_id="c-9", operator="pit-12")
    decisions = table.machine.fault(command, origin="journal row 4", error="ValueError: boom")
    assert refusal(decisions).code == "faulted"
    assert holds(decisions) == []
    assert one(decisions, "alarm")["message"] == (
        "journal row 4 (deal command c-9) could not be carried out: ValueError: boom")
    decisions = table.void_shoe()  # no shoe was started: nothing to void
    assert accepted(decisions)
    assert types(decisions) == ["prompt"]
    assert table.phase() == "no_shoe"
    assert accepted(table.new_shoe("M-1"))


@pytest.mark.parametrize("betting", [True, False], ids=["betting", "no_betting"])
@pytest.mark.parametrize("name", ["commission", "mini"])
def test_cards_are_expected_in_a_burn_or_a_started_round_only(name: str, *,
                                                              betting: bool) -> None:
    """Between rounds no card is expected: a virtual table draws none.

    A round starts with ``close_betting``, or ``deal`` without a betting phase, round 1 included.
    """
    table = Script(name, betting=betting)
    table.new_shoe()
    assert table.machine.expects_card is table.machine.variant.burn
    if table.machine.variant.burn:
        table.cards("AS 2C")
    for round_no in (1, 2, 3):
        assert not table.machine.expects_card
        if betting:
            table.open()
            assert not table.machine.expects_card
            table.close()
        else:
            table.deal()
        assert table.machine.expects_card
        assert table.state["round_no"] == round_no
        one(table.cards(BANKER_WINS), "round_result")
    assert not table.machine.expects_card
    other = table.deal() if betting else table.open()  # the other kind of table's command
    assert refusal(other).code == ("betting_phase" if betting else "no_betting_phase")
    assert not table.machine.expects_card
