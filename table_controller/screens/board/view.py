# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the players' board shows, worked out from the table's snapshot and messages.

Pure: no I/O, no clock, no randomness. The board is the sign facing the players: the table and
its variant, the limits of every bet and which side bets are open this round, betting open or
closed, the round being dealt, a large result banner, the scoreboards (laid out on their drawn
grids by ``screens/dealer/roads.py``), the shoe's counts and the last results. Nothing for
staff: no commands, no alarms, no staff names, no hold reasons (a hold is a neutral "please
wait"). Every text is a catalogue key (:func:`~table_controller.screens.languages.localised`);
the page turns it into the screen's language. The server (``screens/board/app.py``) sends
what :class:`BoardModel` returns to every open board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from table_controller.contract import (
    BettingOpened,
    JournalRefusal,
    JsonValue,
    OutgoingMessage,
    Phase,
    PromptAction,
    ResultCorrected,
    Roads,
    RoundSettled,
    ShoeStarted,
    ShoeVoided,
    TableSnapshot,
    to_wire,
)
from table_controller.rules import MAIN_BETS, Variant
from table_controller.screens.dealer.limits import bet_name, variant_name
from table_controller.screens.dealer.roads import roads_view
from table_controller.screens.dealer.view import hand_view, result_view
from table_controller.screens.languages import localised

#: Results of the shoe listed beside the roads, newest last.
LAST_RESULTS: Final = 16

#: The banner's headline for each winner.
WINNER_BANNERS: Final[Mapping[str, JsonValue]] = {
    "banker": localised("game.winner.banker"),
    "player": localised("game.winner.player"),
    "tie": localised("game.winner.tie"),
}
#: What the board says the table is doing, by the kind the page colours it with.
STATUS_TEXTS: Final[Mapping[str, JsonValue]] = {
    "betting": localised("game.betting_open"),
    "dealing": localised("game.betting_closed"),
    "result": localised("game.betting_closed"),
    "next": localised("board.status.next_round"),
    "new_shoe": localised("board.status.new_shoe"),
    "closed": localised("board.status.between_shoes"),
    "wait": localised("board.status.please_wait"),
}
#: The phases a round's cards are shown in (with the result banner once settled).
_ROUND_PHASES: Final = frozenset({Phase.BETTING, Phase.DEALING, Phase.BETWEEN_ROUNDS})


def status_kind(snapshot: TableSnapshot, result_shown: bool, *, recording: bool = True) -> str:
    """What the table is doing, as the board tells the players: a key of :data:`STATUS_TEXTS`.

    A hold, a fault, a journal that cannot record (``recording`` false), a result the dealer
    is still checking and a table waiting for its dealer all read as "please wait": their
    reasons are for the staff, not the players.
    """
    state = snapshot.state
    prompt = None if state.prompt is None else state.prompt.action
    waiting = prompt in {PromptAction.HOLD, PromptAction.SIGN_IN, PromptAction.CONFIRM_RESULT}
    held = state.held_in is not None or state.phase in {Phase.HELD, Phase.FAULTED}
    if held or waiting or not recording:
        return "wait"
    match state.phase:
        case Phase.BETTING:
            return "betting"
        case Phase.DEALING:
            return "dealing"
        case Phase.BURN_CARD | Phase.BURNING:
            return "new_shoe"
        case Phase.BETWEEN_ROUNDS:
            return "result" if result_shown else "next"
        case _:
            return "closed"


def limits_view(limits: object) -> tuple[str | None, Mapping[str, JsonValue]]:
    """The table's currency and each bet's ``{min, max}`` from a ``limits`` payload (or None)."""
    wire = to_wire(limits) if limits is not None else None
    if not isinstance(wire, dict):
        return None, {}
    currency = wire.get("currency")
    per_bet = wire.get("limits")
    return (
        currency if isinstance(currency, str) else None,
        per_bet if isinstance(per_bet, dict) else {},
    )


def bets_view(
    variant: Variant,
    offered: Sequence[str],
    limits: Mapping[str, JsonValue],
) -> list[JsonValue]:
    """Every bet of the variant in menu order: name, main or side, open this round, limits."""
    bets: list[JsonValue] = []
    for bet_id in variant.bet_ids:
        limit = limits.get(bet_id)
        bounds = limit if isinstance(limit, dict) else {}
        bets.append(
            {
                "bet": bet_id,
                "name": bet_name(bet_id),
                "side": bet_id not in MAIN_BETS,
                "open": bet_id in MAIN_BETS or bet_id in offered,
                "min": bounds.get("min"),
                "max": bounds.get("max"),
            }
        )
    return bets


def banner_view(result: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """The large result banner: the winner's headline, both totals, natural and pairs."""
    winner = str(result.get("winner") or "tie")
    notes: list[JsonValue] = []
    if result.get("natural"):
        notes.append(localised("game.natural"))
    if result.get("player_pair"):
        notes.append(localised("game.player_pair"))
    if result.get("banker_pair"):
        notes.append(localised("game.banker_pair"))
    return {
        **result,
        "winner": winner,
        "text": WINNER_BANNERS.get(winner, WINNER_BANNERS["tie"]),
        "notes": notes,
    }


class BoardModel:
    """What the board shows, kept up to date from the table's snapshot and messages.

    :meth:`show` takes the table's snapshot each time its ``state`` is published, :meth:`apply`
    every other message; both return the events to send to every open board, as ``(event
    name, data)``: ``board`` (everything but the roads) and ``roads``. :meth:`journal` says
    the journal refuses writes (the board says "please wait") or records again. :meth:`view`
    is everything at once, for a board that has just connected. ``variant`` is the variant in
    force, built in or composed in the variant file: the name and the bets shown.
    """

    def __init__(
        self, snapshot: TableSnapshot, *, variant: Variant, table_id: str | None = None
    ) -> None:
        self._snapshot = snapshot
        self._variant = variant
        self._table_id = table_id
        self._result: dict[str, JsonValue] | None = None
        self._roads: dict[str, JsonValue] | None = None
        self._last_results: list[JsonValue] = []
        self._limits: object = getattr(snapshot, "limits", None)
        #: Side bets left out of the round being bet on (dynamic windows), with its round.
        self._suspended: tuple[int, frozenset[str]] = (0, frozenset())
        #: False while the journal refuses writes (the table is held).
        self._recording = True

    def show(self, snapshot: TableSnapshot) -> list[tuple[str, JsonValue]]:
        """The table's snapshot, as its ``state`` was published: the boards' new ``board``."""
        self._snapshot = snapshot
        limits = getattr(snapshot, "limits", None)
        if limits is not None:
            self._limits = limits
        return [("board", self.board())]

    def journal(self, refusal: JournalRefusal | None) -> list[tuple[str, JsonValue]]:
        """The journal refuses writes (why: not for the players), or records again (None)."""
        self._recording = refusal is None
        return [("board", self.board())]

    def apply(self, message: OutgoingMessage) -> list[tuple[str, JsonValue]]:
        """Fold one message in (``state`` aside: see :meth:`show`); the events boards need."""
        match message.payload:
            case Roads() as roads:
                self._roads = roads_view(roads)
                beads = roads.bead_plate[-LAST_RESULTS:]
                self._last_results = [to_wire(dict(bead)) for bead in beads]
                return [("roads", self.roads())]
            case RoundSettled() | ResultCorrected() as settled:
                self._result = result_view(settled)
                return [("board", self.board())]
            case ShoeStarted() | ShoeVoided():
                self._result = None
                return [("board", self.board())]
            case BettingOpened() as opened:
                suspended = frozenset(bet.bet for bet in opened.bets_suspended)
                self._suspended = (opened.round_no, suspended)
                return [("board", self.board())]
            case _ if message.event_type == "limits":
                self._limits = message.payload
                return [("board", self.board())]
            case _:
                return []

    def board(self) -> dict[str, JsonValue]:
        """The table, its status, the round's cards, the result banner and the bets."""
        state = self._snapshot.state
        result = self._result
        shown = (
            result is not None
            and state.phase in {Phase.BETWEEN_ROUNDS, Phase.SHOE_OVER}
            and result.get("round_no") == state.round_no
        )
        kind = status_kind(self._snapshot, shown, recording=self._recording)
        currency, limits = limits_view(self._limits)
        round_no, suspended = self._suspended
        offered = [
            bet
            for bet in state.bets_offered
            if not (round_no == state.round_no and bet in suspended)
        ]
        in_round = state.phase in _ROUND_PHASES and kind != "wait"
        cards = state.cards
        return {
            "table_id": self._table_id,
            "variant": variant_name(self._variant),
            "shoe_id": state.shoe_id,
            "round_no": state.round_no,
            "cards_left": state.cards_left,
            "last_round": state.last_round,
            "status": {"kind": kind, "text": STATUS_TEXTS[kind]},
            "hands": {
                "player": hand_view(cards.player if in_round else ()),
                "banker": hand_view(cards.banker if in_round else ()),
            },
            "result": banner_view(result) if shown and result is not None else None,
            "currency": currency,
            "bets": bets_view(self._variant, offered, limits),
        }

    def roads(self) -> dict[str, JsonValue]:
        """The scoreboards on their drawn grids, the ask marks, the counts, the last results."""
        return {"roads": self._roads, "last_results": list(self._last_results)}

    def view(self) -> dict[str, JsonValue]:
        """Everything the board shows."""
        return {"board": self.board(), **self.roads()}
