# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The recall of the last rounds, every step in order: what ``recall`` and disputes answer.

Pure: no I/O, no clock, no randomness. A :class:`RecallBook` is fed, in journal order, each
input of the procedure with its journal row (``seq``) and time stamp and the messages the
table published for it (:meth:`RecallBook.observe`); the live service feeds it as each input
is handled and while it replays its journal on start, ``journal recall`` while it replays a
journal offline, so the recall after a restart still holds the rounds before it.

Where each step comes from:

* a card placed on a hand: its ``card`` event (``position`` ``player`` / ``banker``;
  ``source`` ``manual`` if a supervisor entered it);
* a burn card: the ``burn`` event's face-up card, then each card input while the burn lasts
  (``position`` ``burn``), checked against the cards of the ``burn`` event that ends it;
* a card that went to no hand (``position`` ``discard``): an ``alarm`` that names a card
  (exposed, unnecessary, after the last round, foreign, before any shoe, a left-over draw
  entered by hand), and the cards of a ``round_voided`` that the round had not shown yet
  (dealt behind a hold, unread);
* prompts, alarms, staff changes and the shoe's own events: their messages;
* a command: the input (its operator, its supervisor, its arguments, never a PIN, which never
  reaches the procedure) with its reply (accepted, or refused with the code);
* the result, a void, a correction: ``round_result``, ``round_voided``, ``result_corrected``.

A round's entry starts with the first message that names a round id the book has not seen
(``betting_opened``, a ``card``, or the void of the invalid round after the last round) and
ends with its result or void (and the other messages of the input that ended it). Steps
between rounds (the shoe's start, the burn, a sign-in, the prompt to open betting, an
unnecessary card) belong to the next round that starts, and until it starts they are the
recall's ``between_rounds``. A later correction or void of a settled round is appended to
that round's entry, by its round id; the command that caused it stays where it was given.
The book keeps the last :data:`MAX_ROUNDS` rounds.

The output is JSON data as it is, of the types of ``contract/payloads/replies.py``: the
``recall`` reply's ``rounds`` and ``between_rounds`` (docs/mqtt-api.md). The journal keeps a
reply by its seal only (:func:`recall_answer`): its rounds are the journal's own rows, so every
replay makes it again from a book fed up to the answer's row (:func:`recalled_again`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import (
    TYPE_CHECKING,
    ClassVar,
    Final,
    cast,
)

from table_controller.contract import (
    ABSENT,
    Absent,
    AlarmRaised,
    BettingClosed,
    BettingOpened,
    BurnAnnounced,
    CardPlaced,
    CardPosition,
    CommandReply,
    DisputeOpened,
    DisputeResolved,
    HandResult,
    LastRound,
    Payload,
    PromptShown,
    Recall,
    RecalledHand,
    RecalledRound,
    RecallReply,
    RecallStep,
    ResultCorrected,
    ResultOfCards,
    RoundSettled,
    RoundVoided,
    ShoeEnded,
    ShoeStarted,
    ShoeVoided,
    StaffChanged,
    StepKind,
    fields_of,
)
from table_controller.contract.commands import DEFAULT_ROUNDS, MAX_ROUNDS
from table_controller.procedure import (
    CardDrawn,
    CardMisread,
    EnterCard,
    Input,
    input_to_record,
)
from table_controller.rules import Card

if TYPE_CHECKING:
    from table_controller.contract import OutgoingMessage

#: ``recall`` requests answered per operator in any minute over MQTT (the default of the
#: ``recall_requests_per_minute`` setting).
RECALLS_PER_MINUTE: Final = 10


def recall_reply(book: RecallBook, command_id: str, rounds: int) -> RecallReply:
    """The reply to ``recall``: the book's last ``rounds`` rounds."""
    recall = book.recall(rounds)
    return RecallReply(
        id=command_id,
        ok=True,
        command="recall",
        rounds=recall["rounds"],
        between_rounds=recall["between_rounds"],
    )


def _sha256_of(value: object) -> str:
    """SHA-256 hex of ``value``'s canonical JSON.

    Canonical as the signed messages' and the journal's (mqtt-api.md, journal-format.md): keys
    sorted, separators ``,`` and ``:``, UTF-8 with non-ASCII unescaped.
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def seal_of(dispute_id: str, recall: Sequence[RecalledRound], journal_head: str) -> str:
    """SHA-256 hex of the canonical JSON of ``{"dispute_id", "recall", "journal_head"}``."""
    return _sha256_of(
        {"dispute_id": dispute_id, "recall": list(recall), "journal_head": journal_head}
    )


def carries_recall(reply: CommandReply) -> bool:
    """Whether a reply given at the edge is a ``recall``'s, with its rounds."""
    return (
        isinstance(reply, RecallReply)
        and reply.rounds is not ABSENT
        and reply.between_rounds is not ABSENT
    )


def recall_answer(reply: CommandReply) -> dict[str, object]:
    """What the journal keeps of a ``recall``'s reply: its id, how many rounds, its seal.

    The seal is the SHA-256 of the whole reply's canonical JSON; the rounds are the journal's
    own earlier rows, so :func:`recalled_again` makes the reply again from them.
    """
    assert isinstance(reply, RecallReply), "only a reply that carries_recall"
    assert not isinstance(reply.rounds, Absent), "only a reply that carries_recall"
    return {"id": reply.id, "rounds": len(reply.rounds), "seal": _sha256_of(fields_of(reply))}


def recalled_again(
    answer: Mapping[str, object], book: RecallBook, earlier: CommandReply | None
) -> CommandReply:
    """The reply a journaled :func:`recall_answer` stands for, checked against its seal.

    ``book`` holds the rows before the answer's own (replayed up to it): the reply is its last
    ``rounds`` rounds, as the live table read them. A repeated id was answered as first
    given: ``earlier`` is the reply already given to that id, if any.

    Raises:
        ValueError: the answer is malformed, or neither reply matches its seal (the journal
            was written by a table whose recall read its rows differently).
    """
    command_id, rounds, seal = answer.get("id"), answer.get("rounds"), answer.get("seal")
    if (
        not isinstance(command_id, str)
        or not isinstance(rounds, int)
        or isinstance(rounds, bool)
        or not isinstance(seal, str)
    ):
        raise ValueError(f"not a recall answer: {dict(answer)!r}")  # noqa: TRY004 - a bad row
    again = recall_reply(book, command_id, rounds)
    if _sha256_of(fields_of(again)) == seal:
        return again
    if earlier is not None and _sha256_of(fields_of(earlier)) == seal:
        return earlier
    raise ValueError(
        f"recall {command_id!r}: the reply made again from the journal does not match its seal"
    )


def with_disputes_sealed(
    messages: tuple[OutgoingMessage, ...], book: RecallBook, journal_head: str | None
) -> tuple[OutgoingMessage, ...]:
    """The messages, each ``dispute_opened`` given its ``recall``, ``journal_head`` and ``seal``.

    ``book`` is read before it learns the dispute's input: the recall of the disputed rounds as
    they were just before it. ``journal_head`` is the hash of the dispute's own journal row
    (``None``: not known, and the event goes without the three).
    """
    if journal_head is None:
        return messages
    for message in messages:  # a plain loop: this runs for every card
        if type(message.payload) is DisputeOpened:
            break
    else:
        return messages
    return tuple(
        replace(message, payload=_sealed(message.payload, book, journal_head))
        if isinstance(message.payload, DisputeOpened)
        else message
        for message in messages
    )


def _sealed(payload: DisputeOpened, book: RecallBook, journal_head: str) -> DisputeOpened:
    recall = book.rounds_named(payload.round_ids)
    return replace(
        payload,
        recall=tuple(recall),
        journal_head=journal_head,
        seal=seal_of(payload.dispute_id, recall, journal_head),
    )


def _code(card: Card | None) -> str | None:
    return None if card is None else card.code


def _hand(hand: HandResult) -> RecalledHand:
    return {"cards": [card.code for card in hand.cards], "total": hand.total}


def _result_fields(result: ResultOfCards) -> dict[str, object]:
    return {
        "winner": result.winner.value,
        "player": _hand(result.player),
        "banker": _hand(result.banker),
        "natural": result.natural,
    }


def _args_of(event: Input) -> dict[str, object]:
    """A command's arguments as journaled (a ``sign_in``'s: whom the edge identified, no PIN)."""
    args = input_to_record(event).get("args")
    return dict(args) if isinstance(args, dict) else {}


@dataclass(slots=True)
class _Entry:
    """A round being recalled: its fields, and its cards so far (for a void's leftovers)."""

    round: RecalledRound
    cards: Counter[str | None] = field(default_factory=Counter)


@dataclass(slots=True)
class _Context:
    """What one input's messages are read with."""

    seq: int
    ts: str | None
    event: Input
    #: The card a supervisor entered with this input (``manual_card``), if any.
    manual: Card | None


class RecallBook:
    """The last rounds with every step, fed in journal order (see the module's docstring)."""

    HANDLERS: ClassVar[dict[type[Payload], str]] = {
        CardPlaced: "_card_placed",
        BurnAnnounced: "_burn",
        AlarmRaised: "_alarm",
        PromptShown: "_prompt",
        BettingOpened: "_betting",
        BettingClosed: "_betting",
        RoundSettled: "_settled",
        RoundVoided: "_voided",
        ResultCorrected: "_corrected",
        ShoeStarted: "_shoe_event",
        LastRound: "_shoe_event",
        ShoeEnded: "_shoe_event",
        ShoeVoided: "_shoe_event",
        StaffChanged: "_staff",
        DisputeOpened: "_dispute",
        DisputeResolved: "_dispute",
    }

    def __init__(self, max_rounds: int = MAX_ROUNDS) -> None:
        self._max_rounds = max_rounds
        self._rounds: OrderedDict[str, _Entry] = OrderedDict()
        self._current: _Entry | None = None
        #: The round in play ended with the input being read.
        self._ended = False
        self._between: list[RecallStep] = []
        #: Burn cards taken from card inputs while a burn lasts (``None`` when no burn lasts).
        self._burning: list[Card | None] | None = None
        self._handlers: dict[type[Payload], Callable[[Payload, _Context], None]] = {
            kind: getattr(self, name) for kind, name in self.HANDLERS.items()
        }

    # --- feeding ------------------------------------------------------------------------

    def observe(
        self, event: Input, seq: int, ts: str | None, messages: Sequence[OutgoingMessage]
    ) -> None:
        """One journaled input and the messages the table published for it."""
        self.observe_payloads(event, seq, ts, [message.payload for message in messages])

    def observe_payloads(
        self, event: Input, seq: int, ts: str | None, payloads: list[Payload]
    ) -> None:
        """:meth:`observe` with the messages' payloads."""
        context = _Context(seq, ts, event, event.card if isinstance(event, EnterCard) else None)
        if hasattr(event, "command_id"):
            self._command(context, payloads)
        if (
            self._burning is not None
            and isinstance(event, CardDrawn | CardMisread | EnterCard)
            and not any(isinstance(p, CardPlaced | AlarmRaised | BurnAnnounced) for p in payloads)
        ):  # a card burned face down: no message of its own
            card = event.card if isinstance(event, CardDrawn | EnterCard) else None
            self._burning.append(card)
            self._card(context, card, "burn", context.manual is not None)
        handlers = self._handlers
        for payload in payloads:
            handler = handlers.get(type(payload))
            if handler is not None:
                handler(payload, context)
        if self._ended:  # the input's later messages (the result's prompt) stayed with it
            self._current, self._ended = None, False

    # --- reading ------------------------------------------------------------------------

    def recall(self, rounds: int = DEFAULT_ROUNDS) -> Recall:
        """The last ``rounds`` rounds (oldest first) and the steps since the last one ended.

        A copy: what the book learns later does not change it.
        """
        kept = list(self._rounds.values())[-rounds:] if rounds > 0 else []
        return {
            "rounds": [self._copy(entry) for entry in kept],
            "between_rounds": list(self._between),
        }

    def rounds_named(self, round_ids: Iterable[str]) -> list[RecalledRound]:
        """The rounds of ``round_ids`` the book still holds, in the order asked (a copy)."""
        return [self._copy(self._rounds[name]) for name in round_ids if name in self._rounds]

    def __len__(self) -> int:
        return len(self._rounds)

    @staticmethod
    def _copy(entry: _Entry) -> RecalledRound:
        copied = entry.round.copy()
        copied["steps"] = list(entry.round["steps"])
        return copied

    # --- steps --------------------------------------------------------------------------

    def _step(self, context: _Context, kind: StepKind, **fields: object) -> RecallStep:
        # The fields a kind has are its caller's to give (the class's docstring lists them).
        return cast("RecallStep", {"seq": context.seq, "ts": context.ts, "kind": kind, **fields})

    def _add(self, step: RecallStep, round_id: str | None = None) -> None:
        """Add a step to the round named (if the book holds it), the round in play, or between."""
        named = None if round_id is None else self._rounds.get(round_id)
        target = named or self._current
        if target is None:
            self._between.append(step)
        else:
            target.round["steps"].append(step)

    def _card(  # noqa: PLR0913 - a card step's fields
        self, context: _Context, card: Card | None, position: CardPosition, manual: bool,
        *, reason: str | None = None, supervisor: str | None = None,
    ) -> None:  # fmt: skip
        fields: dict[str, object] = {
            "card": _code(card),
            "position": position,
            "source": "manual" if manual else "shoe",
        }
        if manual and supervisor is not None:
            fields["supervisor"] = supervisor
        if reason is not None:
            fields["reason"] = reason
        if self._current is not None:
            self._current.cards[_code(card)] += 1
        self._add(self._step(context, "card", **fields))

    def _start(self, round_id: str, shoe_id: str, round_no: int, dealer: str | None) -> _Entry:
        """The round named, starting it (with the steps between rounds) if it is new."""
        entry = self._rounds.get(round_id)
        if entry is not None:
            return entry
        entry = _Entry(
            {
                "round_id": round_id,
                "shoe_id": shoe_id,
                "round_no": round_no,
                "dealer": dealer,
                "status": "in_play",
                "steps": self._between,
            }
        )
        self._between = []
        self._rounds[round_id] = entry
        while len(self._rounds) > self._max_rounds:
            self._rounds.popitem(last=False)
        self._current = entry
        return entry

    def _command(self, context: _Context, payloads: list[Payload]) -> None:
        event = context.event
        command_id: str = getattr(event, "command_id", "")
        reply = next(
            (p for p in payloads if isinstance(p, CommandReply) and p.id == command_id), None
        )
        fields: dict[str, object] = {
            "command": getattr(event, "COMMAND", "?"),
            "id": command_id,
            "operator": getattr(event, "operator", None),
            "supervisor": getattr(event, "supervisor", None),
            "args": _args_of(event),
            "ok": reply is not None and reply.ok,
        }
        if reply is not None and not reply.ok:
            if reply.error is not ABSENT:
                fields["error"] = str(reply.error)
            if reply.message is not ABSENT:
                fields["message"] = reply.message
        self._add(self._step(context, "command", **fields))

    def _card_placed(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, CardPlaced)
        self._start(payload.round_id, payload.shoe_id, payload.round_no, payload.dealer)
        self._card(
            context, payload.card, payload.hand.value, payload.manual,
            supervisor=payload.supervisor,
        )  # fmt: skip

    def _burn(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, BurnAnnounced)
        if not payload.done:
            self._burning = []
            self._card(context, payload.first_card, "burn", context.manual is not None)
            return
        taken = self._burning or []
        burned = () if payload.cards is ABSENT else payload.cards
        for card in burned[len(taken) :]:  # burned without a card input of their own
            self._card(context, card, "burn", manual=False)
        self._burning = None

    def _alarm(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, AlarmRaised)
        fields: dict[str, object] = {"code": payload.code.value, "message": payload.message}
        if payload.card is not ABSENT:
            card = payload.card
            manual = card is not None and card == context.manual
            self._card(context, card, "discard", manual, reason=payload.code.value)
            fields["card"] = _code(card)
        self._add(self._step(context, "alarm", **fields))

    def _prompt(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, PromptShown)
        fields: dict[str, object] = {"action": payload.action.value}
        if payload.count is not ABSENT:
            fields["count"] = payload.count
        if payload.reason is not ABSENT:
            fields["reason"] = payload.reason.value
        self._add(self._step(context, "prompt", **fields))

    def _betting(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, BettingOpened | BettingClosed)
        self._start(payload.round_id, payload.shoe_id, payload.round_no, payload.dealer)
        opened = isinstance(payload, BettingOpened)
        kind: StepKind = "betting_opened" if opened else "betting_closed"
        self._add(self._step(context, kind))

    def _settled(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, RoundSettled)
        entry = self._start(payload.round_id, payload.shoe_id, payload.round_no, payload.dealer)
        fields = _result_fields(payload.result) | {"last_round": payload.last_round}
        entry.round["steps"].append(self._step(context, "result", **fields))
        entry.round["status"] = "settled"
        if entry is self._current:
            self._ended = True

    def _voided(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, RoundVoided)
        known = payload.round_id in self._rounds
        entry = self._start(payload.round_id, payload.shoe_id, payload.round_no, payload.dealer)
        if entry is self._current and not payload.was_settled:
            leftover = Counter(_code(card) for card in payload.cards) - entry.cards
            if not known:  # the invalid round after the last: its card's alarm came first
                leftover = Counter()
            for code, times in leftover.items():
                for _ in range(times):
                    card = None if code is None else Card.parse(code)
                    self._card(context, card, "discard", manual=False, reason="voided")
        entry.round["steps"].append(self._step(
            context, "void", reason=payload.reason.value, cards=[_code(c) for c in payload.cards],
            was_settled=payload.was_settled, operator=payload.operator,
            supervisor=payload.supervisor,
        ))  # fmt: skip
        entry.round["status"] = "voided"
        if entry is self._current:
            self._ended = True

    def _corrected(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, ResultCorrected)
        fields = _result_fields(payload.result) | {
            "correction_no": payload.correction_no,
            "operator": payload.operator,
            "supervisor": payload.supervisor,
        }
        self._add(self._step(context, "correction", **fields), payload.round_id)

    def _shoe_event(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, ShoeStarted | LastRound | ShoeEnded | ShoeVoided)
        fields: dict[str, object] = {"shoe_id": payload.shoe_id}
        if isinstance(payload, ShoeEnded):
            fields["reason"] = payload.reason.value
        elif isinstance(payload, ShoeVoided):
            fields["cards"] = [_code(card) for card in payload.cards_discarded]
            fields["operator"] = payload.operator
            fields["supervisor"] = payload.supervisor
        elif isinstance(payload, LastRound):
            fields["reason"] = payload.cut_card.value
        self._add(self._step(context, payload.TYPE.value, **fields))  # type: ignore[arg-type]

    def _dispute(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, DisputeOpened | DisputeResolved)
        fields: dict[str, object] = {
            "dispute_id": payload.dispute_id,
            "reason": payload.reason,
            "round_ids": list(payload.round_ids),
            "supervisor": payload.supervisor,
        }
        if isinstance(payload, DisputeResolved):
            fields["outcome"] = payload.outcome
        self._add(self._step(context, payload.TYPE.value, **fields))  # type: ignore[arg-type]

    def _staff(self, payload: Payload, context: _Context) -> None:
        assert isinstance(payload, StaffChanged)
        self._add(self._step(
            context, "staff", staff_id=payload.staff_id, action=payload.action,
            dealer=payload.dealer, supervisor=payload.supervisor,
        ))  # fmt: skip
