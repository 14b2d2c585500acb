# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the dealer's display shows, worked out from the table's snapshot and messages.

Pure: no I/O, no clock, no randomness. It decides nothing about the game: every prompt, card,
result and scoreboard mark, and which commands the table takes, comes from the typed messages
the procedure publishes and from its
:class:`~table_controller.contract.payloads.state.TableSnapshot`; the only rules it calls are
the pure ones of ``table_controller.rules`` (hand totals,
:func:`~table_controller.rules.roads.layout_grid`). The server (``screens/dealer/app.py``) sends
what :class:`DisplayModel` returns to every open page.

It writes no words: every text is a catalogue key with its values
(:func:`~table_controller.screens.languages.localised`), which the page shows in its own
language; a line of several texts is a list, which the page joins with `` · ``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Protocol, assert_never

from table_controller.contract import (
    ABSENT,
    AlarmRaised,
    DisputeFields,
    HoldReason,
    JournalRefusal,
    JsonValue,
    OpenAlarm,
    OutgoingMessage,
    Phase,
    PromptAction,
    PromptShown,
    ResultCorrected,
    Roads,
    RoundSettled,
    RoundVoided,
    ShoeStarted,
    ShoeVoided,
    StaffChanged,
    Stats,
    TableLimits,
    TableSnapshot,
    TableState,
    to_wire,
)
from table_controller.contract.commands import BUTTON_COMMANDS, STAFF_COMMANDS
from table_controller.rules import Card, Variant, hand_total
from table_controller.screens.dealer.limits import limits_view, variant_name
from table_controller.screens.dealer.roads import roads_view
from table_controller.screens.dealer.texts import (
    ALARM_NAMES,
    HOLD_REASONS,
    JOURNAL_HOLDS,
    RESULT_NOTES,
    SIGN_IN,
    VOID_REASONS,
    WINNERS,
    side_total,
)
from table_controller.screens.languages import localised

#: The commands the page has a button for, in the order it shows them (the command table's).
DISPLAY_COMMANDS: Final = BUTTON_COMMANDS
#: The holds a supervisor's ``acknowledge`` lifts (its ``alarm`` is the hold's name).
ACKNOWLEDGED_HOLDS: Final = (HoldReason.SOFTWARE_MODIFIED, HoldReason.RESULT_NOT_CONFIRMED)
#: Alarms and voids kept for the page, newest first.
RECENT_ALARMS: Final = 20


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


def result_text(result: Mapping[str, JsonValue]) -> tuple[JsonValue, list[JsonValue]]:
    """``Banker wins`` and ``Banker 7 · Player 5 · Natural``: the winner, then the totals.

    Each total stands beside its side's name, the winner's first: two bare numbers joined by
    "to" or a dash read like a payout ("7 to 1", "7-1"), and "TIE 8" like the tie's 8 to 1.
    """
    winner = result.get("winner")
    text, order = WINNERS[winner if isinstance(winner, str) and winner in WINNERS else "tie"]
    notes = [side_total(side, result.get(f"{side}_total")) for side in order]
    notes += [label for key, label in RESULT_NOTES if result.get(key)]
    return text, notes


def prompt_view(  # noqa: C901, PLR0911, PLR0912 - one case per prompt action of mqtt-api.md
    snapshot: TableSnapshot,
    last_result: Mapping[str, JsonValue] | None,
    prompt_round: int | None = None,
) -> dict[str, JsonValue]:
    """The prompt: big ``text``, a smaller ``detail`` line and a ``tone`` for colour.

    ``prompt_round`` is the round the last ``prompt`` event named (the snapshot's prompt does
    not carry it): the round about to be bet on, or the round whose result is shown.
    """
    state = snapshot.state
    prompt = state.prompt
    round_no = prompt_round if prompt_round is not None else state.round_no

    def view(text: JsonValue, detail: JsonValue, tone: str) -> dict[str, JsonValue]:
        return {"text": text, "detail": detail, "tone": tone}

    def totals() -> list[JsonValue]:
        return [
            side_total("player", hand_view(state.cards.player)["total"]),
            side_total("banker", hand_view(state.cards.banker)["total"]),
        ]

    if prompt is None:
        if state.phase is Phase.FAULTED:
            return view(
                localised("display.prompt.hold"), HOLD_REASONS[HoldReason.PROCEDURE_FAULT], "hold"
            )
        if state.require_dealer and state.dealer is None:
            return view(*SIGN_IN)
        return view(
            localised("display.prompt.new_shoe"),
            localised("display.prompt.new_shoe.detail"),
            "idle",
        )
    match prompt.action:
        case PromptAction.BURN:
            count = prompt.count
            if count is ABSENT:
                return view(
                    localised("display.prompt.burn"),
                    localised("display.prompt.burn.detail"),
                    "burn",
                )
            detail = localised(
                "display.prompt.burn_count.detail", count=count, done=snapshot.burned or 0
            )
            return view(localised("display.prompt.burn_count", count=count), detail, "burn")
        case PromptAction.OPEN_BETTING:
            if state.phase is Phase.BETTING:
                detail = (
                    localised("display.prompt.betting_open.detail_next")
                    if prompt_round is None
                    else localised("display.prompt.betting_open.detail", round_no=prompt_round)
                )
                return view(localised("display.prompt.betting_open"), detail, "bet")
            detail = (
                localised("display.prompt.open_betting.detail_next")
                if prompt_round is None
                else localised("display.prompt.open_betting.detail", round_no=prompt_round)
            )
            return view(localised("display.prompt.open_betting"), detail, "bet")
        case PromptAction.DEAL:
            return view(
                localised("display.prompt.deal"), localised("display.prompt.deal.detail"), "deal"
            )
        case PromptAction.PLAYER_DRAWS:
            return view(
                localised("display.prompt.player_draws"),
                localised("display.prompt.player_draws.detail"),
                "player",
            )
        case PromptAction.BANKER_DRAWS:
            return view(
                localised("display.prompt.banker_draws"),
                localised("display.prompt.banker_draws.detail"),
                "banker",
            )
        case PromptAction.RESULT:
            if last_result is not None and last_result.get("round_no") == round_no:
                text, notes = result_text(last_result)
                return view(text, notes, str(last_result.get("winner") or "tie"))
            return view(localised("display.prompt.result"), totals(), "idle")
        case PromptAction.HOLD:
            reason = prompt.reason
            words = None if reason is ABSENT else HOLD_REASONS[reason]
            return view(localised("display.prompt.hold"), words, "hold")
        case PromptAction.SHOE_OVER:
            return view(
                localised("display.prompt.shoe_over"),
                localised("display.prompt.shoe_over.detail"),
                "idle",
            )
        case PromptAction.SIGN_IN:
            return view(*SIGN_IN)
        case PromptAction.CONFIRM_RESULT:
            check = [*totals(), localised("display.prompt.confirm_result.detail")]
            return view(localised("display.prompt.confirm_result"), check, "confirm")
        case _:
            assert_never(prompt.action)


def commands_offered(snapshot: TableSnapshot, *, virtual: bool) -> list[str]:
    """The commands of :data:`DISPLAY_COMMANDS` the table takes now: the page shows only these.

    The table says which it takes (:attr:`TableSnapshot.commands`, worked out by the procedure
    from its routes and the prechecks it applies before any command); the page leaves out
    more of its own: ``deal`` but on a ``virtual`` table (a reader table's first card starts
    its round), a void or correction of a round while no round is shown to name, and
    ``acknowledge`` while no hold it lifts is shown (a fault shows only itself). A command
    refused only for what it names (a round, a card) keeps its button.
    """
    taken = snapshot.commands
    state = snapshot.state
    no_round = state.round_id is None
    left_out = {
        "deal": not virtual,
        "void_round": no_round,
        "correct_result": no_round,
        "acknowledge": not any(hold in state.holds for hold in ACKNOWLEDGED_HOLDS),
    }
    return [
        command
        for command in DISPLAY_COMMANDS
        if command in taken and not left_out.get(command, False)
    ]


def journal_view(refusal: JournalRefusal) -> dict[str, JsonValue]:
    """The table held while its journal refuses writes: the prompt and the cause.

    The prompt is the dealer's (``HOLD``, what to do); the cause, SQLite's words, is the
    technician's.
    """
    return {
        "prompt": {
            "text": localised("display.prompt.hold"),
            "detail": JOURNAL_HOLDS[refusal.disk_full],
            "tone": "hold",
        },
        "journal": {"ok": False, "disk_full": refusal.disk_full, "cause": refusal.cause},
    }


def dispute_view(dispute: DisputeFields, staff: StaffDirectory | None) -> dict[str, JsonValue]:
    """The open dispute as the dealer's banner and the supervisor's panel show it."""
    opened_by = staff_view(dispute.supervisor, staff)
    name = opened_by.get("name") if isinstance(opened_by, dict) else None
    words: list[JsonValue] = [
        dispute.reason,
        localised("display.dispute.rounds", rounds=", ".join(dispute.round_ids)),
    ]
    if name is not None:
        words.append(localised("display.dispute.opened_by", name=name))
    return {
        "dispute_id": dispute.dispute_id,
        "reason": dispute.reason,
        "round_ids": list(dispute.round_ids),
        "supervisor": opened_by,
        "text": localised("display.dispute.title", dispute_id=dispute.dispute_id),
        "detail": words,
    }


def open_alarm_view(alarm: OpenAlarm) -> dict[str, JsonValue]:
    """An open alarm as the page marks it and the supervisor acknowledges it.

    ``text`` is its name; ``message``, the controller's own English sentence, for a technician.
    """
    return {
        "alarm_id": alarm.alarm_id,
        "code": alarm.code.value,
        "text": ALARM_NAMES[alarm.code],
        "round_id": alarm.round_id,
        "message": alarm.message,
    }


def oversight_view(
    state: TableState,
    last_result: Mapping[str, JsonValue] | None,
    staff: StaffDirectory | None,
) -> dict[str, JsonValue]:
    """What the supervisor's controls start from.

    ``round_id``: the round a void or a correction is about unless another is typed: the one
    whose result waits for its confirmation, else the round shown, else the last settled.
    ``acknowledge``: the holds standing that ``acknowledge`` lifts. ``dispute``: the open one.
    ``alarms``: the open alarms ``state`` lists (the newest), each to acknowledge;
    ``open_alarms``: how many are open in all.
    """
    last_id = None if last_result is None else last_result.get("round_id")
    round_id = state.unconfirmed_round_id or state.round_id or last_id
    return {
        "round_id": round_id if isinstance(round_id, str) else None,
        "unconfirmed_round_id": state.unconfirmed_round_id,
        "acknowledge": [hold.value for hold in ACKNOWLEDGED_HOLDS if hold in state.holds],
        "dispute": None if state.dispute is None else dispute_view(state.dispute, staff),
        "alarms": [open_alarm_view(alarm) for alarm in state.open_alarms],
        "open_alarms": state.open_alarm_count,
    }


def alarm_view(message: OutgoingMessage) -> dict[str, JsonValue] | None:
    """An alarm, a voided round or a voided shoe as a line of the page's alarm list.

    ``text`` is the line; an alarm's ``message`` is the controller's own English sentence,
    for a technician, and its ``alarm_id`` says whether it is still open (the table's
    ``oversight.alarms``).
    """
    match message.payload:
        case AlarmRaised(round_id=round_id, alarm_id=alarm_id, code=code, message=text):
            return {
                "ts": message.ts,
                "round_id": None if round_id is ABSENT else round_id,
                "kind": "alarm",
                "alarm_id": alarm_id,
                "code": code.value,
                "text": ALARM_NAMES[code],
                "message": text,
            }
        case RoundVoided(round_id=round_id, round_no=round_no, reason=reason):
            return {
                "ts": message.ts,
                "round_id": round_id,
                "kind": "void",
                "code": "round_voided",
                "text": localised(
                    "display.void.round", round_no=round_no, reason=VOID_REASONS[reason]
                ),
            }
        case ShoeVoided(shoe_id=shoe_id):
            return {
                "ts": message.ts,
                "round_id": None,
                "kind": "void",
                "code": "shoe_voided",
                "text": localised("display.void.shoe", shoe_id=shoe_id),
            }
        case _:
            return None


class DisplayModel:
    """What the page shows, kept up to date from the table's snapshot and messages.

    :meth:`show` takes the table's snapshot each time its ``state`` is published, and
    :meth:`apply` every other message; both return the events to send to every open page, as
    ``(event name, data)``. :meth:`journal` says the journal refuses writes (the table is
    held: the hold's prompt, no command) or records again. :meth:`view` is everything at once,
    for a page that has just connected. ``variant`` is the variant in force, built in or
    composed in the variant file (its name and its bets); ``virtual`` says the table draws its
    own cards (a ``deal`` button); ``staff`` gives the staff register in use, if any (sign-in
    buttons, and the names shown).
    """

    def __init__(
        self,
        snapshot: TableSnapshot,
        *,
        variant: Variant,
        virtual: bool = False,
        staff: Callable[[], StaffDirectory | None] = lambda: None,
        alarm_limit: int = RECENT_ALARMS,
    ) -> None:
        self._snapshot = snapshot
        self._variant = variant
        self._virtual = virtual
        self._staff = staff
        self._stats: Stats | None = None
        self._last_result: dict[str, JsonValue] | None = None
        self._roads: dict[str, JsonValue] | None = None
        self._alarms: deque[dict[str, JsonValue]] = deque(maxlen=alarm_limit)
        self._prompt_event: PromptShown | None = None
        self._limits = snapshot.limits
        self._journal: JournalRefusal | None = None

    def show(self, snapshot: TableSnapshot) -> list[tuple[str, JsonValue]]:
        """The table's snapshot, as its ``state`` was published: the pages' new ``table``."""
        self._snapshot = snapshot
        self._limits = snapshot.limits
        return [("table", self.table())]

    def journal(self, refusal: JournalRefusal | None) -> list[tuple[str, JsonValue]]:
        """The journal refuses writes (why), or records again (None): the pages' new ``table``."""
        self._journal = refusal
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
            case TableLimits() as limits:
                self._limits = limits
                return [("table", self.table())]
            case _:
                pass
        alarm = alarm_view(message)
        if alarm is None:
            return []
        self._alarms.appendleft(alarm)
        return [("alarm", alarm)]

    def table(self) -> dict[str, JsonValue]:
        """The snapshot, variant's name, prompt, hands, last result, commands taken now, limits.

        While the journal refuses writes: its hold's prompt, no command (none is taken), and
        ``journal`` says why; else ``journal`` is ``{"ok": true}``.
        """
        snapshot = self._snapshot
        cards = snapshot.state.cards
        commands: list[JsonValue] = [*commands_offered(snapshot, virtual=self._virtual)]
        if self._staff() is not None:
            commands.extend(STAFF_COMMANDS)
        shown: dict[str, JsonValue] = {
            "prompt": prompt_view(snapshot, self._last_result, self._prompt_round()),
            "journal": {"ok": True},
        }
        if self._journal is not None:
            shown = journal_view(self._journal)
            commands = []
        return {
            "state": to_wire(snapshot.state),
            "variant": variant_name(self._variant),
            "prompt": shown["prompt"],
            "hands": {"player": hand_view(cards.player), "banker": hand_view(cards.banker)},
            "last_result": self._last_result,
            "commands": commands,
            "staff": self._staff_view(),
            "oversight": oversight_view(snapshot.state, self._last_result, self._staff()),
            "limits": limits_view(self._limits, self._variant),
            "journal": shown["journal"],
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
