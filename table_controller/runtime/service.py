# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table service: shoe link -> journal -> acknowledgement -> procedure -> decisions.

Runtime: the only place where time, I/O and ordering meet (STYLE.md section 1). It holds no
rules; every decision comes from :class:`~table_controller.procedure.machine.TableProcedure`.

For each input, in the order received (one queue, one processing task):

1. the input record is appended to the journal and committed (on one writer thread);
2. only then does the procedure take the input, and its decisions are carried out by
   :meth:`TableService._interpret`, one ``match``;
3. the input's first message (a card's own event) is handed to the sink, which hands it to
   the MQTT link at once, and the link (the service's :class:`Outlet`) gets the event-loop
   turns it needs to put it on the socket;
4. then the input's other messages, its log lines, the outbox's copy (on the writer thread),
   the shoe's acknowledgement and the lamp.

If the journal cannot record (a full disk, say), the table is held: the lamp shows HOLD,
nothing is acknowledged or acted on, and the same input is retried until it is recorded, so
nothing is lost and nothing is acted on unrecorded. On start the journal is replayed through
the same procedure, so the table resumes where it stopped.

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
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Protocol

import structlog

from drivers.events import (
    CardMisread as ReaderCardMisread,
)
from drivers.events import (
    CardSeen,
    CutCardSeen,
    Delivery,
    LineRejected,
    ReaderAlarm,
    ReaderEvent,
    ReaderHello,
    ReaderOffline,
    ReaderOnline,
    ReaderStatus,
    ReaderWarning,
)
from drivers.events import FramesLost as ReaderFramesLost
from drivers.srp.constants import Lamp as ShoeLamp
from table_controller.procedure.codes import Lamp, ReaderState, RefusalCode
from table_controller.procedure.decisions import Decision
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.events import (
    CardDrawn,
    CardMisread,
    CutCardDrawn,
    FramesLost,
    Input,
    ReaderCameBack,
    ReaderWentOffline,
    RoundAssessed,
    RuntimeFailed,
    not_carried_out,
)
from table_controller.procedure.machine import ShoeCount, TableProcedure
from table_controller.procedure.payloads import CommandReply, TableSnapshot
from table_controller.procedure.records import RecordRejected, input_from_record, input_to_record
from table_controller.protection.advisor import (
    Analysis,
    AssessmentRequest,
    analyse_request,
)
from table_controller.publishing.messages import fields_of
from table_controller.publishing.outbox import utc_text
from table_controller.publishing.outgoing import (
    DecisionInterpreter,
    OutgoingMessage,
    answer_message,
    reply_from_wire,
)
from table_controller.rules.cards import Card
from table_controller.runtime.clock import utc_now
from table_controller.runtime.journal import (
    ANSWER_KEY,
    AUDIT_ROW,
    INPUT_ROW,
    DuplicateEventError,
    Journal,
    JournalError,
)
from table_controller.runtime.memory import release_free_memory

_LOG = structlog.get_logger("table_controller.service")
#: Seconds between attempts to record an input while the journal refuses writes.
JOURNAL_RETRY_S = 1.0
#: Inputs at most between two checkpoints of the journal, however busy the table is.
CHECKPOINT_EVERY = 64


class MessageSink(Protocol):
    """Where the service hands its outgoing messages: the durable outbox, or a JSON-lines file."""

    def add(self, messages: list[OutgoingMessage]) -> None:
        """Take messages in order now; a key already taken is skipped (the journal's replay)."""

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        """Take a live input's messages on the event loop; returns the writer thread's write."""


class Outlet(Protocol):
    """Where staged messages leave the process (the MQTT link's publishes)."""

    async def let_out(self) -> None:
        """Return once the messages just staged are written to the socket."""


class CardSource(Protocol):
    """Where a virtual table's cards come from (:class:`~.card_source.RngCardSource`)."""

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The table took an input; ``state`` is its snapshot after it."""

    def draw(self, state: TableSnapshot, *, at: float) -> Input:
        """The next card (or the cut card) for the table in ``state``."""


class Advisor(Protocol):
    """Works out each round's odds and alarms (``protection.advisor.RoundAdvisor``)."""

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The table took an input (live or replayed); ``state`` is its snapshot after it."""

    def request(self, count: ShoeCount | None) -> AssessmentRequest | None:
        """An assessment to run now, if one is due."""

    def conclude(self, analysis: Analysis, *, at: float) -> RoundAssessed | None:
        """The procedure's input from a finished analysis (None: nothing to tell)."""

    def warm_up(self) -> None:
        """Compute what the first assessment would otherwise compute while cards are dealt."""


class ShoeLink(Protocol):
    """The part of :class:`drivers.shoe_reader.ShoeReader` the service uses."""

    def __aiter__(self) -> AsyncIterator[ReaderEvent]: ...
    async def confirm(self, delivery: Delivery | None) -> None: ...
    async def set_lamp(self, lamp: ShoeLamp) -> None: ...


@dataclass(slots=True)
class _Work:
    """One input waiting to be recorded and handled."""

    row_type: str
    record: dict[str, object]
    event: Input | None
    delivery: Delivery | None = None
    command_id: str | None = None
    done: asyncio.Future[dict[str, object]] | None = None
    #: Drawn by the card source (a virtual table): the next draw waits until this one is taken.
    drawn: bool = False
    #: When the shoe link delivered it (the service's clock): the start of card-to-prompt latency.
    received_at: float | None = None


def _warm_up(advisor: Advisor) -> None:
    """On the analysis thread before play: the advisor's warm-up, then give the heap back."""
    advisor.warm_up()
    release_free_memory()


def _failure(error: BaseException) -> str:
    """An exception in the words of a log line or an alarm: ``KeyError: '7D'``."""
    return f"{type(error).__name__}: {error}"


def _row(seq: int) -> str:
    """Where an input came from, in a fault's alarm."""
    return f"journal row {seq}"


def _log_checkpoint_failure(done: Future[None]) -> None:
    error = done.exception()
    if error is not None:  # the log grows until the next one succeeds; nothing is lost
        _LOG.warning("journal checkpoint failed", error=str(error))


def _log_sink_failure(done: Future[None]) -> None:
    error = done.exception()
    if error is not None:
        # The messages are regenerated from the journal on the next start (same keys).
        _LOG.error("message sink failed; messages will be regenerated on restart", error=str(error))


class _LogLater:
    """The log lines of an input's decisions, written once its messages are handed out."""

    def __init__(self) -> None:
        self._lines: list[tuple[bool, str, dict[str, object]]] = []

    def info(self, event: str, **fields: object) -> None:
        self._lines.append((False, event, fields))

    def warning(self, event: str, **fields: object) -> None:
        self._lines.append((True, event, fields))

    def write(self) -> None:
        lines, self._lines = self._lines, []
        for warns, event, fields in lines:
            (_LOG.warning if warns else _LOG.info)(event, **fields)


def utc_stamp() -> str:
    """UTC wall time as the journal and the envelope write it (milliseconds, ``Z``)."""
    return utc_text(utc_now())


def reader_input(event: ReaderEvent, at: float) -> Input | None:  # noqa: PLR0911 - a case each
    """The procedure input a reader event stands for, or None if it is not one."""
    match event:
        case CardSeen(card=card):
            return CardDrawn(at=at, card=Card.parse(card))
        case CutCardSeen():
            return CutCardDrawn(at=at)
        case ReaderCardMisread():
            return CardMisread(at=at)
        case ReaderFramesLost(count=count):
            return FramesLost(at=at, count=count)
        case ReaderOffline():
            return ReaderWentOffline(at=at)
        case ReaderOnline():
            return ReaderCameBack(at=at)
        case _:
            return None


def _audit_record(event: ReaderEvent) -> dict[str, object] | None:
    """Reader facts worth keeping for compliance though the procedure does not act on them."""
    match event:
        case ReaderHello(model=model, firmware=firmware, serial=serial):
            return {"reader_hello": {"model": model, "firmware": firmware, "serial": serial}}
        case ReaderStatus(state=state, code=code):
            return {"reader_status": {"state": str(state), "code": code}}
        case ReaderAlarm(code=code, text=text):
            return {"reader_alarm": {"code": code, "text": text}}
        case _:
            return None


class TableService:
    """One table: its procedure, journal, shoe link and message sink.

    Args:
        procedure: the table's procedure (the core).
        journal: where every input is recorded before anything acts on it.
        sink: where the messages of the procedure's decisions go.
        outlet: given its turns after an input's first message is staged (the MQTT link).
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
        outlet: Outlet | None = None,
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
        self._link = link
        self._card_source = card_source
        self._advisor = advisor
        #: The analysis runs here, never on the event loop nor on the journal's writer.
        self._analyst = ThreadPoolExecutor(max_workers=1, thread_name_prefix="round-analysis")
        self._analysing = False
        self._warmed_up: asyncio.Future[None] | None = None
        self.assessments = 0
        #: Assessments that failed (a bug in the advisor or the analysis), logged each time.
        self.analyses_failed = 0
        self._draw_waiting = False
        self._clock = clock
        self._wall_clock = wall_clock
        self._queue: asyncio.Queue[_Work] = asyncio.Queue()
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-writer")
        self._lamp: Lamp | None = None
        self._replies: dict[str, CommandReply] = {}
        self._interpreter = DecisionInterpreter()
        self._journal_failing = False
        self.inputs_handled = 0
        self.rejected_lines = 0
        #: ``connected``, ``offline`` or ``fault`` (the ``reader`` field of ``<root>/status``);
        #: a virtual table's card source is always there, a test's table may have none.
        self.reader_state: ReaderState | None = (
            ReaderState.OFFLINE if link is not None
            else ReaderState.CONNECTED if card_source is not None
            else None
        )
        #: Called after ``reader_state`` changed (the MQTT link republishes its status).
        self.reader_listeners: list[Callable[[ReaderState | None], None]] = list(
            reader_listeners
        )
        #: Called with each message as it is handed to the sink (the display listens here).
        self.listeners: list[Callable[[OutgoingMessage], None]] = []
        #: Called after each live input was handled (its messages handed out), with the seconds
        #: since the shoe link delivered it, or None if it did not come from the shoe (metrics).
        self.on_input_handled: Callable[[Input, float | None], None] | None = None
        #: The sink's writes of messages handed out, for the writer thread (in this order).
        self._writes: list[Callable[[], None]] = []
        #: The messages of the input being handled, until ``_carry_out`` hands them out.
        self._decided: list[OutgoingMessage] = []
        self._log_later = _LogLater()
        self._since_checkpoint = 0

    @property
    def journal_failing(self) -> bool:
        """Whether the journal is refusing writes right now (the table is held)."""
        return self._journal_failing

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize()

    @property
    def analysing(self) -> bool:
        """Whether an assessment is being analysed (its input not yet in the queue)."""
        return self._analysing

    @property
    def virtual(self) -> bool:
        """Whether the table draws its own cards (``--card-source rng``): it has no reader."""
        return self._card_source is not None

    # --- start-up -------------------------------------------------------------------------

    def recover(self) -> int:
        """Replay the journal through the procedure; returns how many inputs were replayed.

        Messages are regenerated with their original keys, so a sink that lost the tail of
        its messages in a crash gets them back, and one that holds them skips them.
        """
        replayed = 0
        for row in self._journal.rows():
            if row.type != INPUT_ROW:
                answer = row.payload.get(ANSWER_KEY)
                if isinstance(answer, Mapping):
                    self._publish_answer(answer, key=str(row.seq), ts=row.ts_utc, live=False)
                continue
            event = input_from_record(
                dict(row.payload),
                default_at=0.0,
                default_command_id=f"journal-{row.seq}",
                default_operator="journal",
            )
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
        if self._advisor is None:
            return
        if self._warmed_up is None:
            loop = asyncio.get_running_loop()
            self._warmed_up = loop.run_in_executor(self._analyst, _warm_up, self._advisor)
        await asyncio.shield(self._warmed_up)

    # --- running ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Process inputs until cancelled; reads the shoe link if there is one."""
        try:
            await self.warm_up()  # before any input is read
            if self._link is not None and self._lamp is not None:
                await self._link.set_lamp(ShoeLamp(self._lamp.value))
            await self._draw_if_asked()  # a virtual table stopped in mid-round goes on
            self._assess_if_due()  # a table that stopped between rounds gets its odds
            async with asyncio.TaskGroup() as group:
                group.create_task(self._process_inputs(), name="table inputs")
                if self._link is not None:
                    group.create_task(self._read_shoe(self._link), name="shoe link")
        finally:
            self._analyst.shutdown(wait=True, cancel_futures=True)
            self._writer.shutdown(wait=True)

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
        if command_id in self._replies:
            return await self.answer(fields_of(self._replies[command_id]))
        future: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        stamped = input_to_record(event)
        await self._queue.put(_Work(INPUT_ROW, stamped, event, command_id=command_id, done=future))
        return await future

    def answered(self, command_id: str) -> dict[str, object] | None:
        """The reply already given to a command id, if it was carried out or refused."""
        reply = self._replies.get(command_id)
        return None if reply is None else dict(fields_of(reply))

    async def answer(self, reply: Mapping[str, object]) -> dict[str, object]:
        """Publish a reply that no input of the procedure produced, journaled first.

        For a command refused before the procedure (malformed, not authorised) and for a
        repeated ``id``, answered again and not carried out twice.
        """
        future: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Work(AUDIT_ROW, {ANSWER_KEY: dict(reply)}, None, done=future))
        await future
        return dict(reply)

    def _note_reader(self, event: ReaderEvent) -> None:
        match event:
            case ReaderOnline():
                state = ReaderState.CONNECTED
            case ReaderOffline():
                state = ReaderState.OFFLINE
            case ReaderStatus(state=shoe_state):
                faulty = str(shoe_state) == "FAULT"
                state = ReaderState.FAULT if faulty else ReaderState.CONNECTED
            case _:
                return
        if state != self.reader_state:
            self.reader_state = state
            for listener in self.reader_listeners:
                listener(state)

    async def _read_shoe(self, link: ShoeLink) -> None:
        async for event in link:
            self._note_reader(event)
            now = self._clock()
            if isinstance(event, LineRejected):
                self.rejected_lines += 1
                _LOG.warning("shoe line rejected", reason=event.reason, raw=event.raw[:80])
                continue
            if isinstance(event, ReaderWarning):
                _LOG.warning("shoe warning", code=event.code)
                continue
            delivery = getattr(event, "delivery", None)
            procedure_input = reader_input(event, now)
            if procedure_input is not None:
                record = input_to_record(procedure_input)
                await self._queue.put(
                    _Work(INPUT_ROW, record, procedure_input, delivery, received_at=now)
                )
                continue
            audit = _audit_record(event)
            if audit is not None:
                _LOG.info("shoe reports", **audit)
                await self._queue.put(_Work(AUDIT_ROW, audit, None, delivery))
            elif delivery is not None:
                await self._queue.put(
                    _Work(AUDIT_ROW, {"reader_event": type(event).__name__}, None, delivery)
                )

    async def _process_inputs(self) -> None:
        while True:
            work = await self._queue.get()
            await self._process(work)

    async def _process(self, work: _Work) -> None:
        ts = self._wall_clock()
        seq = await self._record(work, ts)
        if seq is None:  # a command id already recorded: answered again, not carried out twice
            assert work.command_id is not None
            reply = self.answered(work.command_id) or {"id": work.command_id, "ok": True}
            await self._process(_Work(AUDIT_ROW, {ANSWER_KEY: reply}, None, done=work.done))
            return
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
            self._write_out()
            self._checkpoint_when_quiet()
            self._log_later.write()

    async def _carry_out(self, work: _Work, seq: int, ts: str) -> None:
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
            if self.on_input_handled is not None:
                received_at = work.received_at
                elapsed = None if received_at is None else self._clock() - received_at
                self.on_input_handled(work.event, elapsed)
        self._write_out()
        if self._link is not None and work.delivery is not None:
            await self._link.confirm(work.delivery)
        if work.event is not None:
            if lamp is not None and self._link is not None:
                await self._link.set_lamp(ShoeLamp(lamp.value))
            if work.drawn:
                self._draw_waiting = False
            await self._draw_if_asked()
            self._assess_if_due()
        self._answer(work, seq, ts)

    def _carrying_out_failed(self, work: _Work, seq: int, error: Exception) -> None:
        """Carrying out journal row ``seq`` raised after the procedure took it.

        The sink, the shoe link or the advisor failed. The failure is journaled as a
        ``RuntimeFailed`` input, so the table faults here live and in every replay, held
        until a supervisor's ``void_shoe``; a ``RuntimeFailed`` whose own carrying out fails
        is only logged, so a failure that repeats cannot feed itself.
        """
        failure = _failure(error)
        _LOG.critical("input not carried out: table held", row=seq, error=failure)
        if work.drawn:
            self._draw_waiting = False
        if work.done is not None and not work.done.done():
            refused: dict[str, object] = {
                "id": work.command_id,
                "ok": False,
                "error": RefusalCode.FAULTED.value,
                "message": failure,
            }
            work.done.set_result(self.answered(work.command_id or "") or refused)
        if isinstance(work.event, RuntimeFailed):
            return
        message = not_carried_out(work.event, origin=_row(seq), error=failure)
        event = RuntimeFailed(at=self._clock(), message=message)
        self._queue.put_nowait(_Work(INPUT_ROW, input_to_record(event), event))

    def _answer(self, work: _Work, seq: int, ts: str) -> None:
        """Publish a journaled answer, and give the submitter its reply."""
        answer = work.record.get(ANSWER_KEY)
        if isinstance(answer, Mapping):
            self._publish_answer(answer, key=str(seq), ts=ts, live=True)
        if work.done is not None and not work.done.done():
            if isinstance(answer, Mapping):
                work.done.set_result(dict(answer))
            else:
                fallback: dict[str, object] = {"id": work.command_id, "ok": True}
                work.done.set_result(self.answered(work.command_id or "") or fallback)

    def _publish_answer(
        self, answer: Mapping[str, object], *, key: str, ts: str, live: bool
    ) -> None:
        """Publish a journaled answer; one that is no reply is logged and published as none."""
        try:
            reply = reply_from_wire(answer)
        except ValueError as error:
            _LOG.error("journaled answer is no reply: not published", row=key, error=str(error))
            return
        self._publish([answer_message(reply, key=key, ts=ts)], live=live)

    async def _record(self, work: _Work, ts: str) -> int | None:
        """Append the input to the journal, retrying while it fails; None for a repeated command."""
        append = partial(
            self._journal.append,
            work.row_type,
            work.record,
            ts_utc=ts,
            monotonic_ns=int(self._clock() * 1e9),
            event_id=None if work.command_id is None else f"command:{work.command_id}",
        )
        loop = asyncio.get_running_loop()
        while True:
            try:
                seq = await loop.run_in_executor(self._writer, append)
            except DuplicateEventError:
                return None
            except JournalError as error:
                await self._journal_refused(error)
                continue
            if self._journal_failing:
                self._journal_failing = False
                _LOG.warning("journal records again: resuming")
                if self._link is not None and self._lamp is not None:
                    await self._link.set_lamp(ShoeLamp(self._lamp.value))
            return seq

    async def _journal_refused(self, error: JournalError) -> None:
        if not self._journal_failing:
            self._journal_failing = True
            _LOG.error("journal refuses writes: table held, nothing acknowledged", error=str(error))
            if self._link is not None:
                await self._link.set_lamp(ShoeLamp.HOLD)
        await asyncio.sleep(JOURNAL_RETRY_S)

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
            if self._card_source is not None:
                self._card_source.observe(event, state)
            if self._advisor is not None:
                self._advisor.observe(event, state)
            return self._interpret(decisions, state, journal_seq=journal_seq, ts=ts, live=live)
        except Exception as error:  # noqa: BLE001 - any bug here holds the table (see above)
            return self._fault(event, _failure(error), journal_seq, ts, live=live)

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
            return self._interpret(decisions, state, journal_seq=journal_seq, ts=ts, live=live)
        except Exception as second:  # noqa: BLE001 - the procedure is faulted all the same
            _LOG.critical(
                "the fault's alarm could not be published", row=journal_seq, error=_failure(second)
            )
            return Lamp.HOLD

    def _assess_if_due(self) -> None:
        """Between rounds: analyse the shoe for the next round on the analysis thread.

        The result comes back as a ``RoundAssessed`` input, journaled and handled in turn;
        nothing on the dealing path waits for it. One analysis at a time: another falls due
        when it is handled, if the table moved on meanwhile. The odds are advice: a bug in
        the advisor is logged, as a failed analysis is, and play goes on without them.
        """
        advisor = self._advisor
        if advisor is None or self._analysing:
            return
        try:
            request = advisor.request(self.procedure.shoe_count())  # the one test of "due"
        except Exception as error:  # noqa: BLE001 - see above
            self.analyses_failed += 1
            _LOG.error("round analysis failed", error=_failure(error))
            return
        if request is None:
            return
        self._analysing = True
        loop = asyncio.get_running_loop()
        pending = loop.run_in_executor(self._analyst, analyse_request, request)
        pending.add_done_callback(self._analysed)

    def _analysed(self, done: asyncio.Future[Analysis]) -> None:
        self._analysing = False
        if done.cancelled():
            return
        error = done.exception()
        if error is not None:  # a bug in the analysis must not stop the table
            self.analyses_failed += 1
            _LOG.error("round analysis failed", error=_failure(error))
            return
        assert self._advisor is not None
        event = self._advisor.conclude(done.result(), at=self._clock())
        if event is None:
            self._assess_if_due()
            return
        self.assessments += 1
        self._queue.put_nowait(_Work(INPUT_ROW, input_to_record(event), event))

    async def _draw_if_asked(self) -> None:
        """A virtual table: queue the next draw while the burn or the round expects a card.

        A draw that raises is journaled as ``RuntimeFailed`` in its place: the table faults
        there, live and in every replay, rather than the service stopping at each start.
        """
        if self._card_source is None or self._draw_waiting or not self.procedure.expects_card:
            return
        state = self.procedure.snapshot()
        event: Input
        try:
            event = self._card_source.draw(state, at=self._clock())
        except Exception as error:  # noqa: BLE001 - a bug in the card source holds the table
            failure = _failure(error)
            after = self._journal.head[0]
            _LOG.critical("card source failed: table held", after_row=after, error=failure)
            message = f"the card source could not draw after journal row {after}: {failure}"
            event = RuntimeFailed(at=self._clock(), message=message)
        self._draw_waiting = True
        await self._queue.put(_Work(INPUT_ROW, input_to_record(event), event, drawn=True))

    def _interpret(
        self,
        decisions: list[Decision],
        snapshot: TableSnapshot,
        *,
        journal_seq: int,
        ts: str,
        live: bool,
    ) -> Lamp | None:
        """Carry out decisions, as the :class:`DecisionInterpreter` reads them.

        Messages (keyed by the journal row) go to the sink. While replaying the journal
        (``live`` false) nothing is logged and no lamp is lit: that happened before. Returns
        the lamp to light, if the decisions changed it.
        """
        outcome = self._interpreter.interpret(decisions, snapshot, key=str(journal_seq), ts=ts)
        if outcome.lamp is not None:
            self._lamp = outcome.lamp
        for reply in outcome.replies:
            if reply.id is not None:
                self._replies[reply.id] = reply
        if live:
            for line in outcome.log:
                if line.warns:
                    self._log_later.warning(line.event, **line.fields)
                else:
                    self._log_later.info(line.event, **line.fields)
        self.inputs_handled += 1
        self._hand_out(list(outcome.messages), live=live)
        return outcome.lamp

    def _hand_out(self, messages: list[OutgoingMessage], *, live: bool) -> None:
        """Live, keep them for ``_carry_out`` (the first out at once, then the rest); else now."""
        if live:
            self._decided = messages
        else:
            self._publish(messages)

    def _publish(self, messages: list[OutgoingMessage], *, live: bool = False) -> None:
        """Hand messages to the sink and the listeners.

        Live, the sink stages them here (the MQTT link gets them at once) and the write it
        returns waits for :meth:`_write_out`, so the event loop never waits for its disk; the
        listeners (the display) hear at once. While recovering, everything happens here and now.
        """
        if not messages:
            return
        if live:
            self._writes.append(self._sink.stage(messages))
        else:
            self._sink.add(messages)
        for outgoing in messages:
            for listener in self.listeners:
                listener(outgoing)

    def _write_out(self) -> None:
        """Queue the sink's writes on the journal's writer thread, in the order staged.

        They run after the input's own journal row and before the next input's, and only once
        every message of the input is staged, so the outbox sink can store an input's messages
        in one transaction (``runtime/outbox_sink.py``).
        """
        writes, self._writes = self._writes, []
        for write in writes:
            self._writer.submit(write).add_done_callback(_log_sink_failure)

    def _checkpoint_when_quiet(self) -> None:
        """Queue a checkpoint of the journal on the writer thread, after the input's writes.

        The journal never checkpoints inside an append (``Journal.open``). Here one runs after
        each input while no other input waits, or every ``CHECKPOINT_EVERY`` inputs however
        busy the table: small, and never inside a card's commit.
        """
        self._since_checkpoint += 1
        if not self._queue.empty() and self._since_checkpoint < CHECKPOINT_EVERY:
            return
        self._since_checkpoint = 0
        self._writer.submit(self._journal.checkpoint).add_done_callback(_log_checkpoint_failure)

    async def aclose(self) -> None:
        """Stop the journal writer and analysis threads (after :meth:`run` has ended)."""
        with contextlib.suppress(RuntimeError):
            self._analyst.shutdown(wait=True, cancel_futures=True)
            self._writer.shutdown(wait=True)
