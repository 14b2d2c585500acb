# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo put together: broker, backend, shoe and dealer, table service, pit; stopped cleanly.

Adapter: processes, a pseudo-terminal, MQTT and the loop's clock; the decisions are the
pit's (:mod:`table_controller.demo.pit`) and the lines are the console view's
(:mod:`table_controller.demo.console`). In order:

1. the embedded broker (mosquitto, :mod:`table_controller.demo.broker`, a child process on a
   free port of 127.0.0.1), unless an external one was given;
2. the backend: one subscription to ``<prefix>/+/#``, made before the table starts so that
   nothing it publishes is missed, feeding the console view and the pit;
3. the virtual shoe on a pseudo-terminal in a temporary directory, with its automatic dealer;
4. the table service, ``table-controller run`` as a child process, on that pseudo-terminal,
   with its journal in the temporary directory unless one was given, the broker, and the
   dealer's display (its URL is printed);
5. the pit, which signs in the demo's dealer and supervisor (from a staff register written in
   the temporary directory; the table requires a dealer) and sends the table its
   ``new_shoe``, ``open_betting`` and ``close_betting`` commands over MQTT, as a backend does
   (``<root>/commands``, answered on ``<root>/commands/replies``).

It runs until ``rounds`` rounds were settled, SIGINT (Ctrl-C) or SIGTERM, and then stops
everything in the reverse order: the dealer, the table (SIGTERM; it publishes its offline
status, which the console shows), the shoe, the subscription, the broker; the temporary
directory is removed. A child that stops by itself ends the demo with status 1 and the end
of its log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar, assert_never

from table_controller.contract import StaffRole
from table_controller.demo.console import ConsoleView
from table_controller.demo.pit import (
    AutoPit,
    CardDealt,
    GiveCommand,
    LoadNewShoe,
    Pace,
    PitDecision,
    StatusSeen,
    pit_input,
)
from table_controller.demo.processes import Child, ChildError, start_broker, start_table
from table_controller.demo.shoe import DemoShoe, ShoeMaker
from table_controller.mqtt import BrokerEndpoint, ProtocolName, topic_root
from table_controller.mqtt.client import Received, Subscription, publish_once
from table_controller.runtime import stop_signals
from table_controller.staff import StaffRegister

#: The demo's staff register: id -> (name, role, PIN). Demo PINs, printed on start: the
#: display's sign-in and supervisor panel can be tried with them.
DEMO_STAFF: Final = {
    "D-01": ("Demo Dealer", "dealer", "1111"),
    "S-01": ("Demo Supervisor", "supervisor", "9999"),
}


#: The demo's stake limits (whole amounts of the table's currency) when its configuration gives
#: none: by bet id, ``(min, max)``; each side bet has :data:`DEMO_SIDE_BET_LIMITS`.
DEMO_LIMITS: Final = {"player": (10, 5000), "banker": (10, 5000), "tie": (5, 1000)}
DEMO_SIDE_BET_LIMITS: Final = (5, 500)


def demo_limits(bet_ids: Sequence[str]) -> dict[str, dict[str, int]]:
    """The demo's limits of these bets, as the ``limits`` setting takes them."""
    limits = {bet: DEMO_LIMITS.get(bet, DEMO_SIDE_BET_LIMITS) for bet in bet_ids}
    return {bet: {"min": low, "max": high} for bet, (low, high) in limits.items()}


def write_demo_register(path: Path) -> Path:
    """The demo's staff register (argon2id hashes, as ``table-controller staff add`` writes)."""
    register = StaffRegister()
    for staff_id, (name, role, pin) in DEMO_STAFF.items():
        register.add(staff_id, name, StaffRole(role), pin)
    register.save(path)
    return path


#: How long the backend may take to reach the broker before the demo gives up.
SUBSCRIBE_S: Final = 15.0
#: How long, once the table stopped, the console waits for its offline status.
OFFLINE_WAIT_S: Final = 2.0

Printer = Callable[[str], None]
T = TypeVar("T")


def _print_out(text: str) -> None:
    print(text, flush=True)


def _print_err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoSettings:
    """What one demo runs: the table, the broker, the pace and when to stop."""

    table_id: str
    variant: str
    decks: int
    reshuffle_every_round: bool
    topic_prefix: str
    #: None: start the embedded broker.
    broker_url: str | None
    mqtt_protocol: ProtocolName = "3.1.1"
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    #: ``(host, port)`` of the dealer's display; None: no display.
    display: tuple[str, int] | None
    #: None: a temporary journal, removed at the end.
    journal: Path | None
    speed: float = 1.0
    rounds: int | None = None
    seed: int | None = None
    #: Further flags for ``table-controller run`` (the settings given to the demo).
    run_flags: tuple[str, ...] = ()
    #: Further environment for it (secrets are passed this way, not on its command line).
    run_env: Mapping[str, str] = field(default_factory=dict)
    #: The stake limits the demo gives its table (:func:`demo_limits`), as the ``limits``
    #: setting takes them; empty: the table's configuration has its own.
    limits: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


def display_url(host: str, port: int) -> str:
    """The dealer display's address as a browser opens it."""
    if host in {"0.0.0.0", "::"}:  # noqa: S104 - served on every interface: this machine is one
        host = "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def run_flags(settings: DemoSettings, *, port: Path, journal: Path, broker_url: str) -> list[str]:
    """The command line of ``table-controller run`` for the demo's table."""
    display = "off" if settings.display is None else "{}:{}".format(*settings.display)
    return [
        "--table-id", settings.table_id,
        "--variant", settings.variant,
        "--port", str(port),
        "--protocol", "srp",
        "--card-source", "reader",
        "--betting-phase",
        "--journal", str(journal),
        "--broker", broker_url,
        "--topic-prefix", settings.topic_prefix,
        "--display", display,
        *settings.run_flags,
    ]  # fmt: skip


async def run_demo(
    settings: DemoSettings, *, out: Printer = _print_out, err: Printer = _print_err
) -> int:
    """Run the demo until its rounds were played, SIGINT or SIGTERM; the exit status."""
    return await Demo(settings, out=out, err=err).run()


class Demo:
    """One run of the demo (see the module's docstring for the order of things)."""

    def __init__(self, settings: DemoSettings, *, out: Printer, err: Printer) -> None:
        self.settings = settings
        self.out = out
        self.err = err
        self.pace = Pace().at_speed(settings.speed)
        token = secrets.token_hex(4)
        self.pit = AutoPit(
            pace=self.pace,
            id_prefix=f"demo-{token}",
            rounds=settings.rounds,
            reshuffle_every_round=settings.reshuffle_every_round,
            sign_ins=tuple((staff_id, pin) for staff_id, (_, _, pin) in DEMO_STAFF.items()),
        )
        self.console = ConsoleView(prefix=settings.topic_prefix)
        self.backend_id = f"demo-backend-{token}"
        self.commands_topic = f"{topic_root(settings.topic_prefix, settings.table_id)}/commands"
        self._stop = asyncio.Event()
        #: Whether the latest status of the table said online.
        self._table_online = False

    def request_stop(self) -> None:
        """Stop the demo (the signal handlers call this)."""
        if not self._stop.is_set():
            self.err("table-controller demo: stopping ...")
        self._stop.set()

    async def run(self) -> int:
        with stop_signals(lambda _signum: self.request_stop()):
            workdir = Path(tempfile.mkdtemp(prefix="table-controller-demo-"))
            try:
                return await self._run_in(workdir)
            except ChildError as error:
                self.err(f"table-controller demo: {error}")
                return 1
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
                self.err(f"table-controller demo: {self.console.summary()}")

    def _endpoint(self, url: str) -> BrokerEndpoint:
        settings = self.settings
        return BrokerEndpoint.from_url(
            url,
            ca_file=settings.ca_file,
            cert_file=settings.cert_file,
            key_file=settings.key_file,
            protocol=settings.mqtt_protocol,
        )

    async def _run_in(self, workdir: Path) -> int:
        settings = self.settings
        async with contextlib.AsyncExitStack() as stack:
            broker: Child | None = None
            if settings.broker_url is None:
                started = await self._unless_stopped(start_broker(workdir / "broker.log"))
                if started is None:
                    return 0
                broker, port = started
                stack.push_async_callback(broker.stop)
                url = f"mqtt://127.0.0.1:{port}"
            else:
                url = settings.broker_url
            endpoint = self._endpoint(url)
            topic_filter = f"{settings.topic_prefix}/+/#"
            subscription = await stack.enter_async_context(
                Subscription(endpoint, [topic_filter], client_id=self.backend_id)
            )
            try:
                async with asyncio.timeout(SUBSCRIBE_S):
                    if not await self._unless_stopped(self._subscribed(subscription)):
                        return 0
            except TimeoutError:
                where = f"{endpoint.host}:{endpoint.port}"
                self.err(f"table-controller demo: no broker at {where}: {subscription.last_error}")
                return 1
            loop = asyncio.get_running_loop()
            shoe = await stack.enter_async_context(
                DemoShoe(
                    link=workdir / "shoe",
                    maker=ShoeMaker(
                        decks=settings.decks,
                        cut_card=not settings.reshuffle_every_round,
                        seed=settings.seed,
                    ),
                    card_s=self.pace.card_s,
                    on_draw=lambda: self.pit.handle(CardDealt(), loop.time()),
                )
            )
            journal = settings.journal or workdir / f"{settings.table_id}.journal"
            flags = run_flags(settings, port=shoe.link, journal=journal, broker_url=url)
            register = await asyncio.to_thread(write_demo_register, workdir / "staff.json")
            env = {
                **(settings.run_env or os.environ),
                "TABLE_CONTROLLER_STAFF_REGISTER": str(register),
                "TABLE_CONTROLLER_REQUIRE_DEALER": "true",
            }
            if settings.limits:
                env["TABLE_CONTROLLER_LIMITS"] = json.dumps(settings.limits)
            table = await start_table(flags, workdir / "table.log", env)
            stack.push_async_callback(self._stop_table, table, subscription)
            self._header(
                broker=broker,
                url=url,
                shoe=shoe,
                table=table,
                journal=journal,
                topic_filter=topic_filter,
            )
            try:
                return await self._play(subscription, endpoint, shoe, table, broker)
            finally:
                await shoe.stop_dealing()
        raise AssertionError("unreachable")  # pragma: no cover - the block returns

    async def _unless_stopped(self, work: Awaitable[T]) -> T | None:
        """The result of ``work``, or None if the demo is stopped first (``work`` is cancelled)."""
        task = asyncio.ensure_future(work)
        stopped = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for future in (task, stopped):
                future.cancel()
            await asyncio.gather(task, stopped, return_exceptions=True)
        if task.cancelled():
            return None
        return task.result()

    @staticmethod
    async def _subscribed(subscription: Subscription) -> bool:
        await subscription.wait_subscribed()
        return True

    def _header(  # noqa: PLR0913 - one line per part
        self,
        *,
        broker: Child | None,
        url: str,
        shoe: DemoShoe,
        table: Child,
        journal: Path,
        topic_filter: str,
    ) -> None:
        settings = self.settings
        endpoint = self._endpoint(url)
        where = f"{'mqtts' if endpoint.tls else 'mqtt'}://{endpoint.host}:{endpoint.port}"
        until = "Ctrl-C stops it"
        if settings.rounds is not None:
            until = f"stops after {settings.rounds} rounds (Ctrl-C stops it sooner)"
        display = "off"
        if settings.display is not None:
            display = display_url(*settings.display)
        self.out(
            f"table-controller demo: table {settings.table_id}, {settings.variant},"
            f" speed {settings.speed:g}; {until}"
        )
        self.out(f"  dealer display  {display}")
        if broker is None:
            self.out(f"  broker          {where} (external)")
        else:
            self.out(f"  broker          {where} (embedded mosquitto, pid {broker.pid})")
        self.out(f"  virtual shoe    {shoe.address} (automatic dealer)")
        temporary = " (temporary)" if settings.journal is None else ""
        self.out(f"  table service   pid {table.pid}, journal {journal}{temporary}")
        self.out(f"  backend         {topic_filter}")
        staff = ", ".join(
            f"{role} {staff_id} (PIN {pin})" for staff_id, (_, role, pin) in DEMO_STAFF.items()
        )
        self.out(f"  staff           {staff}; signed in by the pit")

    async def _play(
        self,
        subscription: Subscription,
        endpoint: BrokerEndpoint,
        shoe: DemoShoe,
        table: Child,
        broker: Child | None,
    ) -> int:
        """Feed the pit and the console until done; 0, or 1 when a child stopped by itself."""
        loop = asyncio.get_running_loop()
        stopped: asyncio.Future[Any] = asyncio.ensure_future(self._stop.wait())
        ended: dict[asyncio.Future[Any], Child] = {
            asyncio.ensure_future(child.wait()): child for child in (table, broker) if child
        }
        message: asyncio.Future[Any] | None = None
        try:
            while True:
                for decision in self.pit.due(loop.time()):
                    await self._carry_out(decision, endpoint, shoe)
                deadline = self.pit.deadline()
                timeout = None if deadline is None else max(0.0, deadline - loop.time())
                if message is None:
                    message = asyncio.ensure_future(subscription.get())
                done, _ = await asyncio.wait(
                    {message, stopped, *ended}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
                if message in done:
                    received = message.result()
                    self._receive(received, loop.time())
                    message = None
                    if self.pit.finished:
                        return 0
                if stopped in done:
                    return 0
                for waiter in done & ended.keys():
                    child = ended[waiter]
                    self.err(
                        f"table-controller demo: the {child.name} stopped by itself (exit status"
                        f" {waiter.result()}); the end of its log:\n{child.log_tail()}"
                    )
                    return 1
        finally:
            pending = [future for future in (message, stopped, *ended) if future is not None]
            for future in pending:
                future.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def _carry_out(
        self, decision: PitDecision, endpoint: BrokerEndpoint, shoe: DemoShoe
    ) -> None:
        match decision:
            case LoadNewShoe():
                shoe.load_new_shoe()
            case GiveCommand():
                payload = json.dumps(decision.payload(), separators=(",", ":"))
                try:
                    await publish_once(endpoint, self.commands_topic, payload)
                except ConnectionError as error:
                    self.err(f"table-controller demo: {decision.command} not sent: {error}")
            case _:
                assert_never(decision)

    def _receive(self, received: Received, now: float) -> None:
        """Show one message and hand it to the pit."""
        incoming = self.console.read(received.topic, received.payload, retained=received.retain)
        if incoming is None:
            return
        for line in self.console.handle(incoming):
            self.out(line)
        if incoming.table_id != self.settings.table_id or incoming.message is None:
            return
        item = pit_input(incoming.channel, incoming.message)
        if item is not None:
            self.pit.handle(item, now)
        if isinstance(item, StatusSeen):
            self._table_online = item.online

    async def _stop_table(self, table: Child, subscription: Subscription) -> None:
        """Stop the table, then show what the backend received meanwhile, up to its offline."""
        asked = table.running  # one that stopped by itself was reported already
        code = await table.stop()
        loop = asyncio.get_running_loop()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(OFFLINE_WAIT_S):
                while self._table_online:
                    self._receive(await subscription.get(), loop.time())
        if asked and code != 0:
            self.err(
                f"table-controller demo: the table service exited with status {code};"
                f" the end of its log:\n{table.log_tail()}"
            )
