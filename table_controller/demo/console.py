# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's console view: a line per result, void, shoe, alarm and status a backend receives.

Pure: no I/O, no clock, no randomness. The adapter hands :meth:`ConsoleView.handle` every
message it receives on ``<prefix>/+/#`` and prints the lines it returns. Like the reference
consumer (``table-controller watch``), it follows mqtt-api.md's rules through
:mod:`table_controller.mqtt.consumer`: a ``seq`` seen before is a duplicate (flagged and
dropped), a jump in ``seq`` is a gap (flagged), a message filling a gap is late; retained
snapshots delivered on subscribing and commands to the table are not part of the stream.

A round result reads::

    DEMO DEMO-S0001-12  BANKER 7-5  (natural)  pairs: -     dealer D-01  player 5H KD  banker 7C QS

the winner, its total then the other hand's (player's first on a tie), ``(natural)`` when a
hand was dealt 8 or 9, which pairs came (``P``, ``B``, ``P B`` or ``-``) and the dealer who
dealt it (``-`` with none signed in). A change of staff reads ``dealer D-01 signed in``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from table_controller.mqtt import Incoming, StreamTracker, read_message, seq_of

#: Shown in place of ``(natural)`` so that the columns after it line up.
_NO_NATURAL = " " * len("(natural)")


@dataclass(frozen=True, slots=True, kw_only=True)
class Hand:
    """One side of a coup as published: its cards and total."""

    cards: tuple[str, ...]
    total: int | None

    @classmethod
    def read(cls, value: object) -> Hand:
        """The hand of a ``player`` or ``banker`` field (empty when unreadable)."""
        if not isinstance(value, dict):
            return cls(cards=(), total=None)
        cards = value.get("cards")
        total = value.get("total")
        return cls(
            cards=tuple(str(card) for card in cards) if isinstance(cards, list) else (),
            total=total if isinstance(total, int) and not isinstance(total, bool) else None,
        )


def _total(hand: Hand) -> str:
    return "?" if hand.total is None else str(hand.total)


def describe_result(message: dict[str, object]) -> str:
    """A ``round_result`` (or the new result of a ``result_corrected``) in one line."""
    player = Hand.read(message.get("player"))
    banker = Hand.read(message.get("banker"))
    winner = str(message.get("winner", "?"))
    first, second = (banker, player) if winner == "banker" else (player, banker)
    natural = "(natural)" if message.get("natural") is True else _NO_NATURAL
    pairs = [
        mark
        for mark, key in (("P", "player_pair"), ("B", "banker_pair"))
        if message.get(key) is True
    ]
    dealer = message.get("dealer")
    return (
        f"{message.get('round_id', '?')}  {winner.upper():<6} {_total(first)}-{_total(second)}"
        f"  {natural}  pairs: {' '.join(pairs) or '-':<4}"
        f"  dealer {dealer if isinstance(dealer, str) else '-'}"
        f"  player {' '.join(player.cards):<8}  banker {' '.join(banker.cards)}"
    )


def describe_staff(message: dict[str, object]) -> str:
    """A ``staff_changed``: who signed in or out, as dealer or supervisor."""
    staff_id = _text(message, "staff_id")
    dealers = (message.get("dealer"), message.get("previous_dealer"))
    role = "dealer" if staff_id in dealers else "supervisor"
    done = "signed in" if message.get("action") == "sign_in" else "signed out"
    return f"{role} {staff_id} {done}"


def _text(message: dict[str, object], key: str) -> str:
    value = message.get(key)
    return "?" if value is None else str(value)


#: The line of each event type the view shows (the others it leaves out).
_EVENT_LINES: Final[dict[str, Callable[[dict[str, object]], str]]] = {
    "round_result": describe_result,
    "result_corrected": lambda m: f"{describe_result(m)}  (CORRECTED)",
    "round_voided": lambda m: f"{_text(m, 'round_id')}  VOIDED ({_text(m, 'reason')})",
    "shoe_started": lambda m: f"shoe {_text(m, 'shoe_id')} started ({_text(m, 'variant')})",
    "last_round": lambda m: f"cut card: last round {m.get('round_id') or '(none)'}",
    "shoe_ended": lambda m: (
        f"shoe {_text(m, 'shoe_id')} ended ({_text(m, 'reason')}), {_text(m, 'rounds')} rounds"
    ),
    "shoe_voided": lambda m: f"shoe {_text(m, 'shoe_id')} VOIDED",
    "alarm": lambda m: f"ALARM {_text(m, 'code')}: {m.get('message', '')}",
    "staff_changed": describe_staff,
}


def describe_event(message: dict[str, object]) -> str | None:
    """The line for one event of the table, or None for events the view leaves out."""
    if message.get("type") == "burn":  # shown when the face-up card says how many: a wait
        if message.get("done") is not False:
            return None
        return f"burn: {_text(message, 'first_card')} turned up, {_text(message, 'count')} to burn"
    line = _EVENT_LINES.get(str(message.get("type")))
    return None if line is None else line(message)


class ConsoleView:
    """What the demo's backend prints, and its counts (results, duplicates, gaps).

    Args:
        prefix: The topic prefix (``<prefix>/<table>/...``).
    """

    def __init__(self, *, prefix: str) -> None:
        self.prefix = prefix
        self.tracker = StreamTracker()
        #: Distinct round ids settled, per table.
        self.settled: dict[str, set[str]] = {}
        self.duplicates = 0
        self.gaps = 0

    @property
    def results(self) -> int:
        """How many distinct rounds were settled, over every table."""
        return sum(len(rounds) for rounds in self.settled.values())

    def read(self, topic: str, payload: bytes, *, retained: bool) -> Incoming | None:
        """The message split into table, channel and JSON (None when off the prefix)."""
        return read_message(topic, payload, prefix=self.prefix, retained=retained)

    def handle(self, incoming: Incoming) -> list[str]:
        """The lines one received message adds to the view."""
        if incoming.channel == "commands":
            return []  # the pit's commands to the table (the table's replies count for seq)
        table, message = incoming.table_id, incoming.message
        if message is None:
            return [f"{table} UNREADABLE message on {incoming.channel}"]
        if incoming.channel == "status":
            return self._status(incoming, message)
        if incoming.retained:
            return []  # a snapshot delivered on subscribing, not part of the live stream
        return self._event(table, incoming.channel, message)

    def _event(self, table: str, channel: str, message: dict[str, object]) -> list[str]:
        seq = seq_of(message)
        if seq is None:
            return [f"{table} NO SEQ in a message on {channel}"]
        observation = self.tracker.observe(table, seq)
        lines: list[str] = []
        match observation.verdict:
            case "duplicate":
                self.duplicates += 1
                return [f"{table} DUPLICATE seq {seq} (dropped)"]
            case "gap":
                self.gaps += 1
                lines += [
                    f"{table} GAP seq {low}-{high} missing (got {seq})"
                    for low, high in observation.missing
                ]
            case "late":
                lines.append(f"{table} LATE seq {seq} (fills a gap)")
        if message.get("type") == "round_result":
            self.settled.setdefault(table, set()).add(_text(message, "round_id"))
        text = describe_event(message)
        if text is not None:
            lines.append(f"{table} {text}")
        return lines

    def _status(self, incoming: Incoming, message: dict[str, object]) -> list[str]:
        online = message.get("online") is True
        session = message.get("session")
        session_no = session if isinstance(session, int) else 0
        table = incoming.table_id
        verdict = self.tracker.observe_status(table, online=online, session=session_no)
        if verdict == "stale":
            return [f"{table} stale {'birth' if online else 'will'} of session {session} ignored"]
        reader = message.get("reader")
        extra = f", reader {reader}" if isinstance(reader, str) else ""
        return [f"{table} {'ONLINE' if online else 'OFFLINE'} (session {session}{extra})"]

    def summary(self) -> str:
        """The closing line: results, duplicates and gaps seen."""
        return f"{self.results} results, {self.duplicates} duplicates, {self.gaps} gaps"
