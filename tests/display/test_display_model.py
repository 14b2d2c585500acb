# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The display's view model, pure: prompt words, hands, results, scoreboards on their grids."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.contract.codes import (
    AlarmCode,
    HoldReason,
    Phase,
    PromptAction,
    RefusalCode,
    VoidReason,
)
from table_controller.contract.envelope import fields_of, to_wire
from table_controller.contract.journal_refusal import JournalRefusal
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.contract.payloads.base import Payload
from table_controller.contract.payloads.controller import CommandReply
from table_controller.contract.payloads.pit import AlarmRaised
from table_controller.contract.payloads.round import BettingOpened, RoundSettled, RoundVoided
from table_controller.contract.payloads.shoe import ShoeStarted
from table_controller.contract.payloads.state import (
    BetLimits,
    CardsOnTable,
    DisputeFields,
    TableLimits,
    TableSnapshot,
)
from table_controller.history.pace import Pace
from table_controller.procedure import inputs
from table_controller.procedure.decisions import CommandRefused, Publish
from table_controller.procedure.inputs import Command, Input
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.cards import Card, hand_total
from table_controller.rules.roads import RoadEntry, Scoreboard, layout_grid
from table_controller.rules.tableau import Winner
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.interpreter import DecisionInterpreter
from table_controller.screens.dealer.limits import BET_NAMES, limits_view
from table_controller.screens.dealer.roads import roads_view
from table_controller.screens.dealer.texts import HOLD_REASONS
from table_controller.screens.dealer.view import (
    ACKNOWLEDGED_HOLDS,
    DISPLAY_COMMANDS,
    DisplayModel,
    commands_offered,
    hand_view,
    prompt_view,
)
from tests.display.display_harness import outgoing, shown
from tests.display.texts import in_words
from tests.support.composed import HOUSE_GAME, HOUSE_LIMITS
from tests.support.dealing import CUT, Step, dealer_inputs, seeded_shoe, step_of
from tests.support.snapshots import cards, roads_of, settled_round, snapshot

# --- the prompt in words ---------------------------------------------------------------


RESULT_7_TO_5: dict[str, Any] = {
    "round_no": 12,
    "winner": "banker",
    "player_total": 5,
    "banker_total": 7,
    "natural": False,
    "player_pair": False,
    "banker_pair": False,
}


@pytest.mark.parametrize(
    ("state", "result", "text", "tone"),
    [
        (snapshot(None, phase="no_shoe"), None, "NEW SHOE", "idle"),
        (snapshot("burn", phase="burn_card"), None, "BURN", "burn"),
        (snapshot("burn", phase="burning", count=7, burned=0), None, "BURN 7", "burn"),
        (snapshot("open_betting", phase="between_rounds"), None, "OPEN BETTING", "bet"),
        (snapshot("open_betting", phase="betting"), None, "BETTING OPEN", "bet"),
        (snapshot("deal"), None, "DEAL", "deal"),
        (snapshot("player_draws"), None, "PLAYER DRAWS", "player"),
        (snapshot("banker_draws"), None, "BANKER DRAWS", "banker"),
        (snapshot("result"), RESULT_7_TO_5, "Banker wins", "banker"),
        (
            snapshot("result"),
            RESULT_7_TO_5 | {"winner": "player", "player_total": 8, "banker_total": 2},
            "Player wins",
            "player",
        ),
        (
            snapshot("result"),
            RESULT_7_TO_5 | {"winner": "tie", "player_total": 6, "banker_total": 6},
            "Tie",
            "tie",
        ),
        (
            snapshot("hold", phase="held", reason=HoldReason.READER_OFFLINE),
            None,
            "HOLD",
            "hold",
        ),
        (snapshot("shoe_over", phase="shoe_over"), None, "SHOE OVER", "idle"),
        (snapshot(None, phase="faulted"), None, "HOLD", "hold"),
    ],
)
def test_the_prompt_in_words(
    state: TableSnapshot, result: dict[str, Any] | None, text: str, tone: str
) -> None:
    view = prompt_view(state, result)
    assert (in_words(view["text"]), view["tone"]) == (text, tone)


def test_the_prompt_names_keys_of_the_catalogues_never_words() -> None:
    view = prompt_view(snapshot("burn", phase="burning", count=7, burned=3), None)
    assert view["text"] == {"key": "display.prompt.burn_count", "args": {"count": 7}}
    assert view["detail"] == {
        "key": "display.prompt.burn_count.detail",
        "args": {"count": 7, "done": 3},
    }
    won = prompt_view(snapshot("result"), RESULT_7_TO_5)
    assert won["text"] == {"key": "game.winner.banker"}
    banker_first: Any = won["detail"]
    assert [note["args"]["side"] for note in banker_first] == [
        {"key": "game.banker"},
        {"key": "game.player"},
    ]
    assert in_words([won["text"], won["detail"]], "zh-Hans") == "庄赢 · 庄 7 · 闲 5"


def test_a_hold_says_why_and_a_burn_counts_down() -> None:
    for reason, words in HOLD_REASONS.items():
        held = snapshot("hold", phase="held", reason=reason)
        assert prompt_view(held, None)["detail"] == words
        assert words == {"key": f"display.hold.{reason.value}"}
    burning = snapshot("burn", phase="burning", cards_seen=4, count=7, burned=3)
    assert in_words(prompt_view(burning, None)["detail"]) == "Burn 7 face down: 3 of 7 done"


def test_a_journal_that_cannot_record_holds_the_page_says_why_and_offers_nothing() -> None:
    taking = dataclasses.replace(snapshot("player_draws"), taken=frozenset({"misdeal"}))
    model = DisplayModel(taking, variant=VARIANTS["commission"], staff=lambda: None)
    dealing: Any = model.table()
    assert dealing["journal"] == {"ok": True}
    assert dealing["commands"]
    full = JournalRefusal(
        cause="database or disk is full (SQLITE_FULL; 0 bytes free on its disk)", disk_full=True
    )
    shown: Any = model.journal(full)
    [(name, held)] = shown
    assert name == "table"
    assert in_words(held["prompt"]["text"]) == "HOLD"
    assert held["prompt"]["tone"] == "hold"
    assert in_words(held["prompt"]["detail"]) == (
        "DISK FULL: nothing can be recorded; call the technician"
    )
    assert held["commands"] == []  # nothing would be taken
    assert held["journal"] == {"ok": False, "disk_full": True, "cause": full.cause}
    assert model.view()["table"] == held  # a page that connects now sees the hold too
    failing = JournalRefusal(cause="disk I/O error (SQLITE_IOERR_WRITE)", disk_full=False)
    shown = model.journal(failing)
    assert in_words(shown[0][1]["prompt"]["detail"]).startswith("RECORDING FAILED")
    assert model.journal(None) == [("table", dealing)]


@pytest.mark.parametrize(
    ("result", "detail"),
    [
        (RESULT_7_TO_5, "Banker 7 · Player 5"),
        (
            RESULT_7_TO_5 | {"winner": "player", "player_total": 7, "banker_total": 1},
            "Player 7 · Banker 1",
        ),
        (
            RESULT_7_TO_5 | {"winner": "tie", "player_total": 6, "banker_total": 6},
            "Player 6 · Banker 6",
        ),
        (
            RESULT_7_TO_5 | {"natural": True, "banker_total": 9, "player_pair": True},
            "Banker 9 · Player 5 · Natural · Player pair",
        ),
    ],
)
def test_a_result_names_the_side_of_each_total_so_it_cannot_read_as_odds(
    result: dict[str, Any], detail: str
) -> None:
    view = prompt_view(snapshot("result"), result)
    assert not any(char.isdigit() for char in in_words(view["text"])), view
    assert in_words(view["detail"]) == detail


def test_a_result_of_another_round_is_not_shown_as_this_one() -> None:
    view = prompt_view(
        snapshot("result", cards=CardsOnTable(player=cards("9H"), banker=())),
        RESULT_7_TO_5 | {"round_no": 11},
    )
    assert view["text"] == {"key": "display.prompt.result"}
    assert in_words(view["detail"]) == "Player 9 · Banker \u2013"


def test_the_round_comes_from_the_prompt_event_when_there_is_one() -> None:
    view = prompt_view(snapshot("open_betting", phase="between_rounds"), None, 13)
    assert in_words(view["detail"]) == "Round 13 next"


def test_hands_show_their_totals_once_every_card_is_known() -> None:
    assert hand_view(cards("9H", "8D")) == {"cards": ["9H", "8D"], "total": 7}
    assert hand_view(cards("KS", "QC", "5D")) == {"cards": ["KS", "QC", "5D"], "total": 5}
    assert hand_view(()) == {"cards": [], "total": None}
    assert hand_view(cards(None, "9H")) == {"cards": [None, "9H"], "total": None}


# --- a whole shoe through the model --------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_the_model_follows_a_whole_shoe(seed: int) -> None:
    procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
    model = DisplayModel(procedure.snapshot(), variant=procedure.variant)
    interpreter = DecisionInterpreter(pace=Pace())
    results = 0
    for n, event in enumerate(dealer_inputs(procedure, iter(seeded_shoe(seed)))):
        decisions = procedure.handle(event)
        now = procedure.snapshot()
        page_events = shown(model, outgoing(interpreter, decisions, now, n), now)
        assert page_events[-1][0] == "table"
        table: Any = model.table()
        state: Any = fields_of(now.state)
        assert table["state"] == state
        prompt = state["prompt"]
        action = None if prompt is None else prompt["action"]
        words = in_words(table["prompt"]["text"])
        hands = table["hands"]
        cards = state["cards"]
        for hand in ("player", "banker"):
            codes = cards[hand]
            assert hands[hand]["cards"] == codes
            expected = hand_total(Card.parse(c).point for c in codes) if codes else None
            assert hands[hand]["total"] == expected
        published = [
            fields_of(d.payload)
            for d in decisions
            if isinstance(d, Publish) and isinstance(d.payload, RoundSettled)
        ]
        if action == "result":
            assert len(published) == 1
            result: Any = published[0]
            player, banker = result["player"]["total"], result["banker"]["total"]
            expected_words = {"banker": "Banker wins", "player": "Player wins", "tie": "Tie"}
            assert words == expected_words[result["winner"]]
            sides = ["banker", "player"] if result["winner"] == "banker" else ["player", "banker"]
            totals = {"player": player, "banker": banker}
            named = " · ".join(f"{side.title()} {totals[side]}" for side in sides)
            assert in_words(table["prompt"]["detail"]).startswith(named)
            results += 1
        elif action == "burn" and prompt.get("count") is not None:
            assert words == f"BURN {prompt['count']}"
        elif action in {"deal", "player_draws", "banker_draws", "shoe_over"}:
            assert words == str(action).replace("_", " ").upper()
    assert procedure.snapshot().state.phase is Phase.SHOE_OVER
    assert results > 50
    roads: Any = model.view()["roads"]
    assert isinstance(roads, dict)
    assert roads["stats"]["rounds"] == len(roads["bead_plate"]) > 50


# --- scoreboards on their grids ---------------------------------------------------------------

LETTER = {Winner.BANKER: "B", Winner.PLAYER: "P", Winner.TIE: "T"}


def board_of(winners: list[Winner]) -> Scoreboard:
    return Scoreboard.from_entries(
        RoadEntry(
            winner=w,
            player_pair=False,
            banker_pair=False,
            natural=False,
            player_total=0,
            banker_total=0,
        )
        for w in winners
    )


def test_a_long_run_turns_into_a_dragon_tail_along_the_bottom_row() -> None:
    winners = [Winner.BANKER] * 8 + [Winner.PLAYER] * 7
    view: Any = roads_view(roads_of(board_of(winners), cards_left=None))
    cells = [(c["x"], c["y"], c["winner"]) for c in view["big_road"]]
    banker = [(x, y) for x, y, w in cells if w == "B"]
    player = [(x, y) for x, y, w in cells if w == "P"]
    assert banker == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5), (2, 5)]
    # The next column starts beside the first and meets the tail a row higher.
    assert player == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)]
    assert view["width"]["big_road"] == 4


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(list(Winner)), max_size=90))
def test_every_scoreboard_is_laid_out_on_six_rows_without_collisions(
    winners: list[Winner],
) -> None:
    board = board_of(winners)
    roads = roads_of(board, cards_left=300)
    payload: Any = to_wire(roads)
    view: Any = roads_view(roads)
    beads = view["bead_plate"]
    assert [(b["x"], b["y"], b["winner"]) for b in beads] == [
        (i // 6, i % 6, LETTER[w]) for i, w in enumerate(winners)
    ]
    expected_big = [(x, y) for x, y, _ in layout_grid(board.big_road)]
    assert [(c["x"], c["y"]) for c in view["big_road"]] == expected_big
    for name in ("big_road", "big_eye_boy", "small_road", "cockroach_pig"):
        cells = [(c["x"], c["y"]) for c in view[name]]
        assert len(set(cells)) == len(cells)
        assert all(0 <= y < 6 and x >= 0 for x, y in cells)
        assert view["width"][name] == (max(x for x, _ in cells) + 1 if cells else 0)
        if name != "big_road":
            marks = [m for column in payload[name] for m in column]
            assert [c["colour"] for c in view[name]] == marks
    assert view["ask_banker"] == payload["ask_banker"]
    assert view["stats"] == payload["stats"]


# --- alarms and voids ------------------------------------------------------------------------


def message(payload: Payload) -> OutgoingMessage:
    return OutgoingMessage(key="1.0", payload=payload, ts="2026-11-29T12:34:56.789Z")


def test_alarms_and_voids_are_listed_newest_first_and_bounded() -> None:
    model = DisplayModel(snapshot(), variant=VARIANTS["commission"], alarm_limit=3)
    for n in range(5):
        alarm = AlarmRaised(
            dealer=None, alarm_id=f"T07-A{n + 1:06d}", code=AlarmCode.MISREAD, message=f"alarm {n}"
        )
        sent = model.apply(message(alarm))
        alarms: Any = model.view()["alarms"]
        assert sent == [("alarm", alarms[0])]
    voided = RoundVoided(
        shoe_id="S-1",
        round_no=4,
        round_id="S-1-4",
        reason=VoidReason.MISDEAL,
        cards=(),
        was_settled=False,
        operator="dealer",
        dealer=None,
        supervisor=None,
    )
    sent = model.apply(message(voided))
    alarms = model.view()["alarms"]
    assert isinstance(alarms, list)
    assert [in_words(a["text"]) for a in alarms] == [
        "Round 4 voided (misdeal)",
        "misread",
        "misread",
    ]
    assert [a.get("message") for a in alarms] == [None, "alarm 4", "alarm 3"]
    assert alarms[0]["text"]["args"]["reason"] == {"key": "display.void_reason.misdeal"}
    kind: Any = sent[0][1]
    assert kind["kind"] == "void"
    opened = BettingOpened(
        shoe_id="S-1", round_no=5, round_id="S-1-5", dealer=None, bets_offered=("player",)
    )
    assert model.apply(message(opened)) == []
    assert model.apply(message(CommandReply(id="9", ok=True))) == []


def test_a_new_shoe_forgets_the_last_result() -> None:
    model = DisplayModel(snapshot("result", round_no=3), variant=VARIANTS["commission"])
    won = settled_round(3, Winner.PLAYER, player=["5H", "2D", "AC"], banker=["2S", "QC", "KH"])
    model.apply(message(won))
    table: Any = model.table()
    assert (in_words(table["prompt"]["text"]), in_words(table["prompt"]["detail"])) == (
        "Player wins",
        "Player 8 · Banker 2",
    )
    assert table["last_result"]["round_no"] == 3
    started = ShoeStarted(
        shoe_id="S-2",
        variant="commission",
        decks=8,
        burn=True,
        reshuffle=VARIANTS["commission"].reshuffle,
        betting_phase=True,
        operator="dealer",
        dealer=None,
    )
    model.apply(message(started))
    assert model.table()["last_result"] is None


# --- the controls the table takes ----------------------------------------------------------

#: Refusals that come from the kind of table, its phase or a hold, whatever the command names.
ALWAYS_REFUSED = frozenset(
    {
        RefusalCode.WRONG_PHASE,
        RefusalCode.TABLE_HELD,
        RefusalCode.NO_BETTING_PHASE,
        RefusalCode.BETTING_PHASE,
        RefusalCode.NO_CARD_MISSING,
        RefusalCode.FAULTED,
        RefusalCode.DISPUTE_OPEN,
        RefusalCode.NO_SUCH_DISPUTE,
        RefusalCode.NOTHING_TO_ACKNOWLEDGE,
        RefusalCode.NOTHING_TO_CONFIRM,
        RefusalCode.RESULT_UNCONFIRMED,
    }
)


def as_the_display_sends(  # noqa: PLR0911, C901 - one case per button
    command: str, state: dict[str, Any], card: Card
) -> Command:
    """The command a display button sends in ``state`` (the round it names, a card typed in).

    A void or a correction names the round the supervisor's panel fills in: the one whose
    result waits, else the round shown; a dispute that round; a resolution the open dispute.
    """
    common: dict[str, Any] = {"at": 0.0, "command_id": "display-1", "operator": "display"}
    round_id = str(state["unconfirmed_round_id"] or state["round_id"])
    holds = [hold for hold in state["holds"] if hold in ACKNOWLEDGED_HOLDS]
    match command:
        case "void_round":
            return inputs.VoidRound(**common, round_id=round_id)
        case "correct_result":
            return inputs.CorrectResult(**common, round_id=round_id, player=(card, card),
                                        banker=(card, card))  # fmt: skip
        case "manual_card":
            return inputs.EnterCard(**common, card=card)
        case "dropped_card":
            return inputs.DroppedCard(**common, read=False)
        case "confirm_result":
            return inputs.ConfirmResult(**common, round_id=round_id, agrees=True)
        case "dispute":
            return inputs.OpenDispute(
                **common, reason="a patron's complaint", round_ids=(round_id,)
            )
        case "resolve_dispute":
            dispute = state["dispute"] or {"dispute_id": "T07-D0000"}
            return inputs.ResolveDispute(
                **common, dispute_id=dispute["dispute_id"], outcome="upheld"
            )
        case "acknowledge":
            return inputs.Acknowledge(**common, alarm=holds[0] if holds else "software_modified")
        case "acknowledge_alarm":  # each open alarm's button names it: the newest one's
            alarms = state["open_alarms"] or [{"alarm_id": "T07-A000000"}]
            return inputs.AcknowledgeAlarm(**common, alarm_id=alarms[0]["alarm_id"])
        case "set_limits":
            stake = BetLimits(min=Fraction(10), max=Fraction(1000))
            return inputs.SetLimits(**common, limits={"banker": stake})
        case _:
            plain: dict[str, type[Command]] = {
                "new_shoe": inputs.StartNewShoe,
                "open_betting": inputs.OpenBetting,
                "close_betting": inputs.CloseBetting,
                "deal": inputs.Deal,
                "misdeal": inputs.Misdeal,
                "void_shoe": inputs.VoidShoe,
                "call_supervisor": inputs.CallSupervisor,
            }
            return plain[command](**common)


def refusal(procedure: TableProcedure, command: Command) -> RefusalCode | None:
    """How a copy of ``procedure`` answers ``command``: None if it takes it.

    The copy shares the variant, which is immutable: copying its rule tables would cost four
    times the rest of the table.
    """
    variant = procedure.variant
    asked = copy.deepcopy(procedure, {id(variant): variant})
    answer = [d for d in asked.handle(command) if isinstance(d, CommandRefused)]
    return answer[0].code if answer else None


def a_busy_table(procedure: TableProcedure, seed: int, steps: int) -> Iterator[Input]:
    """A dealer who mostly follows the prompts, with misreads, outages and wrong commands."""
    rng = random.Random(seed)
    shoe = iter(seeded_shoe(seed))
    for n in range(steps):
        state: Any = fields_of(procedure.snapshot().state)
        common: dict[str, Any] = {"at": 0.0, "operator": "dealer", "command_id": f"c-{n}"}
        roll = rng.random()
        if state["missing_cards"] and roll < 0.5:
            yield inputs.EnterCard(**common, card=Card.parse(next(c for c in shoe if c != CUT)))
        elif roll < 0.04:
            yield inputs.CardMisread(at=0.0)
        elif roll < 0.06:
            yield inputs.ReaderWentOffline(at=0.0)
        elif roll < 0.12:
            yield inputs.ReaderCameBack(at=0.0)
        elif roll < 0.125:
            yield inputs.SoftwareModified(at=0.0, message="the installed files differ")
        elif roll < 0.2:
            command = rng.choice(list(DISPLAY_COMMANDS))
            yield as_the_display_sends(command, state, Card.parse("9H"))
        else:
            yield as_prompted(state, shoe, common, deal=roll > 0.6, agrees=roll > 0.3)


def as_prompted(
    state: Any, shoe: Iterator[str], common: dict[str, Any], *, deal: bool, agrees: bool
) -> Input:
    """What the prompt asks for; without a betting phase, a card or ``deal`` starts a round.

    A result that waits for its confirmation is confirmed, or said to differ (``agrees``).
    """
    prompt = (state["prompt"] or {}).get("action")
    if prompt == "confirm_result":
        return inputs.ConfirmResult(**common, round_id=state["unconfirmed_round_id"], agrees=agrees)
    if prompt in {"burn", "deal", "player_draws", "banker_draws"} or (
        prompt in {"open_betting", "result"} and not state["betting_phase"] and not deal
    ):
        code = next(shoe)
        return (
            inputs.CutCardDrawn(at=0.0)
            if code == CUT
            else inputs.CardDrawn(at=0.0, card=Card.parse(code))
        )
    if prompt in {"open_betting", "result"} and state["betting_phase"]:
        return (inputs.CloseBetting if state["phase"] == "betting" else inputs.OpenBetting)(
            **common
        )
    if prompt in {"open_betting", "result"}:
        return inputs.Deal(**common)
    return inputs.StartNewShoe(**common)


@pytest.mark.parametrize(
    ("variant", "betting_phase", "virtual", "confirm_results"),
    [
        *(
            (variant, betting_phase, virtual, False)
            for variant in ("commission", "mini")
            for betting_phase in (True, False)
            for virtual in (True, False)
        ),
        ("commission", True, False, True),
        ("mini", False, True, True),
    ],
)
def test_the_display_offers_exactly_the_commands_the_table_takes(
    variant: str, betting_phase: bool, virtual: bool, confirm_results: bool
) -> None:
    procedure = TableProcedure(
        VARIANTS[variant],
        table_id="T07",
        betting_phase=betting_phase,
        confirm_results=confirm_results,
    )
    seen: dict[str, int] = {}
    checked: set[tuple[object, ...]] = set()
    for event in a_busy_table(procedure, seed=11, steps=400):
        procedure.handle(event)
        now = procedure.snapshot()
        state: Any = fields_of(now.state)
        offered = commands_offered(now, virtual=virtual)
        # Each kind of situation once: asking a copy of the table costs a deep copy.
        situation = (
            state["phase"],
            state["held_in"],
            str(state["prompt"]),
            state["missing_cards"],
            state["round_id"] is None,
            state["last_round"],
            tuple(state["holds"]),
            state["dispute"] is None,
            state["unconfirmed_round_id"] is None,
            *offered,
        )
        if situation in checked:
            continue
        checked.add(situation)
        for command in DISPLAY_COMMANDS:
            answer = refusal(procedure, as_the_display_sends(command, state, Card.parse("9H")))
            if command in offered:
                seen[command] = seen.get(command, 0) + 1
                assert answer not in ALWAYS_REFUSED, (command, state, answer)
            elif command == "deal" and not virtual and not betting_phase:
                pass  # a reader table is dealt by the dealer: its first card starts the round
            else:
                assert answer is not None, (command, state)
    expected = set(DISPLAY_COMMANDS) - {"deal" if betting_phase or not virtual else ""}
    if not betting_phase:
        expected -= {"open_betting", "close_betting"}
    if not confirm_results:
        expected -= {"confirm_result"}
    assert set(seen) == expected, seen


def dealt(rounds: int, *, betting_phase: bool = True, confirm_results: bool = False,
          variant: str = "commission") -> TableProcedure:
    """A table with shoe ``S-1`` burned and ``rounds`` rounds dealt, as its prompts ask.

    Every result that waits for its confirmation is confirmed, but the last round's.
    """
    procedure = TableProcedure(VARIANTS[variant], table_id="T07", betting_phase=betting_phase,
                               confirm_results=confirm_results)
    shoe = iter(seeded_shoe(3))
    ids = itertools.count()

    def command(kind: type[Command], **args: Any) -> Command:
        return kind(at=0.0, command_id=f"d-{next(ids)}", operator="dealer", **args)

    procedure.handle(command(inputs.StartNewShoe, shoe_id="S-1"))
    last = f"S-1-{rounds}"
    while True:
        now = procedure.snapshot()
        state = now.state
        action = None if state.prompt is None else state.prompt.action
        done = action in {PromptAction.RESULT, PromptAction.CONFIRM_RESULT}
        burned = rounds == 0 and state.phase is Phase.BETWEEN_ROUNDS
        if burned or (state.round_id == last and done):
            return procedure
        if state.unconfirmed_round_id is not None:
            procedure.handle(command(inputs.ConfirmResult, round_id=state.unconfirmed_round_id,
                                     agrees=True))
        elif step_of(now) is Step.BETTING and betting_phase:
            procedure.handle(command(inputs.OpenBetting))
            procedure.handle(command(inputs.CloseBetting))
        else:  # a card the lamp asks for, or (no betting phase) the next round's first
            code = next(shoe)
            procedure.handle(inputs.CutCardDrawn(at=0.0) if code == CUT
                             else inputs.CardDrawn(at=0.0, card=Card.parse(code)))


def after(procedure: TableProcedure, *events: Input) -> TableSnapshot:
    """The snapshot of ``procedure`` once it has taken ``events``."""
    for event in events:
        procedure.handle(event)
    return procedure.snapshot()


def test_a_reader_table_never_offers_deal_and_a_virtual_one_only_between_rounds() -> None:
    between = dealt(3, betting_phase=False).snapshot()
    assert (between.state.phase, between.state.missing_cards) == (Phase.BETWEEN_ROUNDS, 0)
    assert "deal" not in commands_offered(between, virtual=False)
    assert "deal" in commands_offered(between, virtual=True)
    betting = dealt(3).snapshot()
    assert "deal" not in commands_offered(betting, virtual=True)
    common: dict[str, Any] = {"at": 0.0, "command_id": "x", "operator": "dealer"}
    dealing = after(dealt(3, betting_phase=False), inputs.Deal(**common))
    assert dealing.state.phase is Phase.DEALING
    assert "deal" not in commands_offered(dealing, virtual=True)
    held = after(dealt(3, betting_phase=False), inputs.ReaderWentOffline(at=0.0))
    assert held.state.held_in is Phase.BETWEEN_ROUNDS
    assert "deal" not in commands_offered(held, virtual=True)


def test_the_table_view_carries_the_commands_offered() -> None:
    procedure = TableProcedure(VARIANTS["commission"], table_id="T07", betting_phase=False)
    model = DisplayModel(procedure.snapshot(), variant=procedure.variant, virtual=True)
    table: Any = model.table()
    assert table["commands"] == ["new_shoe", "set_limits", "call_supervisor"]


@pytest.mark.parametrize(("cards", "held"), [(0, False), (14, False), (20, True)])
def test_a_faulted_table_offers_the_void_shoe_that_releases_it_and_a_dispute(
    cards: int, held: bool
) -> None:
    procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
    dealt = dealer_inputs(procedure, iter(seeded_shoe(3)))
    for _ in range(cards):
        procedure.handle(next(dealt))
    if held:
        procedure.handle(inputs.ReaderWentOffline(at=0.0))
    procedure.fault(None, origin="journal row 9", error="RuntimeError: the virtual shoe is empty")
    now = procedure.snapshot()
    state: Any = fields_of(now.state)
    assert state["phase"] == "faulted"
    offered = commands_offered(now, virtual=True)
    # and the fault's alarm, open until a supervisor acknowledges it
    expected = ["void_shoe", "dispute"] if state["shoe_id"] else ["void_shoe"]
    assert offered == [*expected, "acknowledge_alarm", "call_supervisor"]
    assert refusal(procedure, as_the_display_sends("void_shoe", state, Card.parse("9H"))) is None


# --- the integrity screens: second source, disputes, acknowledged holds ----------------------


def test_a_result_waiting_for_the_dealer_offers_the_confirmation_and_starts_nothing() -> None:
    waiting = dealt(12, confirm_results=True).snapshot()
    offered = commands_offered(waiting, virtual=False)
    assert "confirm_result" in offered
    assert not {"new_shoe", "open_betting", "close_betting", "deal"} & set(offered)
    prompt = prompt_view(waiting, None)
    assert (in_words(prompt["text"]), prompt["tone"]) == ("CONFIRM RESULT", "confirm")
    view: Any = DisplayModel(waiting, variant=VARIANTS["commission"]).table()
    assert view["oversight"]["round_id"] == view["oversight"]["unconfirmed_round_id"] == "S-1-12"


def test_once_the_cards_differ_a_supervisor_settles_the_round_and_may_acknowledge() -> None:
    common: dict[str, Any] = {"at": 0.0, "command_id": "x", "operator": "dealer"}
    differ = inputs.ConfirmResult(**common, round_id="S-1-12", agrees=False)
    rejected = after(dealt(12, confirm_results=True), differ)
    assert (rejected.state.held_in, rejected.state.holds) == (
        Phase.BETWEEN_ROUNDS, (HoldReason.RESULT_NOT_CONFIRMED,))
    offered = commands_offered(rejected, virtual=False)
    assert "confirm_result" not in offered
    assert {"void_round", "correct_result", "acknowledge"} <= set(offered)
    view: Any = DisplayModel(rejected, variant=VARIANTS["commission"]).table()
    assert view["oversight"]["acknowledge"] == ["result_not_confirmed"]
    assert view["oversight"]["round_id"] == "S-1-12"


def test_an_open_dispute_is_shown_with_who_opened_it_and_offers_only_its_resolution() -> None:
    class Register:
        def get(self, staff_id: str) -> Any:
            return type("Member", (), {"id": staff_id, "name": "Ana Ruiz"})()

    dispute = DisputeFields(
        dispute_id="T07-D0002",
        reason="seat 3: wrong payout",
        round_ids=("S-1-10", "S-1-11"),
        supervisor="S-9",
    )
    supervisor: dict[str, Any] = {"at": 0.0, "operator": "S-9", "supervisor": "S-9"}
    table = dealt(11)
    held = after(
        table,
        inputs.OpenDispute(**supervisor, command_id="x-1", reason="a patron's complaint",
                           round_ids=("S-1-1",)),
        inputs.ResolveDispute(**supervisor, command_id="x-2", dispute_id="T07-D0001",
                              outcome="upheld"),
        inputs.OpenDispute(**supervisor, command_id="x-3", reason=dispute.reason,
                           round_ids=dispute.round_ids),
    )
    assert (held.state.dispute, held.state.held_in) == (dispute, Phase.BETWEEN_ROUNDS)
    offered = commands_offered(held, virtual=False)
    assert "resolve_dispute" in offered
    assert "dispute" not in offered
    view: Any = DisplayModel(held, variant=VARIANTS["commission"], staff=Register).table()
    shown = view["oversight"]["dispute"]
    assert shown["text"] == {"key": "display.dispute.title", "args": {"dispute_id": "T07-D0002"}}
    assert in_words(shown["detail"]) == (
        "seat 3: wrong payout · rounds S-1-10, S-1-11 · opened by Ana Ruiz"
    )
    assert shown["supervisor"] == {"id": "S-9", "name": "Ana Ruiz"}
    assert view["oversight"]["acknowledge"] == []
    assert prompt_view(held, None)["detail"] == HOLD_REASONS[HoldReason.DISPUTE]
    resolved = inputs.ResolveDispute(**supervisor, command_id="x-4", dispute_id="T07-D0002",
                                     outcome="dismissed")
    open_again = after(table, resolved)
    assert open_again.state.phase is Phase.BETWEEN_ROUNDS
    assert "dispute" in commands_offered(open_again, virtual=False)
    assert "resolve_dispute" not in commands_offered(open_again, virtual=False)
    no_shoe = TableProcedure(VARIANTS["commission"], table_id="T07").snapshot()
    assert no_shoe.state.shoe_id is None
    assert "dispute" not in commands_offered(no_shoe, virtual=False)


def test_modified_software_is_acknowledged_whatever_the_phase() -> None:
    common: dict[str, Any] = {"at": 0.0, "command_id": "x", "operator": "dealer"}
    tables = {
        "no_shoe": (TableProcedure(VARIANTS["commission"], table_id="T07"), ()),
        "between_rounds": (dealt(1), ()),
        "dealing": (dealt(1), (inputs.OpenBetting(**common), inputs.CloseBetting(**common))),
    }
    for phase, (table, events) in tables.items():
        modified = inputs.SoftwareModified(at=0.0, message="the installed files differ")
        held = after(table, *events, modified)
        assert (held.state.held_in, held.state.holds) == (
            Phase(phase), (HoldReason.SOFTWARE_MODIFIED,))
        assert "acknowledge" in commands_offered(held, virtual=False)
        view: Any = DisplayModel(held, variant=VARIANTS["commission"]).table()
        assert view["oversight"]["acknowledge"] == ["software_modified"]


def test_open_alarms_are_offered_to_the_supervisor_until_acknowledged() -> None:
    procedure = dealt(3)
    misread = after(procedure, inputs.OpenBetting(at=0.0, command_id="o", operator="dealer"),
                    inputs.CloseBetting(at=0.0, command_id="c", operator="dealer"),
                    inputs.CardMisread(at=0.0))
    assert "acknowledge_alarm" in commands_offered(misread, virtual=False)
    model = DisplayModel(misread, variant=VARIANTS["commission"])
    view: Any = model.table()
    (alarm,) = view["oversight"]["alarms"]
    assert (alarm["alarm_id"], alarm["code"], alarm["round_id"]) == (
        "T07-A000001", "misread", "S-1-4")
    assert in_words(alarm["text"]) == "misread"
    assert view["oversight"]["open_alarms"] == 1
    interpreter = DecisionInterpreter()
    raised = AlarmRaised(shoe_id="S-1", round_no=4, round_id="S-1-4", dealer=None,
                         alarm_id="T07-A000001", code=AlarmCode.MISREAD, message="unread")
    line: Any = model.apply(message(raised))[0][1]
    assert line["alarm_id"] == "T07-A000001"  # the page marks the line while it is open
    supervisor: dict[str, Any] = {"at": 0.0, "operator": "S-9", "supervisor": "S-9"}
    done = procedure.handle(inputs.AcknowledgeAlarm(**supervisor, command_id="a",
                                                    alarm_id="T07-A000001"))
    acknowledged = procedure.snapshot()
    model.show(acknowledged)
    after_view: Any = model.table()
    assert (after_view["oversight"]["alarms"], after_view["oversight"]["open_alarms"]) == ([], 0)
    assert "acknowledge_alarm" not in after_view["commands"]
    assert acknowledged.state.holds == (HoldReason.MISREAD,)  # the hold is the alarm's own
    outcome = interpreter.interpret(done, acknowledged, key="1", ts=None)
    assert "alarm_acknowledged" in [m.event_type for m in outcome.messages]


def test_the_dealer_calls_a_supervisor_once_until_the_call_is_acknowledged() -> None:
    dealer: dict[str, Any] = {"at": 0.0, "operator": "display"}
    procedure = dealt(2)
    dealing = after(procedure, inputs.OpenBetting(**dealer, command_id="o"),
                    inputs.CloseBetting(**dealer, command_id="c"))
    assert "call_supervisor" in commands_offered(dealing, virtual=False)
    called = after(procedure, inputs.CallSupervisor(**dealer, command_id="k"))
    assert called.state.phase is Phase.DEALING  # the call holds nothing
    assert "call_supervisor" not in commands_offered(called, virtual=False)
    model = DisplayModel(called, variant=VARIANTS["commission"])
    view: Any = model.table()
    (alarm,) = view["oversight"]["alarms"]
    assert (alarm["alarm_id"], alarm["code"], alarm["round_id"]) == (
        "T07-A000001", "supervisor_called", "S-1-3")
    assert in_words(alarm["text"]) == "supervisor called"
    raised = AlarmRaised(shoe_id="S-1", round_no=3, round_id="S-1-3", dealer=None,
                         alarm_id="T07-A000001", code=AlarmCode.SUPERVISOR_CALLED,
                         message="a supervisor is called to the table (by display)")
    line: Any = model.apply(message(raised))[0][1]
    assert (in_words(line["text"]), line["alarm_id"]) == ("supervisor called", "T07-A000001")
    supervisor: dict[str, Any] = {"at": 0.0, "operator": "S-9", "supervisor": "S-9"}
    acknowledged = after(procedure, inputs.AcknowledgeAlarm(**supervisor, command_id="a",
                                                            alarm_id="T07-A000001"))
    assert "call_supervisor" in commands_offered(acknowledged, virtual=False)


def test_limits_show_at_once_with_the_main_bets_range_and_every_bet_offered() -> None:
    model = DisplayModel(snapshot(), variant=VARIANTS["commission"])
    before: Any = model.table()["limits"]
    assert before["main"] is None
    assert all(bet["min"] is None and bet["max"] is None for bet in before["bets"])
    limits = TableLimits(
        currency="MOP",
        limits={
            "banker": BetLimits(min=Fraction(200), max=Fraction(20000)),
            "tie": BetLimits(min=Fraction(21, 2), max=Fraction(1000)),
            "player_pair": BetLimits(min=Fraction(10), max=Fraction(500)),
        },
    )
    sent = model.apply(message(limits))
    assert sent == [("table", model.table())]
    view: Any = model.table()["limits"]
    assert view["currency"] == "MOP"
    assert view["main"] == {"min": 10.5, "max": 20000}  # the side bet's are not the table's
    assert [bet["bet"] for bet in view["bets"]] == list(VARIANTS["commission"].bet_ids)
    bets = {bet["bet"]: bet for bet in view["bets"]}
    assert bets["player_pair"] == {
        "bet": "player_pair",
        "name": {"key": "game.bet.player_pair"},
        "min": 10,
        "max": 500,
    }
    assert (bets["player"]["min"], bets["player"]["max"]) == (None, None)
    assert in_words(bets["tie"]["name"], "zh-Hant") == "和"


def test_a_composed_variant_shows_its_title_and_the_limits_of_exactly_its_bets() -> None:
    procedure = TableProcedure(HOUSE_GAME, table_id="T07", limits=HOUSE_LIMITS)
    table: Any = DisplayModel(procedure.snapshot(), variant=HOUSE_GAME).table()
    assert table["variant"] == "House Game"  # its own title, shown as it is
    view = table["limits"]
    assert [bet["bet"] for bet in view["bets"]] == list(HOUSE_GAME.bet_ids)
    for bet in view["bets"]:
        limits = HOUSE_LIMITS.limits[bet["bet"]]
        assert bet["name"] == {"key": f"game.bet.{bet['bet']}"}
        assert (bet["min"], bet["max"]) == (to_wire(limits.min), to_wire(limits.max))
    main = [HOUSE_LIMITS.limits[bet] for bet in ("player", "banker", "tie")]
    assert view["main"] == {
        "min": to_wire(min(stake.min for stake in main)),
        "max": to_wire(max(stake.max for stake in main)),
    }
    standard: Any = DisplayModel(snapshot(), variant=VARIANTS["commission"]).table()
    assert standard["variant"] == {"key": "game.variant.commission"}


def test_a_bet_the_catalogue_does_not_name_shows_its_id_in_the_limits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(BET_NAMES, "lucky_6")  # as for a bet newer than the catalogues
    view = limits_view(HOUSE_LIMITS, HOUSE_GAME)
    bets: Any = view["bets"]
    lucky = next(bet for bet in bets if bet["bet"] == "lucky_6")
    stake = HOUSE_LIMITS.limits["lucky_6"]
    assert lucky == {
        "bet": "lucky_6",
        "name": "lucky_6",
        "min": to_wire(stake.min),
        "max": to_wire(stake.max),
    }
