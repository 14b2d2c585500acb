# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``replay``'s output: the messages numbered as the live table numbered them, then printed.

Events are printed as JSON lines or as one line a pit boss can read (:func:`readable`); replies
given at the edge and commands refused are told on stderr.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Final, TextIO

from table_controller.cli.replay_inputs import RecordedInput
from table_controller.contract import CommandReply, JsonValue, OutgoingMessage, dumps, to_wire
from table_controller.contract.commands import reply_from_data
from table_controller.procedure import CommandRefused, Decision
from table_controller.runtime import answer_message


class Printer:
    """Numbers the messages and writes them, as JSON lines or one readable line each."""

    def __init__(self, *, table_id: str, as_json: bool, out: TextIO) -> None:
        self._table_id = table_id
        self._as_json = as_json
        self._out = out
        self._seq = 0
        #: The software identity of the run that dealt what follows (a journal's start row):
        #: the live table put it on each ``shoe_started``.
        self.software: Mapping[str, object] | None = None

    def answered(
        self, reply: Mapping[str, object], recorded: RecordedInput
    ) -> CommandReply | None:
        """A reply given at the edge: numbered like every message, printed on stderr.

        ``reply`` is as the journal keeps it; returns it typed (None: it is no reply, and is
        not published).
        """
        try:
            typed = reply_from_data(reply)
        except ValueError as error:
            print(f"row {recorded.line_no}: not published: {error}", file=sys.stderr)
            return None
        self._print([answer_message(typed, key=str(recorded.line_no), ts=recorded.ts)], recorded)
        print(f"row {recorded.line_no}: answered {dict(reply)}", file=sys.stderr)
        return typed

    def decisions(
        self,
        decisions: Sequence[Decision],
        messages: Sequence[OutgoingMessage],
        recorded: RecordedInput,
    ) -> None:
        """One input's messages, and its refusals on stderr."""
        self._print(messages, recorded)
        for decision in decisions:
            if isinstance(decision, CommandRefused):
                print(
                    f"line {recorded.line_no}: {decision.command} refused "
                    f"({decision.code}): {decision.message}",
                    file=sys.stderr,
                )

    def _print(self, planned: Sequence[OutgoingMessage], recorded: RecordedInput) -> None:
        for outgoing in planned:
            self._seq += 1  # every message counts, as on the live table; events are printed
            if not outgoing.is_event:
                continue
            message = outgoing.enveloped(table_id=self._table_id, seq=self._seq, ts=recorded.ts)
            if self.software is not None and outgoing.event_type == "shoe_started":
                message["software"] = to_wire(self.software)
            text = dumps(message) if self._as_json else readable(message)
            print(text, file=self._out)


def readable(message: Mapping[str, JsonValue]) -> str:
    """One message as one line a pit boss can read."""
    kind = str(message["type"])
    head = f"#{message['seq']} {kind}"
    where = message.get("round_id") or message.get("shoe_id")
    if where:
        head += f" {where}"
    body = _BODIES.get(kind, _generic)(message)
    return f"{head} {body}".rstrip()


def _hand(hand: JsonValue) -> str:
    if not isinstance(hand, dict):
        return "?"
    cards = hand.get("cards")
    shown = " ".join(str(card) for card in cards) if isinstance(cards, list) else "?"
    return f"{shown} ({hand.get('total')})"


def _number(value: JsonValue) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        text = str(Fraction(value).limit_denominator(1000))
        return f"+{text}" if value > 0 else text
    return str(value)


def _result(message: Mapping[str, JsonValue]) -> str:
    text = (
        f"player {_hand(message.get('player'))} banker {_hand(message.get('banker'))} "
        f"-> {message.get('winner')}"
    )
    if message.get("last_round"):
        text += " [last round]"
    if "correction_no" in message:
        text += f" [correction {message['correction_no']}]"
    settlement = message.get("settlement")
    if isinstance(settlement, dict):
        text += " | " + " ".join(f"{bet} {_number(net)}" for bet, net in settlement.items())
    return text


def _card(message: Mapping[str, JsonValue]) -> str:
    manual = " (entered by hand)" if message.get("manual") else ""
    return f"{message.get('hand')} {message.get('position')}: {message.get('card')}{manual}"


def _prompt(message: Mapping[str, JsonValue]) -> str:
    extra = message.get("count", message.get("reason"))
    return f"{message.get('action')}" + ("" if extra is None else f" {extra}")


def _alarm(message: Mapping[str, JsonValue]) -> str:
    return f"{message.get('code')}: {message.get('message')}"


def _voided(message: Mapping[str, JsonValue]) -> str:
    cards = message.get("cards")
    shown = (
        " ".join("??" if card is None else str(card) for card in cards)
        if isinstance(cards, list)
        else ""
    )
    settled = " (settled round)" if message.get("was_settled") else ""
    return f"{message.get('reason')}{settled} cards: {shown or '-'}"


def _roads(message: Mapping[str, JsonValue]) -> str:
    stats = message.get("stats")
    if not isinstance(stats, dict):
        return ""
    return (
        f"banker {stats.get('banker')} player {stats.get('player')} tie {stats.get('tie')} "
        f"rounds {stats.get('rounds')}"
    )


def _generic(message: Mapping[str, JsonValue]) -> str:
    skip = {"schema", "type", "table_id", "seq", "ts", "shoe_id", "round_no", "round_id"}
    return " ".join(
        f"{key}={json.dumps(value)}" for key, value in message.items() if key not in skip
    )


_BODIES: Final = {
    "round_result": _result,
    "result_corrected": _result,
    "card": _card,
    "prompt": _prompt,
    "alarm": _alarm,
    "round_voided": _voided,
    "roads": _roads,
}
