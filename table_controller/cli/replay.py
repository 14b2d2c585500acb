"""``table-controller replay``: recorded inputs through the procedure, every event out (cli.md).

Edge module: reads a file, feeds the pure :class:`~table_controller.procedure.TableProcedure`,
prints what it would publish. No clock and no network: ``seq`` counts from 1 and ``ts`` is the
input line's own ``ts`` (or null), so the same inputs always print the same output.

Inputs come from an *input source* chosen by the file's first bytes (:func:`read_inputs`):
JSON lines, or a journal (recognised by its SQLite header; its hash chain is verified first and
a broken chain is refused). Messages are numbered as the live table numbered them
(:class:`~table_controller.publishing.outgoing.MessagePlanner`), so a journal's replay shows the
``seq`` and ``ts`` the backend received; only events and roads are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Final, TextIO

from table_controller.cli import UsageError
from table_controller.procedure.decisions import CommandRefused, Decision
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.events import Input
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import RecordRejected, input_from_record
from table_controller.publishing.messages import JsonValue, dumps, envelope
from table_controller.publishing.outgoing import MessagePlanner, OutgoingMessage
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal import (
    ANSWER_KEY,
    INPUT_ROW,
    Journal,
    JournalError,
    is_journal,
)

#: The first 16 bytes of every SQLite database file: how a journal is recognised.
JOURNAL_HEADER: Final = b"SQLite format 3\x00"
DEFAULT_TABLE_ID: Final = "replay"
DEFAULT_OPERATOR: Final = "replay"
FAULT_STATUS: Final = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedInput:
    """One input read back from a file, with where it came from and its wall time."""

    line_no: int
    ts: str | None
    event: Input | None
    #: A reply the table gave without the procedure (refused at the edge, or repeated).
    answer: Mapping[str, object] | None = None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``replay`` sub-command."""
    parser = subparsers.add_parser(
        "replay",
        help="run recorded inputs (or a journal) through the controller offline, printing every "
        "event",
        description="Replay recorded inputs through the table procedure and print every event "
        "it would publish, in order. No clock, no network: the same inputs give the same output.",
    )
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="commission")
    parser.add_argument(
        "--inputs",
        type=Path,
        metavar="FILE",
        required=True,
        help="one input per line as JSON (or a journal file)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON message per line on stdout")
    parser.add_argument(
        "--betting-phase",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="whether rounds have a betting period opened and closed by commands",
    )
    parser.add_argument(
        "--table-id",
        default=None,
        metavar="ID",
        help=f"table id written in each message (default: the journal's, else {DEFAULT_TABLE_ID})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Replay the file; 0 when every input was handled, 1 if the procedure faulted."""
    inputs = list(read_inputs(args.inputs))
    table_id = args.table_id or journal_table_id(args.inputs) or DEFAULT_TABLE_ID
    machine = TableProcedure(
        VARIANTS[args.variant], table_id=table_id, betting_phase=args.betting_phase
    )
    printer = _Printer(table_id=table_id, as_json=args.json, out=sys.stdout)
    for recorded in inputs:
        if recorded.event is None:
            if recorded.answer is not None:
                printer.answered(recorded.answer, recorded)
            continue
        try:
            decisions = machine.handle(recorded.event)
        except ProcedureBug as bug:
            printer.decisions(bug.decisions, recorded, machine.snapshot())
            print(f"line {recorded.line_no}: the procedure faulted: {bug}", file=sys.stderr)
            return FAULT_STATUS
        printer.decisions(decisions, recorded, machine.snapshot())
    return 0


def read_inputs(path: Path) -> Iterator[RecordedInput]:
    """The inputs recorded in ``path``, whatever its kind; a bad file raises ``UsageError``."""
    try:
        with path.open("rb") as file:
            head = file.read(len(JOURNAL_HEADER))
    except OSError as error:
        raise UsageError(f"--inputs: cannot read {path}: {error.strerror}") from None
    if head == JOURNAL_HEADER:
        return _journal_rows(path)
    return _json_lines(path)


def journal_table_id(path: Path) -> str | None:
    """The table id a journal file was written for, if ``path`` is a journal."""
    if not is_journal(path):
        return None
    with Journal.open_read_only(path) as journal:
        return journal.meta("table_id")


def _journal_rows(path: Path) -> Iterator[RecordedInput]:
    if not is_journal(path):
        raise UsageError(f"--inputs: {path} is an SQLite file but not a table-controller journal")
    try:
        journal = Journal.open_read_only(path)
    except JournalError as error:
        raise UsageError(f"--inputs: {error}") from None
    report = journal.verify()
    if not report.ok:
        journal.close()
        raise UsageError(f"--inputs: {path}: the hash chain is broken: {report.problems[0]}")
    recorded: list[RecordedInput] = []
    with journal:
        for row in journal.rows():
            if row.type != INPUT_ROW:
                answer = row.payload.get(ANSWER_KEY)
                if isinstance(answer, Mapping):
                    recorded.append(
                        RecordedInput(line_no=row.seq, ts=row.ts_utc, event=None, answer=answer)
                    )
                continue
            event = input_from_record(
                dict(row.payload),
                default_at=0.0,
                default_command_id=f"journal-{row.seq}",
                default_operator=DEFAULT_OPERATOR,
            )
            if isinstance(event, RecordRejected):
                raise UsageError(f"{path}, journal row {row.seq}: {event.reason}")
            recorded.append(RecordedInput(line_no=row.seq, ts=row.ts_utc, event=event))
    return iter(recorded)


def _json_lines(path: Path) -> Iterator[RecordedInput]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--inputs: cannot read {path} as UTF-8 text: {error}") from None
    recorded: list[RecordedInput] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise UsageError(f"{path}, line {line_no}: not JSON: {error.msg}") from None
        event = input_from_record(
            record,
            default_at=float(line_no),
            default_command_id=f"line-{line_no}",
            default_operator=DEFAULT_OPERATOR,
        )
        if isinstance(event, RecordRejected):
            raise UsageError(f"{path}, line {line_no}: {event.reason}")
        ts = record.get("ts")
        if ts is not None and not isinstance(ts, str):
            raise UsageError(f"{path}, line {line_no}: 'ts' must be a string")
        recorded.append(RecordedInput(line_no=line_no, ts=ts, event=event))
    return iter(recorded)


class _Printer:
    """Numbers the messages and writes them, as JSON lines or one readable line each."""

    def __init__(self, *, table_id: str, as_json: bool, out: TextIO) -> None:
        self._table_id = table_id
        self._as_json = as_json
        self._out = out
        self._seq = 0
        self._planner = MessagePlanner()

    def answered(self, reply: Mapping[str, object], recorded: RecordedInput) -> None:
        """A reply given at the edge: numbered like every message, printed on stderr."""
        self._print(
            self._planner.answer(reply, key=str(recorded.line_no), ts=recorded.ts), recorded
        )
        print(f"row {recorded.line_no}: answered {dict(reply)}", file=sys.stderr)

    def decisions(
        self,
        decisions: list[Decision] | tuple[Decision, ...],
        recorded: RecordedInput,
        state: Mapping[str, object],
    ) -> None:
        planned = self._planner.plan(decisions, state, key=str(recorded.line_no), ts=recorded.ts)
        self._print(planned, recorded)
        for decision in decisions:
            if isinstance(decision, CommandRefused):
                print(
                    f"line {recorded.line_no}: {decision.command} refused "
                    f"({decision.code}): {decision.message}",
                    file=sys.stderr,
                )

    def _print(self, planned: list[OutgoingMessage], recorded: RecordedInput) -> None:
        for outgoing in planned:
            self._seq += 1  # every message counts, as on the live table; events are printed
            if not outgoing.is_event:
                continue
            message = envelope(
                outgoing.event_type,
                outgoing.payload,
                table_id=self._table_id,
                seq=self._seq,
                ts=recorded.ts,
            )
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
