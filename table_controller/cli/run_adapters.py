# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The adapters ``run`` builds from its settings: odds, staff, MQTT, screens, message sinks.

Each function takes the settings (and what it wires to) and returns one adapter, or ``None``
when the settings turn it off. A setting that is refused here stops the start with one line
naming it (:class:`UsageError`, exit status 2). The web and MQTT modules are imported inside
the functions that use them: a table without a broker or display never loads those libraries.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from table_controller import __version__
from table_controller.cli import UsageError
from table_controller.integrity import EdgeSigning
from table_controller.procedure import TableProcedure
from table_controller.protection import AdvisorSettings, DynamicWindows, RoundAdvisor
from table_controller.rules import Variant
from table_controller.runtime import (
    FanOutSink,
    JsonLinesSink,
    MessageSink,
    OutboxSink,
    Settings,
    TableService,
    utc_now,
)
from table_controller.staff import RegisterError, StaffDesk

if TYPE_CHECKING:  # imported where used: a table without a broker or display never loads them
    from table_controller.ingress import AuthorisationPolicy
    from table_controller.mqtt import MqttSettings
    from table_controller.mqtt.client import MqttLink
    from table_controller.runtime import TableMetrics
    from table_controller.screens.board import BoardFeed, BoardServer
    from table_controller.screens.dealer import DisplayFeeds, DisplayServer


def round_advisor(
    settings: Settings, variant: Variant, dynamic_windows: DynamicWindows | None
) -> RoundAdvisor | None:
    """The live odds and shoe alarms, unless turned off."""
    if not settings.live_odds:
        return None
    below = Fraction(Decimal(repr(settings.edge_alarm_below))) / 100
    return RoundAdvisor(
        variant,
        AdvisorSettings(
            edge_threshold=below,
            dynamic_windows=dynamic_windows,
            shuffle_false_alarm_rate=settings.shuffle_false_alarm_rate,
            repeat_false_alarm_rate=settings.repeat_false_alarm_rate,
        ),
    )


def mqtt_settings(settings: Settings) -> MqttSettings | None:
    """The broker's settings (``broker``, the ``mqtt_*`` settings); None without a broker."""
    if settings.broker is None:
        return None
    from table_controller.mqtt import MqttSettings  # noqa: PLC0415

    try:
        mqtt = MqttSettings.from_url(
            settings.broker,
            table_id=settings.table_id,
            ca_file=settings.mqtt_ca_file,
            cert_file=settings.mqtt_cert_file,
            key_file=settings.mqtt_key_file,
            protocol=settings.mqtt_protocol,
            topic_prefix=settings.topic_prefix,
            client_id=settings.mqtt_client_id,
        )
        return replace(
            mqtt,
            retention=timedelta(days=settings.outbox_retention_days),
            resend_per_second=settings.resend_messages_per_second,
        )
    except ValueError as error:
        raise UsageError(f"broker: {error}") from None


def staff_desk(settings: Settings) -> StaffDesk:
    """The staff desk, its register read now: an unreadable register stops the start."""
    try:
        return StaffDesk(
            settings.staff_register,
            max_failures=settings.sign_in_max_failures,
            lockout_s=settings.sign_in_lockout_seconds,
        )
    except RegisterError as error:
        raise UsageError(f"staff_register: {error}") from None


def authorisation_policy(settings: Settings) -> AuthorisationPolicy:
    """Who may send which commands over MQTT, and the secret that signs them."""
    from table_controller.ingress import AuthorisationPolicy  # noqa: PLC0415

    secret = settings.command_secret
    return AuthorisationPolicy(
        supervisors={
            operator: frozenset(users) for operator, users in settings.supervisors.items()
        },
        confirmers={
            operator: frozenset(users) for operator, users in settings.result_confirmers.items()
        },
        resenders={operator: frozenset(users) for operator, users in settings.resenders.items()},
        shared_secret=None if secret is None else secret.get_secret_value().encode(),
        sign_all=settings.sign_all_commands,
    )


def display_feeds(
    settings: Settings, procedure: TableProcedure, desk: StaffDesk, *, virtual: bool
) -> DisplayFeeds | None:
    """The dealer display's views (its own, its board's), when ``display`` names an address.

    Built before the table service, which tells them what it publishes from its replay on.
    """
    if settings.display_address is None:
        return None
    from table_controller.screens.dealer import DisplayFeeds  # noqa: PLC0415 - only when shown

    return DisplayFeeds(procedure, virtual=virtual, staff=desk, table_id=settings.table_id)


def board_feed(settings: Settings, procedure: TableProcedure) -> BoardFeed | None:
    """The view of the board on its own address, when ``board_address`` names one.

    Built before the table service, which tells it what it publishes from its replay on.
    """
    if settings.board_host_port is None:
        return None
    from table_controller.screens.board import BoardFeed  # noqa: PLC0415 - only when shown

    return BoardFeed(procedure, table_id=settings.table_id)


def dealer_display(
    settings: Settings, service: TableService, feeds: DisplayFeeds | None, desk: StaffDesk
) -> DisplayServer | None:
    """The dealer display showing ``feeds``, when ``display`` names an address."""
    address = settings.display_address
    if address is None or feeds is None:
        return None
    pin = None if settings.display_pin is None else settings.display_pin.get_secret_value()
    from table_controller.screens.dealer import DisplayServer  # noqa: PLC0415 - only when shown

    languages = {"display": settings.display_language, "board": settings.board_language}
    return DisplayServer(
        service,
        feeds,
        host=address[0],
        port=address[1],
        pin=pin,
        staff=desk,
        languages=languages,
        limits=settings.web_limits,
        allowed_hosts=settings.allowed_hosts,
        currency=settings.currency,
    )


def players_board(settings: Settings, feed: BoardFeed | None) -> BoardServer | None:
    """The players' board showing ``feed`` on its own address, when ``board_address`` names one."""
    address = settings.board_host_port
    if address is None or feed is None:
        return None
    from table_controller.screens.board import BoardServer  # noqa: PLC0415 - only when shown

    return BoardServer(
        feed,
        host=address[0],
        port=address[1],
        language=settings.board_language,
        limits=settings.web_limits,
        allowed_hosts=settings.allowed_hosts,
    )


def table_metrics(settings: Settings) -> TableMetrics | None:
    """The metrics, when ``metrics`` names an address: one of the service's observers.

    Built before the service; the health server gives them its vitals after the replay.
    """
    if settings.metrics_address is None:
        return None
    from table_controller.runtime import TableMetrics  # noqa: PLC0415 - only if asked

    return TableMetrics(None, table_id=settings.table_id, version=__version__)


def mqtt_link(
    settings: Settings, stack: contextlib.ExitStack, mqtt: MqttSettings, edge: EdgeSigning
) -> tuple[MqttLink, OutboxSink]:
    """The MQTT link and the sink that fills its outbox (two connections to the outbox).

    The writer's outbox signs each message as it numbers it; the link signs its statuses.
    """
    from table_controller.mqtt import Outbox  # noqa: PLC0415 - only with a broker
    from table_controller.mqtt.client import MqttLink  # noqa: PLC0415 - with a broker

    # The writer's outbox syncs its rows when it stores them, after the card's event is out:
    # left unsynced, they would go to the disk with the next card's journal commit.
    seal = edge.seal
    writer_outbox = stack.enter_context(
        Outbox.open(settings.journal_path, clock=utc_now, seal=seal)
    )
    link_outbox = stack.enter_context(Outbox.open(settings.journal_path, clock=utc_now))
    link = MqttLink(mqtt, link_outbox, status_fields=edge.status_fields, seal=seal)
    root = f"{settings.topic_prefix}/{settings.table_id}"
    sink = OutboxSink(
        writer_outbox,
        link=link,
        table_id=settings.table_id,
        topic_root=root,
        edge_fields=edge.message_fields,
    )
    return link, sink


def message_sink(
    settings: Settings,
    stack: contextlib.ExitStack,
    outbox_sink: OutboxSink | None,
    edge: EdgeSigning,
) -> MessageSink:
    """The outbox sink, the JSON-lines copy (always, without a broker), or both."""
    sinks: list[MessageSink] = [] if outbox_sink is None else [outbox_sink]
    events_log = settings.events_log
    if events_log is None and outbox_sink is None:
        events_log = Path(f"table-{settings.table_id}.events.jsonl")
    if events_log is not None:
        root = f"{settings.topic_prefix}/{settings.table_id}"
        log = JsonLinesSink(
            events_log,
            table_id=settings.table_id,
            topic_root=root,
            edge_fields=edge.message_fields,
            seal=edge.seal,
        )
        stack.callback(log.close)
        sinks.insert(0, log)
    return sinks[0] if len(sinks) == 1 else FanOutSink(*sinks)
