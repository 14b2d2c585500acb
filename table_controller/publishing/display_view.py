# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the dealer's display shows, worked out from the table's snapshot and messages.

Pure: no I/O, no clock, no randomness. It decides nothing about the game: every prompt, card,
result and scoreboard mark comes from the typed messages the procedure publishes and from its
:class:`~table_controller.procedure.payloads.TableSnapshot`; the only rules it calls are the
pure ones of ``table_controller.rules`` (hand totals,
:func:`~table_controller.rules.roads.layout_grid`) and the transition table of
``procedure/states.py`` (which commands a phase takes). The server (``publishing/web.py``)
sends what :class:`DisplayModel` returns to every open page.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Protocol, assert_never

from table_controller.procedure.codes import HoldReason, PromptAction
from table_controller.procedure.payloads import (
    ABSENT,
    AlarmRaised,
    PromptShown,
    ResultCorrected,
    Roads,
    RoundSettled,
    RoundVoided,
    ShoeStarted,
    ShoeVoided,
    StaffChanged,
    Stats,
    TableSnapshot,
)
from table_controller.procedure.states import COMMANDS_WHILE_HELD, Phase, Trigger, accepts
from table_controller.publishing.messages import JsonValue, to_wire
from table_controller.publishing.outgoing import OutgoingMessage
from table_controller.rules.cards import Card, hand_total
from table_controller.rules.roads import DEFAULT_GRID_ROWS, layout_grid
from table_controller.rules.variants import VARIANTS, Reshuffle

#: The commands the page has a button for, in the order it shows them.
DISPLAY_COMMANDS: Final = (
    "new_shoe",
    "open_betting",
    "close_betting",
    "deal",
    "misdeal",
    "dropped_card",
    "void_round",
    "void_shoe",
    "manual_card",
)
#: The staff's commands: shown on a table with a staff register, in every phase.
STAFF_COMMANDS: Final = ("sign_in", "sign_out")
#: Alarms and voids kept for the page, newest first.
RECENT_ALARMS: Final = 20

#: What the dealer reads under HOLD, per hold reason.
HOLD_REASONS: Final[Mapping[HoldReason, str]] = {
    HoldReason.READER_OFFLINE: "READER OFFLINE: check the shoe's cable and power",
    HoldReason.MISREAD: "MISREAD: the supervisor enters the card or voids the round",
    HoldReason.LOST_FRAMES: "CARDS MISSED: the supervisor enters them or voids the round",
    HoldReason.FOREIGN_CARD: "FOREIGN CARD: set it aside; the supervisor voids the shoe",
    HoldReason.PROCEDURE_FAULT: "CONTROLLER FAULT: call the technician",
    HoldReason.SOFTWARE_MODIFIED: "SOFTWARE MODIFIED: the supervisor acknowledges it",
    HoldReason.DISPUTE: "DISPUTE OPEN: the supervisor resolves it",
    HoldReason.RESULT_NOT_CONFIRMED: "RESULT NOT CONFIRMED: the supervisor corrects or voids",
}
_DERIVED_ROADS: Final = ("big_eye_boy", "small_road", "cockroach_pig")
#: The prompt while a required dealer is not signed in: text, detail, tone.
_SIGN_IN: Final = ("DEALER SIGN IN", "Badge or staff id, then PIN", "idle")


class StaffMemberLike(Protocol):
    """A member of staff as the display needs one."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...


class StaffDirectory(Protocol):
    """The staff register, for the names the display shows."""

    def get(self, staff_id: str) -> StaffMemberLike | None: ...


def staff_view(staff_id: str | None, staff: StaffDirectory | None) -> JsonValue:
    """A signed-in member of staff as the page shows one: id and name (the id if unknown)."""
    if staff_id is None:
        return None
    member = None if staff is None else staff.get(staff_id)
    return {"id": staff_id, "name": staff_id if member is None else member.name}


def _sequence(value: object) -> Sequence[object]:
    return value if isinstance(value, list | tuple) else ()


def hand_view(cards: Sequence[Card | None]) -> dict[str, JsonValue]:
    """One hand as the page shows it: its cards and its total (None if empty or one unread)."""
    codes: list[JsonValue] = [None if card is None else card.code for card in cards]
    known = [card.point for card in cards if card is not None]
    whole = bool(cards) and len(known) == len(cards)
    return {"cards": codes, "total": hand_total(known) if whole else None}


def result_view(payload: RoundSettled | ResultCorrected) -> dict[str, JsonValue]:
    """What the page needs of a ``round_result``: winner, totals, naturals and pairs."""
    result = payload.result
    return {
        "round_no": payload.round_no,
        "round_id": payload.round_id,
        "winner": result.winner.value,
        "player_total": result.player.total,
        "banker_total": result.banker.total,
        "natural": result.natural,
        "player_pair": result.player_pair,
        "banker_pair": result.banker_pair,
    }


def result_text(result: Mapping[str, JsonValue]) -> tuple[str, str]:
    """``BANKER WINS`` and ``Banker 7 · Player 5 · Natural``: the winner, then the totals.

    Each total stands beside its side's name, the winner's first: two bare numbers joined by
    "to" or a dash read like a payout ("7 to 1", "7-1"), and "TIE 8" like the tie's 8 to 1.
    """
    totals = {"Player": result.get("player_total"), "Banker": result.get("banker_total")}
    match result.get("winner"):
        case "banker":
            text, order = "BANKER WINS", ("Banker", "Player")
        case "player":
            text, order = "PLAYER WINS", ("Player", "Banker")
        case _:
            text, order = "TIE", ("Player", "Banker")
    notes = [f"{side} {totals[side]}" for side in order]
    notes += [
        label
        for key, label in (
            ("natural", "Natural"),
            ("player_pair", "Player pair"),
            ("banker_pair", "Banker pair"),
        )
        if result.get(key)
    ]
    return text, " · ".join(notes)


def prompt_view(  # noqa: C901, PLR0911, PLR0912 - one case per prompt action of mqtt-api.md
    snapshot: TableSnapshot,
    last_result: Mapping[str, JsonValue] | None,
    prompt_round: int | None = None,
) -> dict[str, JsonValue]:
    """The prompt in words: big ``text``, a smaller ``detail`` line and a ``tone`` for colour.

    ``prompt_round`` is the round the last ``prompt`` event named (the snapshot's prompt does
    not carry it): the round about to be bet on, or the round whose result is shown.
    """
    state = snapshot.state
    prompt = state.prompt
    round_no = prompt_round if prompt_round is not None else state.round_no

    def view(text: str, detail: str, tone: str) -> dict[str, JsonValue]:
        return {"text": text, "detail": detail, "tone": tone}

    if prompt is None:
        if state.phase is Phase.FAULTED:
            return view("HOLD", HOLD_REASONS[HoldReason.PROCEDURE_FAULT], "hold")
        if state.require_dealer and state.dealer is None:
            return view(*_SIGN_IN)
        return view("NEW SHOE", "No shoe in play: start a new shoe", "idle")
    match prompt.action:
        case PromptAction.BURN:
            count = prompt.count
            if count is ABSENT:
                return view("BURN", "Turn the first card face up", "burn")
            detail = f"Burn {count} face down: {snapshot.burned or 0} of {count} done"
            return view(f"BURN {count}", detail, "burn")
        case PromptAction.OPEN_BETTING:
            name = "The next round" if prompt_round is None else f"Round {prompt_round}"
            if state.phase is Phase.BETTING:
                return view("BETTING OPEN", f"{name}: close the betting to deal", "bet")
            return view("OPEN BETTING", f"{name} next", "bet")
        case PromptAction.DEAL:
            return view("DEAL", "Player, Banker, Player, Banker", "deal")
        case PromptAction.PLAYER_DRAWS:
            return view("PLAYER DRAWS", "A third card to the Player", "player")
        case PromptAction.BANKER_DRAWS:
            return view("BANKER DRAWS", "A third card to the Banker", "banker")
        case PromptAction.RESULT:
            if last_result is not None and last_result.get("round_no") == round_no:
                text, totals = result_text(last_result)
                return view(text, totals, str(last_result.get("winner") or "tie"))
            player = hand_view(state.cards.player)["total"]
            banker = hand_view(state.cards.banker)["total"]
            return view("RESULT", f"Player {player} · Banker {banker}", "idle")
        case PromptAction.HOLD:
            reason = prompt.reason
            words = "" if reason is ABSENT else HOLD_REASONS[reason]
            return view("HOLD", words, "hold")
        case PromptAction.SHOE_OVER:
            return view("SHOE OVER", "Start a new shoe", "idle")
        case PromptAction.SIGN_IN:
            return view(*_SIGN_IN)
        case PromptAction.CONFIRM_RESULT:
            player = hand_view(state.cards.player)["total"]
            banker = hand_view(state.cards.banker)["total"]
            detail = f"Player {player} · Banker {banker}: do the cards on the layout match?"
            return view("CONFIRM RESULT", detail, "confirm")
        case _:
            assert_never(prompt.action)


def commands_offered(snapshot: TableSnapshot, *, virtual: bool) -> list[str]:
    """The commands of :data:`DISPLAY_COMMANDS` the table takes now: the page shows only these.

    The table's own rules decide, read from its snapshot as the procedure applies them before
    any command: an edge out of the phase in the transition table
    (:func:`~table_controller.procedure.states.accepts`), only the hold-clearing commands
    while held, betting commands only with a betting phase and ``deal`` only without one, a
    new shoe between rounds only where every round is a new shoe, a card entered by hand only
    while one is missing; a faulted table, only the ``void_shoe`` that releases it. ``deal``
    is for a ``virtual`` table alone: a reader table's first card starts its round. A command
    refused only for what it names (a round, a card) keeps its button.
    """
    state = snapshot.state
    held = state.held_in is not None
    phase = state.held_in if state.held_in is not None else state.phase
    betting = state.betting_phase
    variant = VARIANTS.get(state.variant)
    every_round = variant is not None and variant.reshuffle is Reshuffle.EVERY_ROUND
    card_missing = state.missing_cards > 0 or state.unresolved_lost_frames > 0
    this_kind_takes = {
        "new_shoe": phase is not Phase.BETWEEN_ROUNDS or every_round,
        "open_betting": betting,
        "close_betting": betting,
        "deal": virtual and not betting,
        "misdeal": True,
        "dropped_card": True,
        "void_round": state.round_id is not None,
        "void_shoe": True,
        "manual_card": card_missing,
    }
    return [
        command
        for command in DISPLAY_COMMANDS
        if this_kind_takes[command]
        and (not held or Trigger(command) in COMMANDS_WHILE_HELD)
        and accepts(phase, Trigger(command))
    ]


def roads_view(payload: Roads, rows: int = DEFAULT_GRID_ROWS) -> dict[str, JsonValue]:
    """The ``roads`` payload placed on drawn grids ``rows`` high, as a casino draws them.

    The bead plate fills each column top to bottom; the Big Road and the derived roads are
    laid out by :func:`layout_grid` (new columns at the top, dragon tails along the bottom).
    Every placed cell gets ``x`` and ``y`` (from 0); ``width`` is each grid's drawn columns.
    """
    wire = to_wire(payload)
    data: Mapping[str, JsonValue] = wire if isinstance(wire, dict) else {}
    beads: list[JsonValue] = [
        {"x": index // rows, "y": index % rows, **bead}
        for index, bead in enumerate(_sequence(data.get("bead_plate")))
        if isinstance(bead, dict)
    ]
    grids: dict[str, JsonValue] = {"bead_plate": beads}
    widths: dict[str, JsonValue] = {"bead_plate": (len(beads) + rows - 1) // rows}
    big_columns = [list(_sequence(column)) for column in _sequence(data.get("big_road"))]
    big: list[JsonValue] = [
        {"x": x, "y": y, **cell}
        for x, y, cell in layout_grid([c for c in big_columns if c], rows)
        if isinstance(cell, dict)
    ]
    grids["big_road"] = big
    widths["big_road"] = _width(big)
    for name in _DERIVED_ROADS:
        columns = [list(_sequence(column)) for column in _sequence(data.get(name))]
        marks: list[JsonValue] = [
            {"x": x, "y": y, "colour": to_wire(colour)}
            for x, y, colour in layout_grid([c for c in columns if c], rows)
        ]
        grids[name] = marks
        widths[name] = _width(marks)
    return {
        "shoe_id": data.get("shoe_id"),
        "rows": rows,
        **grids,
        "width": widths,
        "ask_banker": data.get("ask_banker"),
        "ask_player": data.get("ask_player"),
        "stats": data.get("stats"),
    }


def _width(cells: Sequence[JsonValue]) -> int:
    """How many drawn columns the placed cells span."""
    columns = [cell["x"] for cell in cells if isinstance(cell, dict)]
    return 1 + max((x for x in columns if isinstance(x, int)), default=-1)


def alarm_view(message: OutgoingMessage) -> dict[str, JsonValue] | None:
    """An alarm, a voided round or a voided shoe as a line of the page's alarm list."""
    match message.payload:
        case AlarmRaised(round_id=round_id, code=code, message=text):
            return {
                "ts": message.ts,
                "round_id": None if round_id is ABSENT else round_id,
                "kind": "alarm",
                "code": code.value,
                "message": text,
            }
        case RoundVoided(round_id=round_id, round_no=round_no, reason=reason):
            return {
                "ts": message.ts,
                "round_id": round_id,
                "kind": "void",
                "code": "round_voided",
                "message": f"Round {round_no} voided ({reason.value.replace('_', ' ')})",
            }
        case ShoeVoided(shoe_id=shoe_id):
            return {
                "ts": message.ts,
                "round_id": None,
                "kind": "void",
                "code": "shoe_voided",
                "message": f"Shoe {shoe_id} voided",
            }
        case _:
            return None


class DisplayModel:
    """What the page shows, kept up to date from the table's snapshot and messages.

    :meth:`show` takes the table's snapshot each time its ``state`` is published, and
    :meth:`apply` every other message; both return the events to send to every open page, as
    ``(event name, data)``. :meth:`view` is everything at once, for a page that has just
    connected. ``virtual`` says the table draws its own cards (a ``deal`` button); ``staff``
    gives the staff register in use, if any (sign-in buttons, and the names shown).
    """

    def __init__(
        self,
        snapshot: TableSnapshot,
        *,
        virtual: bool = False,
        staff: Callable[[], StaffDirectory | None] = lambda: None,
        alarm_limit: int = RECENT_ALARMS,
    ) -> None:
        self._snapshot = snapshot
        self._virtual = virtual
        self._staff = staff
        self._stats: Stats | None = None
        self._last_result: dict[str, JsonValue] | None = None
        self._roads: dict[str, JsonValue] | None = None
        self._alarms: deque[dict[str, JsonValue]] = deque(maxlen=alarm_limit)
        self._prompt_event: PromptShown | None = None

    def show(self, snapshot: TableSnapshot) -> list[tuple[str, JsonValue]]:
        """The table's snapshot, as its ``state`` was published: the pages' new ``table``."""
        self._snapshot = snapshot
        return [("table", self.table())]

    def apply(self, message: OutgoingMessage) -> list[tuple[str, JsonValue]]:
        """Fold one message in (``state`` aside: see :meth:`show`); the events pages need."""
        match message.payload:
            case Roads() as roads:
                self._roads = roads_view(roads)
                return [("roads", self._roads)]
            case RoundSettled() | ResultCorrected() as settled:
                self._last_result = result_view(settled)
            case ShoeStarted():
                self._last_result = None
            case PromptShown() as prompt:
                self._prompt_event = prompt
            case Stats() as stats:
                self._stats = stats
                return [("table", self.table())]
            case StaffChanged():
                return [("table", self.table())]
            case _:
                pass
        alarm = alarm_view(message)
        if alarm is None:
            return []
        self._alarms.appendleft(alarm)
        return [("alarm", alarm)]

    def table(self) -> dict[str, JsonValue]:
        """The snapshot, the prompt in words, the hands, the last result, the commands taken now."""
        snapshot = self._snapshot
        cards = snapshot.state.cards
        commands: list[JsonValue] = [*commands_offered(snapshot, virtual=self._virtual)]
        if self._staff() is not None:
            commands.extend(STAFF_COMMANDS)
        return {
            "state": to_wire(snapshot.state),
            "prompt": prompt_view(snapshot, self._last_result, self._prompt_round()),
            "hands": {"player": hand_view(cards.player), "banker": hand_view(cards.banker)},
            "last_result": self._last_result,
            "commands": commands,
            "staff": self._staff_view(),
        }

    def _staff_view(self) -> dict[str, JsonValue]:
        """Who is signed in, and the pace: the dealer's stint, else the shoe's, per hour."""
        state = self._snapshot.state
        stats = self._stats
        figures = None if stats is None else (stats.stint or stats.shoe)
        staff = self._staff()
        return {
            "register": staff is not None,
            "dealer": staff_view(state.dealer, staff),
            "supervisor": staff_view(state.supervisor, staff),
            "rounds_per_hour": None if figures is None else figures.rounds_per_hour,
        }

    def _prompt_round(self) -> int | None:
        """The round of the last ``prompt`` event, if it is the prompt the snapshot shows."""
        shown = self._snapshot.state.prompt
        event = self._prompt_event
        if shown is None or event is None or event.action is not shown.action:
            return None
        return None if event.round_no is ABSENT else event.round_no

    def view(self) -> dict[str, JsonValue]:
        """Everything the page shows."""
        return {
            "table": self.table(),
            "roads": self._roads,
            "alarms": list(self._alarms),
        }
