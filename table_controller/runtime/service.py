# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table service: shoe link -> journal -> acknowledgement -> procedure -> decisions.

Runtime: the only place where time, I/O and ordering meet. It holds no rules; every decision
comes from :class:`~table_controller.procedure.machine.TableProcedure`.

For each input, in the order received (one queue, one processing task):

1. the input record is appended to the journal and committed (on one writer thread);
2. only then does the procedure take the input, and its decisions are carried out by
   :meth:`TableService._interpret`, one ``match``;
3. the input's first message (a card's own event) is handed to the sink, which hands it to
   the MQTT link at once, and the link (the service's :class:`Outlet`) gets the event-loop
   turns it needs to put it on the socket;
4. then the input's other messages, its log lines, the outbox's copy (on the writer thread),
   the shoe's acknowledgement and the lamp.

If the journal cannot record (a full disk, say), the table is held: the lamp shows HOLD, the
screens show the hold (their ``on_journal``), nothing is acknowledged or acted on, and the
input waits until it is recorded, so nothing is lost and nothing is acted on unrecorded
(``runtime/journal/writer.py``). Commands are refused at once meanwhile (``journal_unavailable``):
none could be recorded first. Their replies, and the answers given at the edge, are recorded
nowhere and published without a ``seq`` (``unrecorded``), never taking a number that a restart
could give another message. On start the journal is replayed through the same procedure, so
the table resumes where it stopped.

If carrying out an input raises (a bug in the procedure, an observer or the planner, a journal
row that is no input, a virtual table's draw), the table is held, never the service stopped:
the procedure faults with an alarm naming the journal row, status and messages go on, and a
supervisor's ``void_shoe`` releases it. A replay faults at the same row, so no journal puts
the service into a crash loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence

import structlog

from drivers.events import LineRejected, ReaderEvent
from drivers.srp.constants import Lamp as ShoeLamp
from table_controller.contract import (
    CommandReply,
    JournalRefusal,
    Lamp,
    OutgoingMessage,
    ReaderState,
    TableSnapshot,
    refusal_reply,
    utc_text,
)
from table_controller.contract.commands import reply_data
from table_controller.history import RecallBook, recall_reply, with_disputes_sealed
from table_controller.procedure import (
    Decision,
    Input,
    ProcedureBug,
    RecordRejected,
    RuntimeFailed,
    TableProcedure,
    input_from_record,
    input_to_record,
    not_carried_out,
)
from table_controller.runtime.clock import utc_now
from table_controller.runtime.command_replies import (
    COMMAND_TYPES,
    Asked,
    CommandReplies,
    answer_row,
)
from table_controller.runtime.deferred_log import DeferredLog, describe_failure
from table_controller.runtime.input_observers import Observers
from table_controller.runtime.interpreter import DecisionInterpreter
from table_controller.runtime.journal.format import (
    ANSWER_KEY,
    ASKED_KEY,
    AUDIT_ROW,
    INPUT_ROW,
)
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.journal.writer import WriterThread
from table_controller.runtime.reader_input import reader_state_after
from table_controller.runtime.round_analysis import RoundAnalysis
from table_controller.runtime.service_ports import (
    Advisor,
    CardSource,
    MessageSink,
    Outlet,
    QueuedInput,
    ShoeLink,
    StatsObserver,
    TableObserver,
    UnrecordedOutlet,
)
from table_controller.runtime.shoe_feed import feed_shoe
from table_controller.runtime.virtual_draws import VirtualDraws

_LOG = structlog.get_logger("table_controller.service")


def _row(seq: int) -> str:
    """Where an input came from, in a fault's alarm."""
    return f"journal row {seq}"


def utc_stamp() -> str:
    """UTC wall time as the journal and the envelope write it (milliseconds, ``Z``)."""
    return utc_text(utc_now())


class TableService:
    """One table: its procedure, journal, shoe link and message sink.

    Args:
        procedure: the table's procedure (the core).
        journal: where every input is recorded before anything acts on it.
        sink: where the messages of the procedure's decisions go.
        pace: reads what each input published and adds the ``stats`` when due
            (``history/pace.py``); None: no ``stats``.
        observers: told each message, each input carried out and the journal's refusals, in
            this order (the screens, the metrics), from the journal's replay on.
        outlet: given its turns after an input's first message is staged (the MQTT link).
        unrecorded: publishes the replies the journal could not record (the MQTT link).
        link: the shoe reader; None for a virtual table or a test.
        card_source: a virtual table's cards; its reader is always there.
        advisor: the live odds and shoe alarms, if wanted.
        reader_listeners: told the reader's new state (``reader_state``) at each change.
        clock: monotonic seconds.
        wall_clock: the UTC time stamped on each journal row.
    """

    def __init__(  # noqa: PLR0913 - the service is where the adapters meet
        self,
        *,
        procedure: TableProcedure,
        journal: Journal,
        sink: MessageSink,
        pace: StatsObserver | None,
        observers: Sequence[TableObserver] = (),
        outlet: Outlet | None = None,
        unrecorded: UnrecordedOutlet | None = None,
        link: ShoeLink | None = None,
        card_source: CardSource | None = None,
        advisor: Advisor | None = None,
        reader_listeners: Sequence[Callable[[ReaderState | None], None]] = (),
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], str] = utc_stamp,
    ) -> None:
        self.procedure = procedure
        self._journal = journal
        self._sink = sink
        self._outlet = outlet
        self._unrecorded = unrecorded
        self._link = link
        self._draws = VirtualDraws(card_source, clock=clock)
        self._analysis = RoundAnalysis(
            advisor, shoe_count=procedure.shoe_count, clock=clock, enqueue=self._enqueue
        )
        self._clock = clock
        self._wall_clock = wall_clock
        self._queue: asyncio.Queue[QueuedInput] = asyncio.Queue()
        self._writer = WriterThread(
            journal,
            clock=clock,
            wall_clock=wall_clock,
            show_held=self._show_held,
            show_resumed=self._show_resumed,
        )
        self._lamp: Lamp | None = None
        self._replies = CommandReplies(lambda messages, live: self._publish(messages, live=live))
        self._interpreter = DecisionInterpreter(pace=pace)
        self.inputs_handled = 0
        self.rejected_lines = 0
        #: ``connected``, ``offline`` or ``fault`` (the ``reader`` field of ``<root>/status``);
        #: a virtual table's card source is always there, a test's table may have none.
        self.reader_state: ReaderState | None = (
            ReaderState.OFFLINE
            if link is not None
            else ReaderState.CONNECTED
            if card_source is not None
            else None
        )
        #: Called after ``reader_state`` changed (the MQTT link republishes its status).
        self._reader_listeners = tuple(reader_listeners)
        #: The last rounds with every step (``recall``, disputes).
        self.recall = RecallBook()
        self._observed = Observers(observers, recall=self.recall.observe)
        #: The hash of the journal row being handled (``dispute_opened`` carries it).
        self._row_hash: str | None = None
        #: The messages of the input being handled, until ``_carry_out`` hands them out.
        self._decided: list[OutgoingMessage] = []
        self._log_later = DeferredLog()

    @property
    def journal_failing(self) -> bool:
        """Whether the journal is refusing writes right now (the table is held)."""
        return self._writer.failing

    @property
    def journal_refusal(self) -> JournalRefusal | None:
        """Why the journal refuses writes right now (the table is held); None while it records."""
        return self._writer.refusal

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize()

    @property
    def analysing(self) -> bool:
        """Whether an assessment is being analysed (its input not yet in the queue)."""
        return self._analysis.analysing

    @property
    def assessments(self) -> int:
        """Assessments concluded and queued as inputs."""
        return self._analysis.assessments

    @property
    def analyses_failed(self) -> int:
        """Assessments that failed (a bug in the advisor or the analysis), logged each time."""
        return self._analysis.analyses_failed

    @property
    def virtual(self) -> bool:
        """Whether the table draws its own cards (``--card-source rng``): it has no reader."""
        return self._draws.virtual

    # --- start-up -------------------------------------------------------------------------

    def recover(self) -> int:
        """Replay the journal through the procedure; returns how many inputs were replayed.

        Messages are regenerated with their original keys, so a sink that lost the tail of
        its messages in a crash gets them back, and one that holds them skips them.
        """
        replayed = 0
        for row in self._journal.rows():
            if row.type != INPUT_ROW:
                self._replies.publish_row(
                    row.payload, key=str(row.seq), ts=row.ts_utc, live=False, book=self.recall
                )
                continue
            event = input_from_record(
                dict(row.payload),
                default_at=0.0,
                default_command_id=f"journal-{row.seq}",
                default_operator="journal",
            )
            self._row_hash = row.hash
            if isinstance(event, RecordRejected):  # a newer version's row, say: held, not down
                self._fault(None, f"not an input: {event.reason}", row.seq, row.ts_utc, live=False)
            else:
                self._handle(event, row.seq, row.ts_utc)
            replayed += 1
        _LOG.info("journal replayed", inputs=replayed, head=self._journal.head[0])
        return replayed

    async def warm_up(self) -> None:
        """Before the first input: the advisor's warm-up, on the analysis thread (once).

        The first assessment of a process would otherwise fold the analyser's tables and
        compute the shuffle limits (about 0.3 s of the interpreter) while the first rounds
        are dealt, and their cards' events would wait for it. ``run`` awaits it before it
        reads any input; ``table-controller run`` awaits it before it reports ready.
        """
        await self._analysis.warm_up()

    # --- running ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Process inputs until cancelled; reads the shoe link if there is one."""
        try:
            await self.warm_up()  # before any input is read
            if self._link is not None and self._lamp is not None:
                await self._link.set_lamp(ShoeLamp(self._lamp.value))
            await self._draw_if_asked()  # a virtual table stopped in mid-round goes on
            self._analysis.assess_if_due()  # a table that stopped between rounds gets its odds
            async with asyncio.TaskGroup() as group:
                group.create_task(self._process_inputs(), name="table inputs")
                if self._link is not None:
                    feed = feed_shoe(
                        self._link, self._queue, clock=self._clock, note=self._note_reader
                    )
                    group.create_task(feed, name="shoe link")
        finally:
            self._analysis.shutdown()
            self._writer.shutdown()

    async def submit(self, record: Mapping[str, object]) -> dict[str, object]:
        """Take a command record (already authorised); returns its reply once handled."""
        command_id = record.get("id")
        event = input_from_record(
            dict(record),
            default_at=self._clock(),
            default_command_id="",
            default_operator="",
        )
        if isinstance(event, RecordRejected) or not isinstance(command_id, str) or not command_id:
            reason = event.reason if isinstance(event, RecordRejected) else "a command needs an id"
            return {"id": command_id, "ok": False, "error": "invalid_args", "message": reason}
        if not isinstance(event, COMMAND_TYPES):
            reason = "the record is no command"
            return {"id": command_id, "ok": False, "error": "invalid_args", "message": reason}
        repeated = await self.repeated(command_id, Asked.by_command(event))
        if repeated is not None:
            return repeated
        refusal = self._writer.refuse_command()
        if refusal is not None:  # nothing can be recorded: refused now, not queued
            return self._refused_unrecorded(command_id, record.get("command"), refusal)
        future: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        stamped = input_to_record(event)
        work = QueuedInput(INPUT_ROW, stamped, event, command_id=command_id, done=future)
        await self._queue.put(work)
        return await future

    async def repeated(self, command_id: str, asked: Asked) -> dict[str, object] | None:
        """Answer a command whose id was given before; None: the id is new.

        The same command (``asked``) gets the first reply again and is not carried out twice;
        another command is refused (``id_reused``). Either answer is journaled and published.
        """
        reply = self._replies.repeat(command_id, asked)
        return None if reply is None else await self.answer(reply)

    async def answer(self, reply: CommandReply, *, asked: Asked | None = None) -> dict[str, object]:
        """Publish a reply that no input of the procedure produced, journaled first.

        For a command refused before the procedure (malformed, not authorised), for one
        answered at the edge (``recall``, ``resend``: ``asked`` is what it asked, and an
        ``ok`` reply gives its id) and for a repeated ``id``, answered again and not carried
        out twice. While the journal refuses writes, the reply is given at once, recorded
        nowhere. Returns the reply as JSON data.
        """
        if self._writer.failing:
            self._publish_unrecorded(reply)
            return reply_data(reply)
        future: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        await self._queue.put(answer_row(reply, future, asked))
        await future
        return reply_data(reply)

    async def answer_recall(
        self, command_id: str, rounds: int, *, asked: Asked | None = None
    ) -> dict[str, object]:
        """Answer a ``recall`` with the last ``rounds`` rounds, journaled by its seal only.

        The recall book is read when the answer's turn comes, so it holds exactly the rows
        journaled before the answer's own: a replay of the journal makes the same reply again.
        While the journal refuses writes, the reply is given at once, recorded nowhere.
        """
        if self._writer.failing:
            reply = recall_reply(self.recall, command_id, rounds)
            self._publish_unrecorded(reply)
            return reply_data(reply)
        future: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        row: dict[str, object] = {} if asked is None else {ASKED_KEY: asked.to_record()}
        queued = QueuedInput(AUDIT_ROW, row, None, done=future, recall=(command_id, rounds))
        await self._queue.put(queued)
        return await future

    async def answer_all(self, replies: Sequence[CommandReply]) -> None:
        """Journal and publish replies given at the edge, in one transaction of the journal.

        For many commands refused at once (``overloaded``): one fsync for all of them, so
        answering a flood costs the table little. Each reply is a row of its own, as
        :meth:`answer` writes it, and none gives its id. While the journal refuses writes,
        they are given at once, recorded nowhere.
        """
        if self._writer.failing:
            for reply in replies:
                self._publish_unrecorded(reply)
            return
        future: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        rows: list[dict[str, object]] = [{ANSWER_KEY: reply_data(reply)} for reply in replies]
        await self._queue.put(QueuedInput(AUDIT_ROW, {}, None, done=future, rows=rows))
        await future

    def _note_reader(self, event: ReaderEvent) -> None:
        if isinstance(event, LineRejected):
            self.rejected_lines += 1
        state = reader_state_after(event)
        if state is not None and state != self.reader_state:
            self.reader_state = state
            for listener in self._reader_listeners:
                listener(state)

    async def _process_inputs(self) -> None:
        while True:
            work = await self._queue.get()
            await self._process(work)

    async def _process(self, work: QueuedInput) -> None:
        work = self._recall_read(work)  # the book as the rows before this one left it
        ts = self._wall_clock()
        if work.rows is not None:
            await self._record_answers(work.rows, ts, work.done)
            return
        seq = await self._writer.record(
            work.row_type,
            work.record,
            ts=ts,
            command_id=work.command_id,
            held=work.done is None,  # a command or an answer is refused, never kept waiting
        )
        if isinstance(seq, JournalRefusal):
            self._answer_unrecorded(work, seq)
            return
        if seq is None:  # a command id already recorded: answered again, not carried out twice
            assert work.command_id is not None
            assert isinstance(work.event, COMMAND_TYPES)
            asked = Asked.by_command(work.event)
            reply = self._replies.repeat(work.command_id, asked)
            if reply is None:
                reply = CommandReply(id=work.command_id, ok=True)
            await self._process(answer_row(reply, work.done))
            return
        head_seq, head_hash = self._journal.head  # the row just recorded (a dispute seals it)
        self._row_hash = head_hash if head_seq == seq else None
        try:
            await self._carry_out(work, seq, ts)
        except Exception as error:  # noqa: BLE001 - a failure carrying out an input holds the table
            self._decided = []  # regenerated from the journal on the next start
            self._carrying_out_failed(work, seq, error)
        finally:
            # Cancelled (a stop) while the first message was let out: the others of the
            # input are handed out all the same, so the outbox gets every one of them.
            decided, self._decided = self._decided, []
            self._publish(decided, live=True)
            if self._observed.waiting:  # carrying it out failed or was cancelled
                self._observed.tell(self._since_delivered(work))
            self._writer.write_out()
            self._writer.checkpoint_when_quiet(busy=not self._queue.empty())
            self._log_later.write()

    async def _record_answers(
        self,
        rows: list[dict[str, object]],
        ts: str,
        done: asyncio.Future[dict[str, object]] | None,
    ) -> None:
        """Answers given at the edge, journaled in one transaction, then published."""
        seqs = await self._writer.record_all(AUDIT_ROW, rows, ts=ts)
        for seq, row in zip(seqs, rows, strict=True):
            self._replies.publish_row(row, key=str(seq), ts=ts, live=True)
        self._writer.write_out()
        self._writer.checkpoint_when_quiet(busy=not self._queue.empty())
        if done is not None and not done.done():
            done.set_result({})

    async def _carry_out(self, work: QueuedInput, seq: int, ts: str) -> None:
        """Everything after the commit, the input's first message (a card's own event) first.

        The procedure decides and the input's first message is handed out; the outlet gives
        it the turns it needs to reach the socket; only then come the input's other messages,
        the log lines, the outbox's copy (writer thread), the shoe's acknowledgement and the
        next round's odds (analysis thread), none of which stands between a card and its
        event any more.
        """
        lamp: Lamp | None = None
        if work.event is not None:
            lamp = self._handle(work.event, seq, ts, live=True)
            first, self._decided = self._decided[:1], self._decided[1:]
            self._publish(first, live=True)
            if first and self._outlet is not None:
                await self._outlet.let_out()
            following, self._decided = self._decided, []
            self._publish(following, live=True)
            self._log_later.write()
            self._observed.tell(self._since_delivered(work))
        self._writer.write_out()
        if self._link is not None and work.delivery is not None:
            await self._link.confirm(work.delivery)
        if work.event is not None:
            if lamp is not None and self._link is not None:
                await self._link.set_lamp(ShoeLamp(lamp.value))
            if work.drawn:
                self._draws.taken()
            await self._draw_if_asked()
            self._analysis.assess_if_due()
        self._replies.settle(work, seq, ts)

    def _since_delivered(self, work: QueuedInput) -> float | None:
        """Seconds since the shoe link delivered ``work``; None if it did not come from it."""
        received_at = work.received_at
        return None if received_at is None else self._clock() - received_at

    def _carrying_out_failed(self, work: QueuedInput, seq: int, error: Exception) -> None:
        """Carrying out journal row ``seq`` raised after the procedure took it.

        The sink, the shoe link or the advisor failed. The failure is journaled as a
        ``RuntimeFailed`` input, so the table faults here live and in every replay, held
        until a supervisor's ``void_shoe``; a ``RuntimeFailed`` whose own carrying out fails
        is only logged, so a failure that repeats cannot feed itself.
        """
        failure = describe_failure(error)
        _LOG.critical("input not carried out: table held", row=seq, error=failure)
        if work.drawn:
            self._draws.taken()
        self._replies.refuse(work, failure)
        if isinstance(work.event, RuntimeFailed):
            return
        message = not_carried_out(work.event, origin=_row(seq), error=failure)
        self._enqueue(RuntimeFailed(at=self._clock(), message=message))

    def enqueue_input(self, event: Input) -> None:
        """Queue an input the runtime made (``SoftwareModified`` at start): journaled, then taken.

        Taken in turn with the shoe's and the commands' inputs once :meth:`run` runs.
        """
        self._enqueue(event)

    def _enqueue(self, event: Input) -> None:
        """Queue an input the service made itself (a failure, an analysis's conclusion)."""
        self._queue.put_nowait(QueuedInput(INPUT_ROW, input_to_record(event), event))

    async def _show_held(self, refusal: JournalRefusal) -> None:
        """The journal refuses writes: the shoe's lamp, the screens, the commands waiting."""
        self._refuse_waiting(refusal)
        self._observed.journal(refusal)
        if self._link is not None:
            await self._link.set_lamp(ShoeLamp.HOLD)

    async def _show_resumed(self) -> None:
        """The journal records again: the shoe's lamp and the screens as they were."""
        self._observed.journal(None)
        if self._link is not None and self._lamp is not None:
            await self._link.set_lamp(ShoeLamp(self._lamp.value))

    def _refuse_waiting(self, refusal: JournalRefusal) -> None:
        """Answer the commands and answers waiting in the queue now; keep the other inputs."""
        kept: list[QueuedInput] = []
        while not self._queue.empty():
            work = self._queue.get_nowait()
            if work.done is None:
                kept.append(work)
            elif work.row_type == INPUT_ROW:  # a command: counted as refused
                self._answer_unrecorded(work, self._writer.refuse_command() or refusal)
            else:
                self._answer_unrecorded(work, refusal)
        for work in kept:
            self._queue.put_nowait(work)

    def _answer_unrecorded(self, work: QueuedInput, refusal: JournalRefusal) -> None:
        """A command or an answer the journal could not record: answered now, recorded nowhere.

        An answer given at the edge is published as it is; a command is refused.
        """
        work = self._recall_read(work)
        if work.reply is not None:
            self._publish_unrecorded(work.reply)
            reply = reply_data(work.reply)
        else:
            reply = self._refused_unrecorded(work.command_id, work.record.get("command"), refusal)
        if work.done is not None and not work.done.done():
            work.done.set_result(reply)

    def _recall_read(self, work: QueuedInput) -> QueuedInput:
        """A ``recall`` whose turn came, with its reply read from the book now; else ``work``."""
        if work.recall is None:
            return work
        asked = Asked.from_record(work.record.get(ASKED_KEY))
        return answer_row(recall_reply(self.recall, *work.recall), work.done, asked)

    def _refused_unrecorded(
        self, command_id: str | None, command: object, refusal: JournalRefusal
    ) -> dict[str, object]:
        """Refuse a command the journal cannot record (``journal_unavailable``); the reply."""
        name = command if isinstance(command, str) else None
        _LOG.info("command refused: the journal refuses writes", id=command_id, command=name)
        reply = refusal_reply(command_id, name, refusal)
        self._publish_unrecorded(reply)
        return reply_data(reply)

    def _publish_unrecorded(self, reply: CommandReply) -> None:
        """Publish a reply the journal cannot record: once, without a ``seq``."""
        if self._unrecorded is None:
            return
        self._unrecorded.publish_unrecorded(
            OutgoingMessage(key="unrecorded", payload=reply, ts=self._wall_clock())
        )

    # --- the procedure and its decisions ---------------------------------------------------

    def _handle(
        self, event: Input, journal_seq: int, ts: str, *, live: bool = False
    ) -> Lamp | None:
        """Feed the procedure and carry out its decisions; returns a lamp to light, if any.

        Whatever raises on the way (the procedure, an observer, the planner) faults the table
        instead of stopping the service: the same row raises again when the journal is
        replayed, so the replay comes up faulted at the same place, never in a crash loop.
        """
        try:
            try:
                decisions = self.procedure.handle(event, origin=_row(journal_seq))
            except ProcedureBug as bug:
                _LOG.critical("procedure fault: table held", row=journal_seq, error=str(bug))
                decisions = list(bug.decisions)
            state = self.procedure.snapshot()
            self._draws.observe(event, state)
            self._analysis.observe(event, state)
            return self._interpret(decisions, state, journal_seq, ts, live=live, event=event)
        except Exception as error:  # noqa: BLE001 - any bug here holds the table (see above)
            return self._fault(event, describe_failure(error), journal_seq, ts, live=live)

    def _fault(
        self, event: Input | None, error: str, journal_seq: int, ts: str, *, live: bool
    ) -> Lamp | None:
        """Journal row ``journal_seq`` could not be carried out: the procedure faults.

        The table is held with an alarm naming the row, until a supervisor's ``void_shoe``.
        Nothing of the row's own messages was handed out, so the fault's take its keys.
        """
        origin = _row(journal_seq)
        _LOG.critical("input not carried out: table held", row=journal_seq, error=error)
        try:
            decisions = self.procedure.fault(event, origin=origin, error=error)
            state = self.procedure.snapshot()
            return self._interpret(decisions, state, journal_seq, ts, live=live, event=event)
        except Exception as second:  # noqa: BLE001 - the procedure is faulted all the same
            _LOG.critical(
                "the fault's alarm could not be published",
                row=journal_seq,
                error=describe_failure(second),
            )
            return Lamp.HOLD

    async def _draw_if_asked(self) -> None:
        """A virtual table: queue the next draw while the burn or the round expects a card."""
        event = self._draws.draw(self.procedure, lambda: self._journal.head[0])
        if event is not None:
            await self._queue.put(QueuedInput(INPUT_ROW, input_to_record(event), event, drawn=True))

    def _interpret(  # noqa: PLR0913 - the input, where it was journaled, what it decided
        self,
        decisions: list[Decision],
        snapshot: TableSnapshot,
        journal_seq: int,
        ts: str,
        *,
        live: bool,
        event: Input | None,
    ) -> Lamp | None:
        """Carry out decisions, as the :class:`DecisionInterpreter` reads them.

        Messages (keyed by the journal row) go to the sink. While replaying the journal
        (``live`` false) nothing is logged and no lamp is lit: that happened before. Returns
        the lamp to light, if the decisions changed it.
        """
        outcome = self._interpreter.interpret(decisions, snapshot, key=str(journal_seq), ts=ts)
        if outcome.lamp is not None:
            self._lamp = outcome.lamp
        self._replies.keep(outcome.replies, event)
        if live:
            for line in outcome.log:
                if line.warns:
                    self._log_later.warning(line.event, **line.fields)
                else:
                    self._log_later.info(line.event, **line.fields)
        self.inputs_handled += 1
        messages = with_disputes_sealed(outcome.messages, self.recall, self._row_hash)
        self._hand_out(list(messages), live=live)
        self._observed.handled(event, journal_seq, ts, messages, live=live)
        return outcome.lamp

    def _hand_out(self, messages: list[OutgoingMessage], *, live: bool) -> None:
        """Live, keep them for ``_carry_out`` (the first out at once, then the rest); else now."""
        if live:
            self._decided = messages
        else:
            self._publish(messages)

    def _publish(self, messages: list[OutgoingMessage], *, live: bool = False) -> None:
        """Hand messages to the sink and the observers.

        Live, the sink stages them here (the MQTT link gets them at once) and the write it
        returns waits for the writer thread's ``write_out``, so the event loop never waits for
        its disk; the observers (the display) hear at once. While recovering, everything happens
        here and now.
        """
        if not messages:
            return
        if live:
            self._writer.stage(self._sink.stage(messages))
        else:
            self._sink.add(messages)
        self._observed.published(messages, live=live)

    async def aclose(self) -> None:
        """Stop the journal writer and analysis threads (after :meth:`run` has ended)."""
        with contextlib.suppress(RuntimeError):
            self._analysis.shutdown()
            self._writer.shutdown()
