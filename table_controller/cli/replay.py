# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller replay``: recorded inputs through the procedure, every event out (cli.md).

Edge module: reads a file, feeds the pure :class:`~table_controller.procedure.TableProcedure`,
prints what it would publish. No clock and no network: ``seq`` counts from 1 and ``ts`` is the
input line's own ``ts`` (or null), so the same inputs always print the same output.

Inputs come from an *input source* chosen by the file's first bytes
(:func:`~table_controller.cli.replay_inputs.read_inputs`): JSON lines, or a journal (recognised
by its SQLite header; its hash chain is verified first and a broken chain is refused).
Messages are numbered as the live table numbered them (the same
:class:`~table_controller.runtime.interpreter.DecisionInterpreter`), so a journal's replay shows
the ``seq`` and ``ts`` the backend received; only events and roads are printed.

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
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Final

from table_controller.cli import Subcommand, UsageError, add_table_flags
from table_controller.cli.replay_inputs import (
    RecordedInput,
    is_journal_file,
    journal_table_id,
    read_inputs,
)
from table_controller.cli.replay_printing import Printer
from table_controller.contract import CommandReply, JsonValue, dumps, fields_of
from table_controller.contract.commands import reply_data
from table_controller.history import Pace, RecallBook, recalled_again, with_disputes_sealed
from table_controller.procedure import ProcedureBug, RoundAssessed, TableProcedure
from table_controller.protection import (
    MAIN_BETS,
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
from table_controller.rules import VARIANTS, Variant
from table_controller.runtime import (
    DecisionInterpreter,
)

DEFAULT_TABLE_ID: Final = "replay"
FAULT_STATUS: Final = 1
#: The only file type ``--plot`` writes.
PLOT_SUFFIX: Final = ".png"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``replay`` flags."""
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
    inputs = list(read_inputs(args.inputs))
    table_id = args.table_id or journal_table_id(args.inputs) or DEFAULT_TABLE_ID
    variant = VARIANTS[args.variant]
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
