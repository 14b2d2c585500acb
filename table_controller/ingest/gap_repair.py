# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Gap repair: ask a table with ``resend`` for the ``seq`` it published and the store lacks.

Two parts. :class:`GapAges` and :func:`plan_requests` are pure: how long each gap has been
open, and which ranges to ask for now. :class:`GapRepair` is the adapter that runs them against
the database and the broker:

* **One worker per table.** A worker repairs a table only while it holds the table's row in
  ``gap_leases`` (claimed and renewed with one conditional upsert each tick; a worker that
  stops renewing loses it after :attr:`RepairSettings.lease_s`), so several workers never ask
  for the same gap.
* **Asked, not flooded.** A gap open longer than ``gap_wait_s`` (measured from what is stored,
  never from arrival order) is asked for in ranges of at most 10,000 ``seq``; a table has at
  most ``max_outstanding`` requests unanswered and ``per_minute`` asked in any minute (the
  table's own limit is six a minute per operator); a range asked is not asked again until its
  answer is ``gap_wait_s`` old or ``request_timeout_s`` passed without one. Every request is a
  row of ``gap_requests``; a table whose latest status is offline is not asked.
* **Patient when behind.** While the worker has more to store than one batch, a gap is asked
  for only after :data:`BEHIND_WAIT_FACTOR` times ``gap_wait_s``: the missing messages are then
  most likely still queued at the broker, and asking would only add copies to the load.
* **Cheap to look.** The leases are claimed in one statement per tick; a table's gaps are read
  above the ``seq`` up to which it was complete at the last look, and its whole history only
  one look in :data:`FULL_SCAN_EVERY`; the tables that have messages but no status are listed
  once a minute.
* **Signed when the table asks.** A table under ``sign_all_commands`` takes a ``resend`` only
  signed with its ``command_secret``; :attr:`RepairSettings.secrets` holds those by table id.
* **The reply** is a message like any other, so the shared subscription may hand it to
  another worker: whichever worker stores it (a quarantined one never comes here) calls
  :meth:`GapRepair.on_reply`. A reply counts only when its ``id`` is a request of
  ``gap_requests`` for that table still unanswered: the ingest's own, asked by any of its
  workers. It records the answer and turns the ``gone`` within the range asked into a
  permanent gap (``IngestStore.record_gone``). A permanent gap is raised as an ``error`` log
  line (``messages_gone``) and counted (:attr:`gone`); it stays queryable in
  ``permanent_gaps``. A reply to anyone else's ``resend`` is stored as a message and nothing
  more. Nothing is published: the ingest has no topic of its own.
"""

from __future__ import annotations

import asyncio
import json
import math
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Final, Protocol, TypeAlias

import structlog
from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from table_controller.contract import DEFAULT_TOPIC_PREFIX
from table_controller.contract.commands import CommandMessage
from table_controller.ingest.gap_queries import SeqRange
from table_controller.ingest.projections import ranges_of, without
from table_controller.ingest.schema import gap_leases, gap_requests, messages, table_status
from table_controller.ingest.store import IngestStore
from table_controller.ingress import sign

log = structlog.get_logger("table_controller.ingest.gap_repair")

#: The widest range one ``resend`` takes: ``to_seq - from_seq`` stays below it.
MAX_RESEND_SPAN: Final = 10_000
#: The key of :attr:`RepairSettings.secrets` that stands for every table not named.
ANY_TABLE: Final = "*"
#: Seconds between two listings of the tables that have messages (see ``GapRepair._tables``).
TABLES_LISTED_EVERY_S: Final = 60.0
#: One look in this many at a table's gaps reads its whole history; the others read above the
#: ``seq`` up to which everything was held (rows removed by hand are found within this many).
FULL_SCAN_EVERY: Final = 20
#: While the worker is behind (its queue holds a full batch), a gap waits this many times
#: ``gap_wait_s``: the message is then more likely still queued than lost.
BEHIND_WAIT_FACTOR: Final = 6
#: Sends one command: ``(topic, payload)``; raises ``ConnectionError`` when it cannot.
Publish: TypeAlias = Callable[[str, bytes], Awaitable[None]]


# --- the pure core ----------------------------------------------------------------------------


class GapAges:
    """Since when each open gap of each table has been open (seconds of a monotonic clock).

    A gap keeps the age of the oldest gap it overlaps from the last update; a part of a gap
    seen for the first time is as old as the gap it belongs to when that gap overlaps one seen
    before (a gap that shrinks as messages arrive keeps its age).
    """

    def __init__(self) -> None:
        self._open: dict[str, list[tuple[SeqRange, float]]] = {}

    def update(self, table_id: str, gaps: Sequence[SeqRange], now: float) -> list[float]:
        """The gaps of ``table_id`` now; the time each was first seen open, in their order."""
        before = self._open.get(table_id, [])
        seen = []
        for gap in gaps:
            overlapping = [
                since for old, since in before if old.first <= gap.last and gap.first <= old.last
            ]
            seen.append(min(overlapping, default=now))
        self._open[table_id] = list(zip(gaps, seen, strict=True))
        return seen


def chunks(gap: SeqRange, span: int = MAX_RESEND_SPAN) -> list[SeqRange]:
    """``gap`` cut into ranges of at most ``span`` numbers, in order."""
    return [
        SeqRange(first, min(first + span - 1, gap.last))
        for first in range(gap.first, gap.last + 1, span)
    ]


def plan_requests(
    due: Sequence[SeqRange], busy: Sequence[SeqRange], *, slots: int
) -> list[SeqRange]:
    """The ranges to ask for now, oldest ``seq`` first, at most ``slots`` of them.

    ``due`` gaps without the ranges ``busy`` (asked and waiting, or answered a short while ago),
    cut at 10,000.
    """
    if slots <= 0:
        return []
    free = without([(gap.first, gap.last) for gap in due], [(gap.first, gap.last) for gap in busy])
    pieces = [piece for first, last in free for piece in chunks(SeqRange(first, last))]
    return pieces[:slots]


def gone_of(reply: Mapping[str, object]) -> list[int] | None:
    """The ``gone`` of a resend reply as whole numbers; None when it is not such a list."""
    gone = reply.get("gone")
    if not isinstance(gone, list):
        return None
    if not all(isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1 for seq in gone):
        return None
    return [int(seq) for seq in gone]


def resend_command(
    command_id: str, operator: str, gap: SeqRange, *, secret: bytes | None = None
) -> bytes:
    """The ``resend`` command for ``gap`` (mqtt-api.md, "Commands"), signed with ``secret``."""
    command = CommandMessage.model_validate(
        {
            "id": command_id,
            "command": "resend",
            "operator": operator,
            "args": {"from_seq": gap.first, "to_seq": gap.last},
        }
    )
    if secret is not None:
        command = sign(command, secret)
    body = command.model_dump(mode="json", exclude_none=True)
    return json.dumps(body, separators=(",", ":")).encode()


# --- the adapter ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RepairSettings:
    """How gap repair asks; the defaults suit a table's default ``resend`` limits."""

    worker: str
    operator: str = "ingest"
    prefix: str = DEFAULT_TOPIC_PREFIX
    gap_wait_s: float = 10.0
    max_outstanding: int = 2
    per_minute: int = 4
    request_timeout_s: float = 60.0
    #: The tables' ``command_secret`` by table id (``*``: any other table), for signed mode.
    secrets: Mapping[str, bytes] = field(default_factory=dict, repr=False)

    def secret_for(self, table_id: str) -> bytes | None:
        """The key a ``resend`` to ``table_id`` is signed with; None: sent unsigned."""
        return self.secrets.get(table_id, self.secrets.get(ANY_TABLE))

    @property
    def tick_s(self) -> float:
        """How often gaps are looked at: a few times per ``gap_wait_s``, 0.2-5 s."""
        return min(5.0, max(0.2, self.gap_wait_s / 4))

    @property
    def lease_s(self) -> float:
        """How long a worker that stopped renewing keeps its tables."""
        return max(10.0, 4 * self.tick_s)


def _utc(value: datetime) -> datetime:
    """SQLite gives back naive datetimes; every time the ingest writes is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class WorkerState(Protocol):
    """What gap repair asks of the worker it runs in."""

    def connected(self) -> bool:
        """Whether a command can be sent now."""
        ...

    def behind(self) -> bool:
        """Whether the worker has more to store than one batch."""
        ...


class _AlwaysReady:
    def connected(self) -> bool:
        return True

    def behind(self) -> bool:
        return False


class GapRepair:
    """Asks tables for their missing messages and records what is gone (see the module)."""

    def __init__(
        self,
        store: IngestStore,
        publish: Publish,
        settings: RepairSettings,
        *,
        clock: Callable[[], float] | None = None,
        worker: WorkerState | None = None,
    ) -> None:
        self.store = store
        self._worker = worker or _AlwaysReady()
        self.settings = settings
        self._publish = publish
        self._clock = clock or asyncio.get_running_loop().time
        self._ages = GapAges()
        #: Per table, a ``seq`` up to which everything is held or gone (``scan_gaps``), and
        #: how many times its gaps were looked at.
        self._floors: dict[str, int] = {}
        self._looks: dict[str, int] = {}
        self._known_tables: set[str] = set()
        self._tables_listed_at = -math.inf
        #: Resends asked, the ``seq`` the tables said are gone, refusals, failures to send.
        self.asked = 0
        self.gone = 0
        self.refused = 0
        self.not_sent = 0

    def _upsert(self) -> postgresql.Insert | sqlite.Insert:
        insert = postgresql.insert if self.store.postgres else sqlite.insert
        return insert(gap_leases)

    async def run(self) -> None:
        """Repair every table this worker holds, every :attr:`RepairSettings.tick_s`, forever."""
        while True:
            try:
                await self.tick()
            except Exception as error:  # noqa: BLE001 - a database hiccup must not end repair
                log.warning("gap_repair_failed", error=f"{type(error).__name__}: {error}")
            await asyncio.sleep(self.settings.tick_s)

    async def tick(self) -> None:
        """One look at every table: claim or renew leases, ask for the gaps that are due.

        Nothing while the worker is not connected: nothing could be asked, and the leases run
        out so that a connected worker takes the tables over.
        """
        if not self._worker.connected():
            return
        now = datetime.now(UTC)
        for table_id in await self._held_tables(now):
            await self._repair(table_id, now)

    async def _tables(self, with_status: set[str]) -> list[str]:
        """Every table: ``with_status`` (read each tick), those with only messages each minute.

        Listing the tables of ``messages`` reads its whole key, so it is done once a minute;
        a table announces itself with its retained ``status`` anyway.
        """
        if self._clock() >= self._tables_listed_at + TABLES_LISTED_EVERY_S:
            self._tables_listed_at = self._clock()
            self._known_tables = set(await self.store.tables())
        self._known_tables |= with_status
        return sorted(self._known_tables)

    async def _held_tables(self, now: datetime) -> list[str]:
        """The tables this worker repairs now: their leases claimed or renewed in one upsert."""
        until = now + timedelta(seconds=self.settings.lease_s)
        me = self.settings.worker
        async with self.store.engine.connect() as connection:
            leases = {
                row.table_id: (row.worker, _utc(row.expires_at))
                for row in await connection.execute(select(gap_leases))
            }
            statuses = await connection.execute(
                select(table_status.c.table_id, table_status.c.online)
            )
            online: dict[str, bool] = dict(statuses.all())
        offline = {table_id for table_id, is_online in online.items() if not is_online}
        wanted = [
            table_id
            for table_id in await self._tables(set(online))
            if (holder := leases.get(table_id)) is None or holder[0] == me or holder[1] < now
        ]
        if not wanted:
            return []
        rows = [{"table_id": table_id, "worker": me, "expires_at": until} for table_id in wanted]
        statement = (
            self._upsert()
            .values(rows)
            .on_conflict_do_update(
                index_elements=[gap_leases.c.table_id],
                set_={"worker": me, "expires_at": until},
                where=or_(gap_leases.c.expires_at < now, gap_leases.c.worker == me),
            )
            .returning(gap_leases.c.table_id)
        )
        async with self.store.engine.begin() as connection:
            claimed = set(await connection.scalars(statement))
        return [table_id for table_id in wanted if table_id in claimed and table_id not in offline]

    async def _repair(self, table_id: str, now: datetime) -> None:
        looks = self._looks[table_id] = self._looks.get(table_id, 0) + 1
        floor = 0 if looks % FULL_SCAN_EVERY == 1 else self._floors.get(table_id, 0)
        gaps, self._floors[table_id] = await self.store.scan_gaps(table_id, floor)
        seen = self._ages.update(table_id, gaps, self._clock())
        wait = self.settings.gap_wait_s
        if self._worker.behind():
            wait *= BEHIND_WAIT_FACTOR
        due = [gap for gap, since in zip(gaps, seen, strict=True) if self._clock() - since >= wait]
        if not due:
            return
        busy, waiting, recent = await self._requests(table_id, now)
        slots = min(self.settings.max_outstanding - waiting, self.settings.per_minute - recent)
        for gap in plan_requests(due, busy, slots=slots):
            await self._ask(table_id, gap, now)

    async def _requests(self, table_id: str, now: datetime) -> tuple[list[SeqRange], int, int]:
        """Ranges not to ask again yet, requests unanswered, requests asked in the last minute."""
        timeout = now - timedelta(seconds=self.settings.request_timeout_s)
        cooled = now - timedelta(seconds=self.settings.gap_wait_s)
        minute = now - timedelta(seconds=60)
        c = gap_requests.c
        async with self.store.engine.connect() as connection:
            rows = await connection.execute(
                select(c.first_seq, c.last_seq, c.answered_at).where(
                    c.table_id == table_id,
                    or_(
                        and_(c.answered_at.is_(None), c.asked_at >= timeout),
                        c.answered_at >= cooled,
                    ),
                )
            )
            busy = [(SeqRange(first, last), answered) for first, last, answered in rows]
            recent = await connection.scalar(
                select(func.count()).where(c.table_id == table_id, c.asked_at >= minute)
            )
        waiting = sum(answered is None for _, answered in busy)
        return [gap for gap, _ in busy], waiting, int(recent or 0)

    async def _ask(self, table_id: str, gap: SeqRange, now: datetime) -> None:
        command_id = f"ingest-{uuid.uuid4().hex}"
        async with self.store.engine.begin() as connection:
            await connection.execute(
                gap_requests.insert().values(
                    command_id=command_id,
                    table_id=table_id,
                    first_seq=gap.first,
                    last_seq=gap.last,
                    worker=self.settings.worker,
                    asked_at=now,
                )
            )
        topic = f"{self.settings.prefix.rstrip('/')}/{table_id}/commands"
        try:
            command = resend_command(
                command_id,
                self.settings.operator,
                gap,
                secret=self.settings.secret_for(table_id),
            )
            await self._publish(topic, command)
        except ConnectionError as error:
            self.not_sent += 1
            await self._answered(command_id, outcome="not_sent", resent=None, gone=None)
            log.warning("resend_not_sent", table_id=table_id, id=command_id, error=str(error))
            return
        self.asked += 1
        log.info(
            "resend_asked", table_id=table_id, id=command_id, from_seq=gap.first, to_seq=gap.last
        )

    async def _answered(
        self, command_id: str, *, outcome: str, resent: int | None, gone: int | None
    ) -> None:
        async with self.store.engine.begin() as connection:
            await connection.execute(
                update(gap_requests)
                .where(gap_requests.c.command_id == command_id)
                .values(
                    answered_at=datetime.now(UTC), outcome=outcome[:64], resent=resent, gone=gone
                )
            )

    async def on_reply(self, table_id: str, reply: Mapping[str, object]) -> None:
        """A ``resend`` reply was stored (by this worker): if the ingest asked it, record it.

        The answer, and what is gone of the range asked; a reply to a request the ingest did
        not make (another operator's, or an id it never sent), or already answered, changes
        nothing.
        """
        command_id = reply.get("id")
        if not isinstance(command_id, str):
            return
        asked = await self._unanswered(table_id, command_id)
        if asked is None:
            return
        if reply.get("ok") is not True:
            self.refused += 1
            error = str(reply.get("error"))
            await self._answered(command_id, outcome=error, resent=None, gone=None)
            log.warning(
                "resend_refused",
                table_id=table_id,
                id=command_id,
                error=error,
                message=str(reply.get("message"))[:300],
            )
            return
        gone = gone_of(reply)
        resent = reply.get("resent")
        if gone is None:
            log.warning("resend_reply_unreadable", table_id=table_id, id=command_id)
            return
        missing = await self._not_held(
            table_id, [seq for seq in gone if asked.first <= seq <= asked.last]
        )
        await self._answered(
            command_id,
            outcome="ok",
            resent=resent if isinstance(resent, int) else None,
            gone=len(gone),
        )
        if missing:
            await self.store.record_gone(
                table_id, missing, reason=f"resend {command_id}: no longer in the table's outbox"
            )
            self.gone += len(missing)
            log.error(
                "messages_gone",
                table_id=table_id,
                id=command_id,
                ranges=ranges_of(missing),
                count=len(missing),
            )

    async def _unanswered(self, table_id: str, command_id: str) -> SeqRange | None:
        """The range of the ingest's request ``command_id`` to ``table_id``, if unanswered."""
        c = gap_requests.c
        async with self.store.engine.connect() as connection:
            found = await connection.execute(
                select(c.first_seq, c.last_seq).where(
                    c.command_id == command_id, c.table_id == table_id, c.answered_at.is_(None)
                )
            )
            row = found.first()
        return None if row is None else SeqRange(int(row.first_seq), int(row.last_seq))

    async def _not_held(self, table_id: str, seqs: Sequence[int]) -> list[int]:
        """The ``seq`` of ``seqs`` the store does not hold (a gone one may have come before)."""
        if not seqs:
            return []
        async with self.store.engine.connect() as connection:
            held = await connection.scalars(
                select(messages.c.seq).where(
                    messages.c.table_id == table_id,
                    messages.c.seq.between(min(seqs), max(seqs)),
                )
            )
            present = set(held)
        return sorted({seq for seq in seqs if seq not in present})
