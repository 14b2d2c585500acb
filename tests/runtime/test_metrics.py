# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""TableMetrics with a real registry: what the counters, gauges and the histogram say.

Pure-style tests feed messages and inputs by hand with synthetic times; one test runs a real
service (journal on disk, a shoe link in memory) and checks the metrics against what the
journal and the messages themselves show.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from drivers.events import CardSeen, Delivery, ReaderOffline, ReaderOnline
from table_controller.contract.codes import AlarmCode, EventType, PromptAction, ReaderState
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.contract.payloads.base import Payload
from table_controller.contract.payloads.pit import AlarmRaised
from table_controller.contract.payloads.round import PromptShown
from table_controller.history.pace import Pace
from table_controller.procedure.inputs import CardDrawn, CloseBetting
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.cards import Card
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal.format import INPUT_ROW
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.jsonl_sink import JsonLinesSink
from table_controller.runtime.metrics import (
    LATENCY_BUCKETS_S,
    TableMetrics,
    TableProbe,
    Vitals,
)
from table_controller.runtime.service import TableService
from table_controller.runtime.service_ports import TableObserver
from tests.runtime.vitals import BROKER, HEALTHY
from tests.support.dealing import next_records, seeded_shoe
from tests.support.links import MemoryLink
from tests.support.observers import Heard
from tests.support.virtual_tables import command, quiet, running, virtual_service
from tests.support.waiting import until

pytestmark = pytest.mark.usefixtures("no_leaks")


def message(event_type: str, **fields: str) -> OutgoingMessage:
    """A message of this type; the metrics read only its type, an alarm's code, a prompt."""
    payload: Payload
    if event_type == "alarm":
        payload = AlarmRaised(
            dealer=None, alarm_id="T07-A000001", code=AlarmCode(fields["code"]),
            message=fields["message"],
        )
    elif event_type == "prompt":
        payload = PromptShown(dealer=None, action=PromptAction(fields["action"]))
    else:
        payload = type("Bare", (Payload,), {"__slots__": (), "TYPE": EventType(event_type)})()
    return OutgoingMessage(key="1.0", payload=payload, ts=None)


def card(code: str = "5H") -> CardDrawn:
    return CardDrawn(at=0.0, card=Card.parse(code))


def sample(metrics: TableMetrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, labels)


def fixed(vitals: Vitals) -> Callable[[], Vitals]:
    return lambda: vitals


# --- counters fed by hand ------------------------------------------------------------------


def test_rounds_and_alarms_are_counted_from_the_messages() -> None:
    metrics = TableMetrics(fixed(HEALTHY), table_id="T07", version="0.1.0")
    for kind in ("round_result", "card", "round_result", "round_voided", "roads"):
        metrics.message_published(message(kind))
    metrics.message_published(message("alarm", code="misread", message="..."))
    metrics.message_published(message("alarm", code="misread", message="..."))
    metrics.message_published(message("alarm", code="foreign_card", message="..."))
    assert sample(metrics, "table_rounds_total") == 2
    assert sample(metrics, "table_alarms_total", code="misread") == 2
    assert sample(metrics, "table_alarms_total", code="foreign_card") == 1


def test_every_alarm_code_is_exposed_from_zero() -> None:
    metrics = TableMetrics(fixed(HEALTHY), table_id="T07", version="0.1.0")
    for code in AlarmCode:
        assert sample(metrics, "table_alarms_total", code=code.value) == 0


def test_a_card_that_caused_a_prompt_is_timed_and_one_that_did_not_is_only_counted() -> None:
    metrics = TableMetrics(fixed(HEALTHY), table_id="T07", version="0.1.0")
    metrics.message_published(message("card"))
    metrics.message_published(message("prompt", action="banker_draws"))
    metrics.input_handled(card("5H"), 0.0031)
    metrics.message_published(message("card"))  # no prompt this time
    metrics.input_handled(card("KD"), 0.0020)
    metrics.message_published(message("prompt", action="result"))
    metrics.input_handled(card("2C"), 0.0007)
    assert sample(metrics, "table_cards_total") == 3
    assert sample(metrics, "table_card_to_prompt_seconds_count") == 2
    assert sample(metrics, "table_card_to_prompt_seconds_sum") == pytest.approx(0.0038)
    assert sample(metrics, "table_card_to_prompt_seconds_bucket", le="0.001") == 1
    assert sample(metrics, "table_card_to_prompt_seconds_bucket", le="0.005") == 2


def test_a_prompt_from_a_command_is_not_taken_for_the_next_card() -> None:
    metrics = TableMetrics(fixed(HEALTHY), table_id="T07", version="0.1.0")
    metrics.message_published(message("prompt", action="deal"))
    metrics.input_handled(CloseBetting(at=0.0, command_id="c-1", operator="dealer"), None)
    metrics.message_published(message("card"))
    metrics.input_handled(card(), 0.002)
    assert sample(metrics, "table_cards_total") == 1
    assert sample(metrics, "table_card_to_prompt_seconds_count") == 0


def test_a_card_not_from_the_shoe_link_is_counted_but_not_timed() -> None:
    metrics = TableMetrics(fixed(HEALTHY), table_id="T07", version="0.1.0")
    metrics.message_published(message("prompt", action="player_draws"))
    metrics.input_handled(card(), None)  # a virtual table's card source
    assert sample(metrics, "table_cards_total") == 1
    assert sample(metrics, "table_card_to_prompt_seconds_count") == 0


def test_reader_reconnects_count_returns_after_an_offline_spell_only() -> None:
    metrics = TableMetrics(fixed(HEALTHY), table_id="T07", version="0.1.0")
    for state in ("connected", "offline", "connected", "fault", "connected", "offline"):
        metrics.reader_changed(ReaderState(state))
    assert sample(metrics, "table_reader_reconnects_total") == 1  # the first connect is not one
    metrics.reader_changed(ReaderState.CONNECTED)
    assert sample(metrics, "table_reader_reconnects_total") == 2


def test_the_latency_buckets_span_a_fast_disk_to_a_stalled_one() -> None:
    assert tuple(sorted(LATENCY_BUCKETS_S)) == LATENCY_BUCKETS_S
    assert LATENCY_BUCKETS_S[0] <= 0.0005
    assert LATENCY_BUCKETS_S[-1] >= 0.5


# --- gauges read at scrape time ------------------------------------------------------------


def test_state_is_read_at_each_scrape_not_when_it_changed() -> None:
    current = [HEALTHY]
    metrics = TableMetrics(lambda: current[0], table_id="T07", version="0.1.0")
    assert sample(metrics, "table_reader_connected") == 1
    assert sample(metrics, "table_journal_ok") == 1
    current[0] = replace(
        HEALTHY,
        reader_state="offline",
        journal_ok=False,
        input_queue_depth=3,
        rejected_frames=7,
        analyses_failed=2,
    )
    assert sample(metrics, "table_reader_connected") == 0
    assert sample(metrics, "table_journal_ok") == 0
    assert sample(metrics, "table_input_queue_depth") == 3
    assert sample(metrics, "table_rejected_frames_total") == 7
    assert sample(metrics, "table_analyses_failed_total") == 2
    assert sample(metrics, "table_procedure_faulted") == 0
    current[0] = replace(HEALTHY, phase="faulted")
    assert sample(metrics, "table_procedure_faulted") == 1


def test_broker_series_appear_only_with_a_broker() -> None:
    without = TableMetrics(fixed(HEALTHY), table_id="T07", version="0.1.0")
    assert sample(without, "table_broker_connected") is None
    assert sample(without, "table_outbox_depth") is None
    down = replace(
        BROKER, connected=False, last_error="timed out", connects=3, errors=4, outbox_depth=57
    )
    with_broker = TableMetrics(
        fixed(replace(HEALTHY, broker=down)), table_id="T07", version="0.1.0"
    )
    assert sample(with_broker, "table_broker_connected") == 0
    assert sample(with_broker, "table_outbox_depth") == 57
    assert sample(with_broker, "table_mqtt_reconnects_total") == 2
    assert sample(with_broker, "table_mqtt_connection_errors_total") == 4
    assert sample(with_broker, "table_mqtt_published_total") == 120
    assert sample(with_broker, "table_resend_requests_total") == 0


def test_resends_are_read_from_the_requests_at_each_scrape(tmp_path: Path) -> None:
    counts = ResendTally(taken=3, resent=250, failed=1, running=1)
    broker = FakeLink(connected=True, depth=0, counters=FakeCounters(connects=1))
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        service, _ = make_service(tmp_path, journal, MemoryLink())
        probe = TableProbe(service, table_id="T07", version="0.1.0", link=broker, resends=counts)
        metrics = TableMetrics(probe.vitals, table_id="T07", version="0.1.0")
        assert sample(metrics, "table_resend_requests_total") == 3
        assert sample(metrics, "table_resent_messages_total") == 250
        assert sample(metrics, "table_resend_failures_total") == 1
        assert sample(metrics, "table_resends_running") == 1
        counts.running, counts.resent = 0, 300
        assert sample(metrics, "table_resends_running") == 0
        assert sample(metrics, "table_resent_messages_total") == 300


@dataclass
class ResendTally:
    """What a table's resend requests counted (the ``ResendCounts`` the probe reads)."""

    taken: int
    resent: int
    failed: int
    running: int


def test_the_exposition_parses_and_names_the_table() -> None:
    metrics = TableMetrics(fixed(replace(HEALTHY, broker=BROKER)), table_id="T07", version="0.1.0")
    metrics.input_handled(card(), 0.001)
    text = generate_latest(metrics.registry).decode()
    families = {family.name: family for family in text_string_to_metric_families(text)}
    assert families["table_info"].samples[0].labels == {"table_id": "T07", "version": "0.1.0"}
    assert families["table_cards"].type == "counter"
    assert families["table_card_to_prompt_seconds"].type == "histogram"
    assert families["table_outbox_depth"].type == "gauge"
    assert families["table_mqtt_reconnects"].type == "counter"


def test_each_table_has_its_own_registry() -> None:
    first = TableMetrics(fixed(HEALTHY), table_id="T07", version="0.1.0")
    second = TableMetrics(fixed(HEALTHY), table_id="T08", version="0.1.0")
    first.input_handled(card(), None)
    assert sample(first, "table_cards_total") == 1
    assert sample(second, "table_cards_total") == 0
    assert isinstance(first.registry, CollectorRegistry)
    assert first.registry is not second.registry


# --- a live service --------------------------------------------------------------------------


@dataclass
class FakeCounters:
    connects: int = 0
    published: int = 0
    errors: int = 0
    last_error: str | None = None


@dataclass
class FakeLink:
    """The link's observable surface (connected, depth, counters), set by the test."""

    connected: bool = False
    depth: int = 0
    counters: FakeCounters = field(default_factory=FakeCounters)


async def handled_past(service: TableService, count: int) -> None:
    await until(lambda: service.inputs_handled > count)


def make_service(
    tmp_path: Path,
    journal: Journal,
    link: MemoryLink,
    observers: Sequence[TableObserver] = (),
    reader_listeners: Sequence[Callable[[ReaderState | None], None]] = (),
) -> tuple[TableService, JsonLinesSink]:
    sink = JsonLinesSink(tmp_path / "events.jsonl", table_id="T07", topic_root="t/T07")
    procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
    service = TableService(
        procedure=procedure,
        journal=journal,
        sink=sink,
        pace=Pace(),
        observers=observers,
        link=link,
        reader_listeners=reader_listeners,
    )
    return service, sink


async def test_a_live_service_feeds_the_metrics_what_its_journal_shows(  # noqa: PLR0915
    tmp_path: Path,
) -> None:
    with Journal.open(tmp_path / "t.journal", table_id="T07") as journal:
        link = MemoryLink()
        metrics = TableMetrics(None, table_id="T07", version="0.1.0")
        listened = Heard()
        service, sink = make_service(
            tmp_path, journal, link, [metrics, listened], [metrics.reader_changed]
        )
        service.recover()
        broker = FakeLink(connected=True, depth=4, counters=FakeCounters(connects=1))
        probe = TableProbe(service, table_id="T07", version="0.1.0", link=broker)
        metrics.read_vitals(probe.vitals)
        heard = listened.messages
        task = asyncio.create_task(service.run())
        try:
            await link.events.put(ReaderOnline())
            await until(lambda: service.reader_state == "connected")
            reply = await service.submit(
                {"command": "new_shoe", "id": "c-1", "operator": "dealer", "args": {}}
            )
            assert reply["ok"]
            shoe: Iterator[str] = iter(seeded_shoe(5))
            counter = itertools.count(2)
            cards = 0
            while sample(metrics, "table_rounds_total") != 2:
                for record in next_records(service.procedure.snapshot(), shoe, counter):
                    if "command" in record:
                        assert (await service.submit(record))["ok"]
                        continue
                    cards += 1
                    handled = service.inputs_handled
                    delivery = Delivery(epoch=1, seq=cards)
                    await link.events.put(CardSeen(card=str(record["card"]), delivery=delivery))
                    await handled_past(service, handled)
            # The reader goes away and comes back: an alarm, a hold, a reconnection.
            handled = service.inputs_handled
            await link.events.put(ReaderOffline(reason="unplugged"))
            await link.events.put(ReaderOnline())
            await handled_past(service, handled + 1)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            sink.close()
        card_rows = {
            row.seq for row in journal.rows() if row.type == INPUT_ROW and "card" in row.payload
        }
    prompted_rows = {int(m.key.split(".")[0]) for m in heard if m.event_type == "prompt"}
    assert len(card_rows) == cards
    assert sample(metrics, "table_cards_total") == cards
    timed = sample(metrics, "table_card_to_prompt_seconds_count")
    assert timed == len(card_rows & prompted_rows)
    assert timed is not None
    assert timed > 0
    total = sample(metrics, "table_card_to_prompt_seconds_sum")
    assert total is not None
    assert 0 < total < 5
    results = [m for m in heard if m.event_type == "round_result"]
    assert sample(metrics, "table_rounds_total") == len(results) == 2
    assert sample(metrics, "table_alarms_total", code="reader_offline") == 1
    assert sample(metrics, "table_reader_reconnects_total") == 1
    assert sample(metrics, "table_reader_connected") == 1
    assert sample(metrics, "table_broker_connected") == 1
    assert sample(metrics, "table_outbox_depth") == 4
    vitals = probe.vitals()
    assert vitals.inputs_handled == service.inputs_handled
    assert vitals.journal_ok
    assert vitals.phase == service.procedure.phase.value


async def test_the_journals_replay_is_not_counted_again_but_its_latest_stats_are_kept(
    tmp_path: Path,
) -> None:
    with Journal.open(tmp_path / "t.journal", table_id="V1") as journal:
        live = TableMetrics(fixed(HEALTHY), table_id="V1", version="0.1.0")
        service = virtual_service(journal, tmp_path / "live.jsonl", observers=[live])
        async with running(service):
            await command(service, "new_shoe", 1, shoe_id="M-1")
            await command(service, "open_betting", 2)
            await command(service, "close_betting", 3)
            assert (await quiet(service))["phase"] == "between_rounds"
        restarted = TableMetrics(fixed(HEALTHY), table_id="V1", version="0.1.0")
        again = virtual_service(journal, tmp_path / "again.jsonl", observers=[restarted])
        assert again.recover() > 0
    assert sample(live, "table_rounds_total") == 1
    assert (sample(live, "table_cards_total") or 0) >= 4
    assert sample(restarted, "table_rounds_total") == 0
    assert sample(restarted, "table_cards_total") == 0
    assert live.stats is not None
    assert restarted.stats == live.stats
