# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Prometheus metrics of one table, and the vitals its health endpoint reports.

Runtime adapter (prometheus-client). It decides nothing about the game and must never hold up
the table: every call the service makes into it (as one of its observers, and a reader
listener) only bumps a counter, and whatever mirrors the state of the service, the MQTT link or
the journal is read when Prometheus scrapes, not pushed. It does no I/O of its own; the HTTP
server that serves it is :mod:`table_controller.runtime.health`.

Each :class:`TableMetrics` has its own :class:`~prometheus_client.CollectorRegistry` (never the
process-wide default), so tests and tools can build as many as they like.

Counters count what happened since this process started (Prometheus' ``rate()`` and
``increase()`` handle the reset a restart brings): the journal's replay on start is not counted
a second time, only its latest ``stats`` is kept for the pace gauges.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final, Protocol, TypeAlias

from prometheus_client import CollectorRegistry, Counter, Histogram, Info
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from table_controller.contract import (
    AlarmCode,
    AlarmRaised,
    EventType,
    JournalRefusal,
    OutgoingMessage,
    PaceFigures,
    ReaderState,
    Stats,
)
from table_controller.procedure import CardDrawn, Input
from table_controller.runtime.service_ports import HandledInput

if TYPE_CHECKING:
    from table_controller.runtime.service import TableService

#: Card-to-prompt latency buckets, in seconds: a journal commit is under a millisecond on an
#: SSD and 10 ms or more on an SD card (docs/operations.md, section 7); half a second is far
#: too slow.
LATENCY_BUCKETS_S: Final = (
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0,
)  # fmt: skip
#: ``reader_state`` of a connected reader (``TableService.reader_state``).
READER_CONNECTED: Final = "connected"
READER_OFFLINE: Final = "offline"
#: ``reader_state`` of a table with no reader.
READER_NONE: Final = "none"


class LinkCountersView(Protocol):
    """What :class:`~table_controller.mqtt.client.link.LinkCounters` tells (read only)."""

    @property
    def connects(self) -> int: ...
    @property
    def published(self) -> int: ...
    @property
    def errors(self) -> int: ...
    @property
    def last_error(self) -> str | None: ...


class LinkView(Protocol):
    """The part of :class:`~table_controller.mqtt.client.link.MqttLink` watched here."""

    @property
    def connected(self) -> bool: ...
    @property
    def depth(self) -> int:
        """Messages waiting for the broker (read on the event loop, no I/O)."""

    @property
    def counters(self) -> LinkCountersView: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerVitals:
    """The MQTT link as it is now."""

    connected: bool
    #: Why the last connection failed; None once connected again.
    last_error: str | None
    #: Successful connections since start (the first one and each reconnection).
    connects: int
    #: Connections lost or refused since start.
    errors: int
    #: Messages the broker acknowledged since start.
    published: int
    #: Messages waiting for the broker (the outbox's unacknowledged rows).
    outbox_depth: int
    #: ``resend`` requests taken since start, messages they published again, and failures.
    resend_requests: int = 0
    resent_messages: int = 0
    resend_failures: int = 0
    #: ``resend`` requests taken and not yet answered.
    resends_running: int = 0

    @property
    def reconnects(self) -> int:
        """Connections after the first one."""
        return max(self.connects - 1, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Vitals:
    """What the table's adapters report right now: the input of health rules and gauges."""

    table_id: str
    version: str
    #: Seconds since the service started.
    uptime_s: float
    #: The procedure's phase (``faulted`` after a bug in the core).
    phase: str
    #: ``connected``, ``offline``, ``fault``, or ``none`` without a reader.
    reader_state: str
    #: False while the journal refuses writes (the table is held).
    journal_ok: bool
    #: Inputs waiting to be journaled and handled.
    input_queue_depth: int
    #: Inputs handled since start, the journal's replay included.
    inputs_handled: int
    #: Lines or frames from the reader rejected since start (garbage, bad checksum, resends).
    rejected_frames: int
    #: Assessments of the next round (odds, shoe alarms) that failed since start.
    analyses_failed: int
    #: None when the table has no broker.
    broker: BrokerVitals | None
    #: Staff ids or PINs refused since start (sign-in, a supervisor's approval).
    staff_wrong_pins: int = 0
    #: Reloads of the staff register that failed since start (the register in use was kept).
    staff_reload_failures: int = 0
    #: Why the journal refuses writes (SQLite's words and code, the room left); None: it records.
    journal_cause: str | None = None


class StaffCounts(Protocol):
    """What the staff desk counts (``staff/desk.py``), read at each scrape."""

    @property
    def wrong_pins(self) -> int: ...

    @property
    def reload_failures(self) -> int: ...


class ResendCounts(Protocol):
    """What :class:`~table_controller.runtime.resends.Resends` counts, read at each scrape."""

    @property
    def taken(self) -> int: ...
    @property
    def resent(self) -> int: ...
    @property
    def failed(self) -> int: ...
    @property
    def running(self) -> int: ...


class TableProbe:
    """Reads :class:`Vitals` from the live service and MQTT link; cheap, no I/O.

    Args:
        service: the table service.
        table_id: the table's id.
        version: the software's version.
        link: the MQTT link, if the table has a broker.
        staff: the staff desk.
        resends: the ``resend`` requests of a table with a broker.
        clock: monotonic seconds (for the uptime).
    """

    def __init__(  # noqa: PLR0913 - keyword-only, one per adapter read
        self,
        service: TableService,
        *,
        table_id: str,
        version: str,
        link: LinkView | None = None,
        staff: StaffCounts | None = None,
        resends: ResendCounts | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._service = service
        self._link = link
        self._staff = staff
        self._resends = resends
        self._table_id = table_id
        self._version = version
        self._clock = clock
        self._started_at = clock()

    def vitals(self) -> Vitals:
        service = self._service
        link = self._link
        broker = None
        if link is not None:
            counters = link.counters
            broker = BrokerVitals(
                connected=link.connected,
                last_error=counters.last_error,
                connects=counters.connects,
                errors=counters.errors,
                published=counters.published,
                outbox_depth=link.depth,
            )
            resends = self._resends
            if resends is not None:
                broker = replace(
                    broker,
                    resend_requests=resends.taken,
                    resent_messages=resends.resent,
                    resend_failures=resends.failed,
                    resends_running=resends.running,
                )
        refusal = service.journal_refusal
        return Vitals(
            table_id=self._table_id,
            version=self._version,
            uptime_s=self._clock() - self._started_at,
            phase=service.procedure.phase.value,
            reader_state=service.reader_state or READER_NONE,
            journal_ok=not service.journal_failing,
            journal_cause=None if refusal is None else refusal.cause,
            input_queue_depth=service.queue_depth,
            inputs_handled=service.inputs_handled,
            rejected_frames=service.rejected_lines,
            analyses_failed=service.analyses_failed,
            broker=broker,
            staff_wrong_pins=0 if self._staff is None else self._staff.wrong_pins,
            staff_reload_failures=0 if self._staff is None else self._staff.reload_failures,
        )


#: A kind of series: a gauge (a level now) or a counter (a total since start).
_Kind: TypeAlias = type[GaugeMetricFamily] | type[CounterMetricFamily]

#: The series read from the vitals: kind, name, what it measures, how it reads the vitals.
VITALS_SERIES: Final[tuple[tuple[_Kind, str, str, Callable[[Vitals], float]], ...]] = (
    (GaugeMetricFamily, "table_reader_connected",
     ("1 while the shoe reader is connected and well (a virtual table's card source always is),"
      " else 0."),
     lambda v: float(v.reader_state == READER_CONNECTED)),
    (GaugeMetricFamily, "table_journal_ok",
     "1 while the journal records, 0 while it refuses writes (the table is held).",
     lambda v: float(v.journal_ok)),
    (GaugeMetricFamily, "table_input_queue_depth",
     "Inputs (cards, commands) waiting to be journaled and handled.",
     lambda v: float(v.input_queue_depth)),
    (GaugeMetricFamily, "table_procedure_faulted",
     ("1 while the table is faulted (an input could not be carried out; held until a supervisor's"
      " void_shoe), else 0."),
     lambda v: float(v.phase == "faulted")),
    (CounterMetricFamily, "table_rejected_frames",
     "Lines or frames from the shoe reader rejected (bad checksum, garbage, resends).",
     lambda v: float(v.rejected_frames)),
    (CounterMetricFamily, "table_analyses_failed",
     ("Assessments of the next round (odds, shoe alarms) that failed; play goes on without them,"
      " and each is logged."),
     lambda v: float(v.analyses_failed)),
    (CounterMetricFamily, "table_staff_wrong_pins",
     "Staff ids or PINs refused (sign-in, a supervisor's approval), each logged.",
     lambda v: float(v.staff_wrong_pins)),
    (CounterMetricFamily, "table_staff_register_reload_failures",
     "Reloads of the staff register that failed (the register in use was kept).",
     lambda v: float(v.staff_reload_failures)),
)  # fmt: skip
#: The series of the MQTT link, as :data:`VITALS_SERIES`; a table without a broker has none.
BROKER_SERIES: Final[tuple[tuple[_Kind, str, str, Callable[[BrokerVitals], float]], ...]] = (
    (GaugeMetricFamily, "table_broker_connected",
     "1 while the MQTT link is connected to the broker, else 0.",
     lambda b: float(b.connected)),
    (GaugeMetricFamily, "table_outbox_depth",
     "Messages waiting for the broker to acknowledge them.",
     lambda b: float(b.outbox_depth)),
    (CounterMetricFamily, "table_mqtt_reconnects",
     "Connections to the broker after the first one.",
     lambda b: float(b.reconnects)),
    (CounterMetricFamily, "table_mqtt_connection_errors",
     "Connections to the broker lost or refused.",
     lambda b: float(b.errors)),
    (CounterMetricFamily, "table_mqtt_published",
     "Messages the broker acknowledged.",
     lambda b: float(b.published)),
    (CounterMetricFamily, "table_resend_requests",
     "resend requests taken (a backend asking for messages again); refused ones are not.",
     lambda b: float(b.resend_requests)),
    (CounterMetricFamily, "table_resent_messages",
     "Messages published again for resend requests.",
     lambda b: float(b.resent_messages)),
    (CounterMetricFamily, "table_resend_failures",
     "resend requests the outbox could not serve (answered resend_failed), each logged.",
     lambda b: float(b.resend_failures)),
    (GaugeMetricFamily, "table_resends_running",
     "resend requests taken and not yet answered.",
     lambda b: float(b.resends_running)),
)  # fmt: skip


class _VitalsCollector(Collector):
    """The gauges and counters that mirror live state, read at each scrape."""

    def __init__(self, vitals: Callable[[], Vitals | None]) -> None:
        self._vitals = vitals

    def describe(self) -> Iterable[Metric]:
        # The names, for the registry's duplicate check, without reading the live state.
        return self._families(None)

    def collect(self) -> Iterable[Metric]:
        return self._families(self._vitals())

    @staticmethod
    def _families(vitals: Vitals | None) -> list[Metric]:
        families: list[Metric] = [
            kind(name, words, value=0.0 if vitals is None else read(vitals))
            for kind, name, words, read in VITALS_SERIES
        ]
        if vitals is not None and vitals.broker is None:
            return families  # no broker: no broker series at all
        broker = None if vitals is None else vitals.broker
        return families + [
            kind(name, words, value=0.0 if broker is None else read(broker))
            for kind, name, words, read in BROKER_SERIES
        ]


#: The counts of the pace figures, by the ``kind`` label they are published under.
PACE_COUNTS: Final = ("voids", "misdeals", "exposed_cards", "misreads", "unnecessary_cards")
#: The pace gauges: name, what it measures, the figure it reads.
PACE_GAUGES: Final = (
    ("table_pace_rounds", "Rounds settled in the span.", "rounds"),
    ("table_pace_rounds_per_hour", "Rounds settled per hour of the span.", "rounds_per_hour"),
    ("table_pace_median_round_seconds", "Median time from betting closed to the result.",
     "median_round_seconds"),
    ("table_pace_median_between_rounds_seconds", "Median time from a round's end to the next.",
     "median_between_rounds_seconds"),
    ("table_pace_hold_seconds", "Time the table stood held in the span.", "hold_seconds"),
)  # fmt: skip


class _PaceCollector(Collector):
    """The game pace of the latest ``stats``, per span: ``shoe``, ``stint``, ``last_hour``."""

    def __init__(self, latest: Callable[[], Stats | None]) -> None:
        self._latest = latest

    def describe(self) -> Iterable[Metric]:
        return self._families(None)

    def collect(self) -> Iterable[Metric]:
        return self._families(self._latest())

    @staticmethod
    def _families(stats: Stats | None) -> list[Metric]:
        gauges = [GaugeMetricFamily(name, words, labels=["span"]) for name, words, _ in PACE_GAUGES]
        counts = GaugeMetricFamily(
            "table_pace_events",
            "Voids, misdeals, exposed cards, misreads and unnecessary cards in the span.",
            labels=["span", "kind"],
        )
        spans: tuple[tuple[str, PaceFigures | None], ...] = ()
        if stats is not None:
            spans = (("shoe", stats.shoe), ("stint", stats.stint), ("last_hour", stats.last_hour))
        for span, figures in spans:
            if figures is None:
                continue
            for gauge, (_, _, field) in zip(gauges, PACE_GAUGES, strict=True):
                value = getattr(figures, field)
                if value is not None:
                    gauge.add_metric([span], float(value))
            for kind in PACE_COUNTS:
                counts.add_metric([span, kind], float(getattr(figures, kind)))
        return [*gauges, counts]


class TableMetrics:
    """The table's Prometheus metrics, in a registry of their own.

    Feed it by giving it to the service among its observers (and :meth:`reader_changed` among
    its reader listeners); scrape :attr:`registry`
    (``prometheus_client.generate_latest(metrics.registry)``).

    Args:
        vitals: reads the live state at each scrape (:meth:`TableProbe.vitals`); None: given
            later (:meth:`read_vitals`), once the service it reads is built.
        table_id: the table's id (``table_info``).
        version: the software's version (``table_info``).
    """

    def __init__(
        self, vitals: Callable[[], Vitals] | None, *, table_id: str, version: str
    ) -> None:
        self._vitals = vitals
        self.registry = CollectorRegistry()
        registry = self.registry
        info = Info("table", "The table and its software.", registry=registry)
        info.info({"table_id": table_id, "version": version})
        self.cards = Counter(
            "table_cards_total",
            "Cards taken by the table (read by the shoe or drawn by a virtual table).",
            registry=registry,
        )
        self.rounds = Counter(
            "table_rounds_total", "Rounds completed (round_result messages).", registry=registry
        )
        self.alarms = Counter(
            "table_alarms_total", "Alarms raised, by code.", ["code"], registry=registry
        )
        for code in AlarmCode:  # every code from 0, so increase() sees the first alarm of each
            self.alarms.labels(code=code.value)
        self.reader_reconnects = Counter(
            "table_reader_reconnects_total",
            "Times the shoe reader came back after it went offline.",
            registry=registry,
        )
        self.card_to_prompt = Histogram(
            "table_card_to_prompt_seconds",
            "From the card read off the shoe link to the dealer's prompt it caused handed out"
            " (journal commit and acknowledgement included).",
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        registry.register(_VitalsCollector(self._read_vitals))
        #: The latest ``stats``: the pace gauges read it at each scrape.
        self.stats: Stats | None = None
        registry.register(_PaceCollector(lambda: self.stats))
        self._prompted = False
        self._reader_state = READER_OFFLINE
        self._reader_was_connected = False

    def _read_vitals(self) -> Vitals | None:
        return None if self._vitals is None else self._vitals()

    def read_vitals(self, vitals: Callable[[], Vitals]) -> None:
        """Read the live state with ``vitals`` from now on (:meth:`TableProbe.vitals`)."""
        self._vitals = vitals

    def on_message(self, message: OutgoingMessage, *, live: bool) -> None:
        """A message handed out: counted live; of the journal's replay only ``stats`` is kept."""
        if live:
            self.message_published(message)
        elif isinstance(message.payload, Stats):
            self.stats = message.payload

    def on_input(self, handled: HandledInput) -> None:
        """An input carried out: counted live (the journal's replay is not)."""
        if handled.live:
            self.input_handled(handled.event, handled.elapsed_s)

    def on_journal(self, refusal: JournalRefusal | None) -> None:
        """Nothing to count: the journal's state is read at each scrape (``table_journal_ok``)."""
        del refusal

    def message_published(self, message: OutgoingMessage) -> None:
        """A message was handed out: count rounds and alarms; note a prompt."""
        payload = message.payload
        match payload.TYPE:
            case EventType.ROUND_RESULT:
                self.rounds.inc()
            case EventType.ALARM if isinstance(payload, AlarmRaised):
                self.alarms.labels(code=payload.code.value).inc()
            case EventType.PROMPT:
                self._prompted = True
            case EventType.STATS if isinstance(payload, Stats):
                self.stats = payload
            case _:
                pass

    def input_handled(self, event: Input, elapsed_s: float | None) -> None:
        """An input was handled live; ``elapsed_s`` since the shoe link delivered it, if it did.

        The service hands out an input's messages while handling it, so a prompt noted since
        the previous input is this input's own.
        """
        prompted, self._prompted = self._prompted, False
        if not isinstance(event, CardDrawn):
            return
        self.cards.inc()
        if prompted and elapsed_s is not None:
            self.card_to_prompt.observe(max(elapsed_s, 0.0))

    def reader_changed(self, state: ReaderState | None) -> None:
        """The reader's state changed: count a return after an offline spell."""
        if state == READER_CONNECTED:
            if self._reader_was_connected and self._reader_state == READER_OFFLINE:
                self.reader_reconnects.inc()
            self._reader_was_connected = True
        self._reader_state = state or READER_NONE
