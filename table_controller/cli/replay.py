# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller replay``: recorded inputs through the procedure, every event out.

Its use: docs/operations.md, "Replaying a journal or a recording: `replay`".

Edge module: reads a file, feeds the pure :class:`~table_controller.procedure.TableProcedure`,
prints what it would publish. No clock and no network: ``seq`` counts from 1 and ``ts`` is the
input line's own ``ts`` (or null), so the same inputs always print the same output.

Inputs come from an *input source* chosen by the file's first bytes (:func:`read_inputs`): JSON
lines, or a journal (recognised by its SQLite header; its hash chain is verified before any row
is read and a broken chain is refused); a bad file is a usage error. Messages are numbered as
the live table numbered them (the same
:class:`~table_controller.runtime.interpreter.DecisionInterpreter`), so a journal's replay shows
the ``seq`` and ``ts`` the backend received; only events and roads are printed, as JSON lines or
one line each a pit boss can read (:func:`readable`). Replies given at the edge and commands
refused are told on stderr.

The live table's assessments (each round's odds, ``edge_positive``, ``shuffle_pattern``,
``shoe_repeated``) are inputs of their own, journaled where the table took them, so a journal
is replayed as recorded (it holds every assessment its table took, none if live odds were
off) and so are JSON lines that hold assessments. JSON lines that hold none are assessed here
as ``run`` assesses them, with its default settings: the same
:class:`~table_controller.protection.advisor.RoundAdvisor` asked after each input, its
assessment taken right after the input that made it due, synchronously (a live table takes it
there unless another input arrives during the millisecond of analysis). ``--no-assess`` skips
them.

``--edges`` prints instead, for each shoe (or the one ``--shoe`` names), every bet's exact house
edge before each round; ``--plot FILE.png`` draws them (matplotlib, the ``plot`` extra). The
cards of a shoe are taken from the events the replay publishes
(:class:`~table_controller.protection.replay_edges.ShoeRecorder`), so round ``n``'s edges are
those of the cards out of the shoe, as the procedure counted them, when round ``n`` began.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Final, TextIO

from table_controller.cli import Subcommand, UsageError, add_table_flags
from table_controller.cli.variant_flags import VARIANT_HELP, add_variant_flags, chosen_variant
from table_controller.contract import (
    CommandReply,
    JsonValue,
    OutgoingMessage,
    dumps,
    fields_of,
    to_wire,
)
from table_controller.contract.commands import reply_data, reply_from_data
from table_controller.history import Pace, RecallBook, recalled_again, with_disputes_sealed
from table_controller.procedure import (
    CommandRefused,
    Decision,
    Input,
    ProcedureBug,
    RecordRejected,
    RoundAssessed,
    TableProcedure,
    input_from_record,
)
from table_controller.protection import (
    AdvisorSettings,
    PlotUnavailableError,
    RecordedShoe,
    ReplayedRound,
    RoundAdvisor,
    RoundEdges,
    ShoeRecorder,
    plot_edges,
    replay_edges,
    require_matplotlib,
)
from table_controller.rules import MAIN_BETS, Variant, rules_digest
from table_controller.runtime import DecisionInterpreter, answer_message
from table_controller.runtime.journal import (
    ANSWER_KEY,
    INPUT_ROW,
    RECALL_ANSWER_KEY,
    Journal,
    JournalError,
    is_journal,
)

DEFAULT_TABLE_ID: Final = "replay"
FAULT_STATUS: Final = 1
#: The only file type ``--plot`` writes.
PLOT_SUFFIX: Final = ".png"
#: The first 16 bytes of every SQLite database file: how a journal is recognised.
JOURNAL_HEADER: Final = b"SQLite format 3\x00"
#: The key of a journal's start row (an audit row ``run`` writes at every start).
STARTED_KEY: Final = "started"
#: The operator of a recorded command that names none.
DEFAULT_OPERATOR: Final = "replay"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``replay`` flags."""
    add_variant_flags(parser, variant_help=f"the table's variant: {VARIANT_HELP}")
    parser.add_argument(
        "--inputs",
        type=Path,
        metavar="FILE",
        required=True,
        help="one input per line as JSON (or a journal file)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON message per line on stdout")
    parser.add_argument(
        "--no-assess",
        action="store_true",
        help="do not assess JSON-lines inputs that hold no assessments (by default they get "
        "the odds, edge_positive, shuffle_pattern and shoe_repeated of run's defaults; a "
        "journal is always replayed as recorded)",
    )
    add_table_flags(parser)
    parser.add_argument(
        "--table-id",
        default=None,
        metavar="ID",
        help=f"table id written in each message (default: the journal's, else {DEFAULT_TABLE_ID})",
    )
    parser.add_argument(
        "--edges",
        action="store_true",
        help="instead of the events, print each bet's house edge before each round of each shoe "
        "(with --json: one JSON object per round)",
    )
    parser.add_argument(
        "--shoe",
        default=None,
        metavar="SHOE_ID",
        help="with --edges or --plot: only this shoe of the recording",
    )
    parser.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="FILE.png",
        help="draw the shoe's side-bet edges round by round into this PNG "
        "(needs the plot extra: pip install 'table-controller[plot]')",
    )
    parser.add_argument(
        "--threshold",
        type=percent,
        default=None,
        metavar="PCT",
        help="with --edges or --plot: mark (and alarm) a house edge below PCT %% (default 0)",
    )


def percent(text: str) -> Fraction:
    """An argparse ``type``: a percentage (``0``, ``-0.5``, ``1/3``) as an exact fraction of 1."""
    try:
        return Fraction(text.strip()) / 100
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None


def run(args: argparse.Namespace) -> int:
    """Replay the file; 0 when every input was handled, 1 if the procedure faulted."""
    edges_wanted = args.edges or args.plot is not None
    if not edges_wanted and (args.shoe is not None or args.threshold is not None):
        raise UsageError("--shoe and --threshold go with --edges or --plot")
    if args.plot is not None:
        _check_plot_target(args.plot)
    variant = chosen_variant(args)
    inputs = list(read_inputs(args.inputs, variant))
    table_id = args.table_id or journal_table_id(args.inputs) or DEFAULT_TABLE_ID
    machine = TableProcedure(
        variant,
        table_id=table_id,
        betting_phase=args.betting_phase,
        require_dealer=args.require_dealer,
        confirm_results=args.confirm_results,
    )
    # With --plot, the events are held back until the shoe to draw is known to be there.
    held = io.StringIO() if args.plot is not None and not args.edges else None
    out = sys.stdout if held is None else held
    printer = None if args.edges else Printer(table_id=table_id, as_json=args.json, out=out)
    recorder = ShoeRecorder() if edges_wanted else None
    as_recorded = args.no_assess or is_journal_file(args.inputs) or holds_assessments(inputs)
    advisor = (
        None
        if as_recorded or printer is None
        else RoundAdvisor(variant, AdvisorSettings())  # run's defaults (live_odds on)
    )
    status = _replay(machine, inputs, printer, recorder, advisor)
    if status != 0 or recorder is None:
        _release(held)
        return status
    shoes = _chosen_shoes(recorder.shoes(), args)
    _release(held)
    threshold = Fraction(0) if args.threshold is None else args.threshold
    replayed = [(shoe, replay_edges(variant, shoe, threshold=threshold)) for shoe in shoes]
    if args.edges:
        _print_edges(variant, replayed, as_json=args.json, threshold=threshold)
    if args.plot is not None:
        shoe, rounds = replayed[0]
        _draw(variant, shoe, rounds, args.plot)
    return 0


SUBCOMMAND = Subcommand(
    help=(
        "run recorded inputs (or a journal) through the controller offline, printing every event"
    ),
    description=(
        "Replay recorded inputs through the table procedure and print every event "
        "it would publish, in order. No clock, no network: the same inputs give the same output."
    ),
    add_arguments=add_arguments,
    handler=run,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedInput:
    """One input read back from a file, with where it came from and its wall time."""

    line_no: int
    ts: str | None
    event: Input | None
    #: A reply the table gave without the procedure (refused at the edge, or repeated).
    answer: Mapping[str, object] | None = None
    #: A ``recall``'s reply by its seal (``recall_answer``): made again from the rows before.
    recall: Mapping[str, object] | None = None
    #: A journal row's hash (a dispute's ``journal_head``); None for JSON lines.
    hash: str | None = None
    #: A start row's software identity (``version``, ``sha256``): what the table that started
    #: then put on its ``shoe_started`` messages.
    software: Mapping[str, object] | None = None


def read_inputs(path: Path, variant: Variant | None = None) -> Iterator[RecordedInput]:
    """The inputs recorded in ``path``, whatever its kind; a bad file raises ``UsageError``.

    With ``variant``, a journal whose table started under another variant (by its name, or by
    the digest of its rules: another variant file) is refused: its rounds would be settled
    again by rules the table did not play.
    """
    if is_journal_file(path):
        return _journal_rows(path, variant)
    return _json_lines(path)


def is_journal_file(path: Path) -> bool:
    """Whether ``path`` starts as a journal does (an SQLite file); unreadable: ``UsageError``."""
    try:
        with path.open("rb") as file:
            return file.read(len(JOURNAL_HEADER)) == JOURNAL_HEADER
    except OSError as error:
        raise UsageError(f"--inputs: cannot read {path}: {error.strerror}") from None


def journal_table_id(path: Path) -> str | None:
    """The table id a journal file was written for, if ``path`` is a journal."""
    if not is_journal(path):
        return None
    with Journal.open_read_only(path) as journal:
        return journal.meta("table_id")


def _journal_rows(path: Path, variant: Variant | None) -> Iterator[RecordedInput]:
    if not is_journal(path):
        raise UsageError(f"--inputs: {path} is an SQLite file but not a table-controller journal")
    try:
        journal = Journal.open_read_only(path)
    except JournalError as error:
        raise UsageError(f"--inputs: {error}") from None
    with journal:
        try:
            return iter(_verified_rows(journal, path, variant))
        except JournalError as error:  # a damaged page found while reading
            raise UsageError(f"--inputs: {error}") from None


def _verified_rows(journal: Journal, path: Path, variant: Variant | None) -> list[RecordedInput]:
    report = journal.verify()
    if not report.ok:
        raise UsageError(f"--inputs: {path}: the hash chain is broken: {report.problems[0]}")
    recorded: list[RecordedInput] = []
    for row in journal.rows():
        if row.type != INPUT_ROW:
            answer = row.payload.get(ANSWER_KEY)
            if isinstance(answer, Mapping):
                recorded.append(
                    RecordedInput(line_no=row.seq, ts=row.ts_utc, event=None, answer=answer)
                )
            recalled = row.payload.get(RECALL_ANSWER_KEY)
            if isinstance(recalled, Mapping):
                recorded.append(
                    RecordedInput(line_no=row.seq, ts=row.ts_utc, event=None, recall=recalled)
                )
            if variant is not None:
                _check_started_variant(row.payload, variant, f"{path}, journal row {row.seq}")
            software = _started_software(row.payload)
            if software is not None:
                recorded.append(
                    RecordedInput(line_no=row.seq, ts=row.ts_utc, event=None, software=software)
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
        recorded.append(RecordedInput(line_no=row.seq, ts=row.ts_utc, event=event, hash=row.hash))
    return recorded


def _check_started_variant(payload: Mapping[str, object], variant: Variant, where: str) -> None:
    """Refuse a start row (``integrity/at_start.py``) of another variant than ``variant``."""
    started = payload.get(STARTED_KEY)
    if not isinstance(started, Mapping):
        return
    name, digest = started.get("variant"), started.get("variant_rules")
    if isinstance(name, str) and name != variant.name:
        raise UsageError(
            f"{where}: the table started as variant {name!r}, not {variant.name!r}: give"
            f" --variant {name} (and the variant file it ran with, --paytable)"
        )
    if isinstance(digest, str) and digest != rules_digest(variant):
        raise UsageError(
            f"{where}: the table's {name!r} had other rules (pay tables, windows or shoe) than"
            " the one given: give the variant file it ran with (--paytable)"
        )


def _started_software(payload: Mapping[str, object]) -> dict[str, object] | None:
    """The ``software`` a start row names (``integrity/at_start.py``), as messages carry it."""
    started = payload.get(STARTED_KEY)
    software = started.get("software") if isinstance(started, Mapping) else None
    if not isinstance(software, Mapping):
        return None
    return {name: software.get(name) for name in ("version", "sha256")}


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


def holds_assessments(inputs: Sequence[RecordedInput]) -> bool:
    """Whether the inputs hold a table's assessments (its journal exported whole, say)."""
    return any(isinstance(recorded.event, RoundAssessed) for recorded in inputs)


def _replay(
    machine: TableProcedure,
    inputs: Sequence[RecordedInput],
    printer: Printer | None,
    recorder: ShoeRecorder | None,
    advisor: RoundAdvisor | None,
) -> int:
    """Every input through the procedure: its messages printed, its events recorded.

    With an ``advisor``, after each input the assessment it made due, if any, is taken as the
    next input (with the input's line and ``ts``), as the live service takes it.
    """
    interpreter = DecisionInterpreter(pace=Pace())  # the live table's ``stats``, in place
    book = RecallBook()  # a dispute's recall, as the live table sealed it; a recall's reply
    given: dict[str, CommandReply] = {}  # the replies given at the edge, by command id
    for recorded in inputs:
        if recorded.event is None:
            if recorded.answer is not None and printer is not None:
                reply = printer.answered(recorded.answer, recorded)
                if reply is not None:
                    given[str(recorded.answer.get("id"))] = reply
            if recorded.recall is not None and printer is not None:
                _recalled(recorded, book, given, printer)
            if recorded.software is not None and printer is not None:
                printer.software = recorded.software  # the live table's, from this start on
            continue
        taking: RecordedInput | None = recorded
        while taking is not None:
            if not _take(machine, taking, (interpreter, book), (printer, recorder, advisor)):
                return FAULT_STATUS
            assessed = (
                None
                if advisor is None
                else advisor.assess(machine.shoe_count(), at=recorded.event.at)
            )
            taking = None if assessed is None else replace(recorded, event=assessed)
    return 0


def _recalled(
    recorded: RecordedInput,
    book: RecallBook,
    given: dict[str, CommandReply],
    printer: Printer,
) -> None:
    """A ``recall``'s reply made again from the rows before it, checked against its seal.

    A repeated id was answered as first given: ``given`` holds the replies by id.
    """
    assert recorded.recall is not None
    command_id = str(recorded.recall.get("id"))
    try:
        reply = recalled_again(recorded.recall, book, given.get(command_id))
    except ValueError as error:
        print(f"row {recorded.line_no}: not published: {error}", file=sys.stderr)
        return
    given[command_id] = reply
    printer.answered(reply_data(reply), recorded)


def _take(
    machine: TableProcedure,
    recorded: RecordedInput,
    readers: tuple[DecisionInterpreter, RecallBook],
    followers: tuple[Printer | None, ShoeRecorder | None, RoundAdvisor | None],
) -> bool:
    """One input through the procedure, its messages printed; False if the procedure faulted."""
    assert recorded.event is not None
    interpreter, book = readers
    printer, recorder, advisor = followers
    faulted: ProcedureBug | None = None
    try:
        decisions = machine.handle(recorded.event)
    except ProcedureBug as bug:
        faulted, decisions = bug, list(bug.decisions)
    state = machine.snapshot()
    if advisor is not None and faulted is None:
        advisor.observe(recorded.event, state)
    outcome = interpreter.interpret(decisions, state, key=str(recorded.line_no), ts=recorded.ts)
    messages = with_disputes_sealed(outcome.messages, book, recorded.hash)
    book.observe(recorded.event, recorded.line_no, recorded.ts, messages)
    if printer is not None:
        printer.decisions(decisions, messages, recorded)
    if faulted is not None:
        print(f"line {recorded.line_no}: the procedure faulted: {faulted}", file=sys.stderr)
        return False
    if recorder is not None:
        for message in messages:
            if message.is_event:
                recorder.observe(message.event_type, fields_of(message.payload))
    return True


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

    def answered(self, reply: Mapping[str, object], recorded: RecordedInput) -> CommandReply | None:
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


def _print_edges(
    variant: Variant,
    replayed: Sequence[tuple[RecordedShoe, Sequence[ReplayedRound]]],
    *,
    as_json: bool,
    threshold: Fraction,
) -> None:
    for number, (shoe, rounds) in enumerate(replayed):
        if as_json:
            for row in edge_rows(variant, shoe.shoe_id, rounds):
                print(dumps(row))
            continue
        if number:
            print()
        print(edge_table(variant, shoe, rounds, threshold=threshold))


def _check_plot_target(path: Path) -> None:
    """Refuse ``--plot`` before any work when the file cannot be written or drawn."""
    if path.suffix.lower() != PLOT_SUFFIX:
        raise UsageError(f"--plot: the file must end in {PLOT_SUFFIX}, got {str(path)!r}")
    if not path.parent.is_dir():
        raise UsageError(f"--plot: no such directory: {path.parent}")
    try:
        require_matplotlib()
    except PlotUnavailableError as error:
        raise UsageError(f"--plot: {error}") from None


def _release(held: io.StringIO | None) -> None:
    """Print the events held back, if any."""
    if held is not None:
        sys.stdout.write(held.getvalue())


def _chosen_shoes(shoes: Sequence[RecordedShoe], args: argparse.Namespace) -> list[RecordedShoe]:
    """The shoes ``--shoe`` names (one for ``--plot``); a shoe not there is a usage error."""
    names = ", ".join(shoe.shoe_id for shoe in shoes) or "none"
    if args.shoe is not None:
        chosen = [shoe for shoe in shoes if shoe.shoe_id == args.shoe]
        if not chosen:
            raise UsageError(f"--shoe: no shoe {args.shoe!r} in {args.inputs} (shoes: {names})")
        return chosen
    if not shoes:
        raise UsageError(f"{args.inputs}: the recording holds no shoe")
    if args.plot is not None and len(shoes) > 1:
        raise UsageError(f"--plot draws one shoe: name it with --shoe (shoes: {names})")
    return list(shoes)


def side_bets(variant: Variant) -> tuple[str, ...]:
    """The bets a plot draws: the side bets (the main bets when the variant has none)."""
    side = tuple(bet_id for bet_id in variant.bet_ids if bet_id not in MAIN_BETS)
    return side or variant.bet_ids


def _draw(
    variant: Variant, shoe: RecordedShoe, rounds: Sequence[ReplayedRound], path: Path
) -> None:
    bets = side_bets(variant)
    ends = {
        window.last
        for bet_id in bets
        if (window := variant.offer(bet_id).window) is not None and not variant.virtual
    }
    title = f"{variant.title}, shoe {shoe.shoe_id}: house edge before each round"
    plot_edges(rounds, path, bets=bets, title=title, window_ends=ends)
    print(f"edges of shoe {shoe.shoe_id} ({len(rounds)} rounds) drawn in {path}", file=sys.stderr)


def edge_rows(
    variant: Variant, shoe_id: str, rounds: Sequence[ReplayedRound]
) -> Iterator[dict[str, JsonValue]]:
    """``--edges --json``: one object per round; ``house_edge`` a fraction of the stake.

    A round without odds (too few cards, an impossible count) has ``cards_left`` and every
    ``house_edge`` null, and says why in ``no_odds``.
    """
    for replayed in rounds:
        edges = replayed.edges
        row: dict[str, JsonValue] = {
            "shoe_id": shoe_id,
            "round_no": replayed.round_no,
            "cards_left": edges.cards_left if isinstance(edges, RoundEdges) else None,
            "bets": {
                bet_id: {
                    "house_edge": _as_float(replayed.house_edge(bet_id)),
                    "offered": replayed.offer.is_offered(bet_id),
                }
                for bet_id in variant.bet_ids
            },
        }
        if not isinstance(edges, RoundEdges):
            row["no_odds"] = edges.reason
        yield row


def _as_float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def edge_table(
    variant: Variant,
    shoe: RecordedShoe,
    rounds: Sequence[ReplayedRound],
    *,
    threshold: Fraction,
) -> str:
    """``--edges``: one row per round, each bet's house edge in %; then the alarms.

    ``*`` marks an edge below the threshold, parentheses a bet not offered on the round.
    """
    bets = variant.bet_ids
    widths = [max(len(bet_id), 10) for bet_id in bets]
    lines = [
        (
            f"shoe {shoe.shoe_id} ({variant.name}, {variant.decks} decks): house edge in % "
            f"before each round; * below {float(threshold) * 100:g} %, (…) not offered"
        ),
        "round  cards  " + "  ".join(f"{b:>{w}}" for b, w in zip(bets, widths, strict=True)),
    ]
    for replayed in rounds:
        edges = replayed.edges
        if not isinstance(edges, RoundEdges):
            lines.append(f"{replayed.round_no:>5}  {'-':>5}  no odds: {edges.reason}")
            continue
        cells = []
        for bet_id, width in zip(bets, widths, strict=True):
            edge = edges.house_edge(bet_id)
            text = _edge_text(edge)
            if not replayed.offer.is_offered(bet_id):
                text = f"({text})"
            text += "*" if edge < threshold else " "
            cells.append(f"{text:>{width + 1}}")
        lines.append(f"{replayed.round_no:>5}  {edges.cards_left:>5} " + " ".join(cells).rstrip())
    if not rounds:
        lines.append("no round was dealt")
    lines.extend(
        f"edge_positive: round {alarm.round_no} {alarm.bet_id} {_edge_text(alarm.house_edge)} %"
        for replayed in rounds
        for alarm in replayed.alarms
    )
    return "\n".join(lines)


def _edge_text(edge: Fraction) -> str:
    return f"{float(edge) * 100:+.3f}"
