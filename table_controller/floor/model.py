# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's view of its tables: one tile per table, and every open alarm of the floor.

Pure: no I/O, no clock, no randomness. :class:`FloorModel` folds the messages the tables
publish (``status``, ``state``, ``limits``, ``stats``, ``roads``, ``events/alarm``,
``events/alarm_acknowledged``; docs/mqtt-api.md) and the open alarms the database holds into
tiles, and says which tiles each message changed, so the server pushes only those. A tile is
JSON for the page: values and codes, never words (the page turns codes into its language).

Order and repeats: a message with a ``seq`` older than the newest of its kind already folded
is ignored (a ``resend`` publishes old messages again on their own topics); a ``status`` of an
older ``session`` than the newest seen (a late will) is ignored. A table that starts a new
journal (its online ``status`` says ``last_seq`` below what the floor holds) starts afresh.

Open alarms: the table's ``state`` lists its newest 10 open alarms and counts them all
(``open_alarm_count``); when it lists them all, that list is the truth; when there are more,
the older ones come from the ``alarm`` events seen and from the database (:meth:`FloorModel.
seed_alarms`). An ``alarm_acknowledged`` event closes one and records who and when.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from table_controller.contract import JsonValue

#: Results the tile's strip shows, newest last.
STRIP_LENGTH: Final = 24
#: Acknowledgements remembered per table (shown on the floor's list and the table's page).
ACKS_KEPT: Final = 50
#: The area of the tables the settings put in none.
UNASSIGNED: Final = ""
#: The topics a floor follows, after ``<prefix>/<table_id>/``.
FOLLOWED: Final = (
    "status",
    "state",
    "limits",
    "stats",
    "roads",
    "events/alarm",
    "events/alarm_acknowledged",
)
_ALARM_NUMBER: Final = re.compile(r"-A(\d+)$")


@dataclass(frozen=True, slots=True)
class Area:
    """A pit or area of the floor and its tables, in the order the settings give them."""

    name: str
    tables: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAlarm:
    """An alarm no supervisor has acknowledged yet."""

    table_id: str
    alarm_id: str
    code: str
    message: str
    shoe_id: str | None = None
    round_id: str | None = None
    #: When the table raised it (its ``alarm`` event's ``ts``); None: not known yet (an alarm
    #: seen only in a ``state``, whose raising the floor did not hear).
    ts: str | None = None

    def json(self) -> dict[str, JsonValue]:
        return {
            "table_id": self.table_id,
            "alarm_id": self.alarm_id,
            "code": self.code,
            "message": self.message,
            "shoe_id": self.shoe_id,
            "round_id": self.round_id,
            "ts": self.ts,
        }

    def order(self) -> tuple[int, str, str, int]:
        """Oldest first: by time raised (unknown times last), then table and number."""
        return (self.ts is None, self.ts or "", self.table_id, alarm_number(self.alarm_id))


def alarm_number(alarm_id: str) -> int:
    """The number in ``<table_id>-A000042`` (0 for an id not written so)."""
    found = _ALARM_NUMBER.search(alarm_id)
    return int(found.group(1)) if found else 0


@dataclass(slots=True)
class _Table:
    """What the floor knows of one table."""

    table_id: str
    online: bool | None = None
    session: int = -1
    reader: str | None = None
    status_ts: str | None = None
    state: dict[str, Any] | None = None
    limits: dict[str, Any] | None = None
    stats: dict[str, Any] | None = None
    strip: list[dict[str, JsonValue]] = field(default_factory=list)
    seqs: dict[str, int] = field(default_factory=dict)
    #: The ``ts`` and ``seq`` of the newest message folded, whatever its kind.
    ts: str | None = None
    seq: int = 0
    alarms: dict[str, OpenAlarm] = field(default_factory=dict)
    #: Acknowledged alarm ids (never open again), with who and when, newest last.
    acknowledged: dict[str, dict[str, JsonValue]] = field(default_factory=dict)
    open_count: int = 0
    #: The open alarms the newest ``state`` listed.
    listed: frozenset[str] = frozenset()

    def state_is_complete(self) -> bool:
        """Whether the newest ``state`` listed every open alarm of the table."""
        return self.state is not None and self.open_count <= len(self.listed)

    def forget_stream(self) -> None:
        """A new journal: its ``seq`` start again at 1, and the alarms' ids too."""
        self.seqs.clear()
        self.seq = 0
        self.alarms.clear()
        self.acknowledged.clear()
        self.open_count = 0
        self.listed = frozenset()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _open_alarm(
    table: _Table, alarm_id: str, fields: Mapping[str, Any], *, ts: str | None
) -> OpenAlarm:
    """Alarm ``alarm_id`` as ``fields`` describe it: an ``alarm`` event, a ``state``'s item.

    Raised at ``ts``; without one, when the floor heard it raised, if it did.
    """
    known = table.alarms.get(alarm_id)
    return OpenAlarm(
        table_id=table.table_id,
        alarm_id=alarm_id,
        code=_text(fields.get("code")) or "",
        message=_text(fields.get("message")) or "",
        shoe_id=_text(fields.get("shoe_id")),
        round_id=_text(fields.get("round_id")),
        ts=ts or (known.ts if known is not None else None),
    )


class FloorModel:
    """Every table's tile and the floor's open alarms, from the tables' messages.

    Args:
        areas: The floor's pits or areas, in order, each with its tables (the settings).
    """

    def __init__(self, areas: Sequence[Area] = ()) -> None:
        self.areas = tuple(areas)
        self._area_of = {table: area.name for area in self.areas for table in area.tables}
        self._tables: dict[str, _Table] = {}
        #: Raised whenever the floor's open alarms change (a page's list is then out of date).
        self.alarms_version = 0
        for area in self.areas:
            for table_id in area.tables:
                self._tables.setdefault(table_id, _Table(table_id))

    # --- what the floor knows -----------------------------------------------------------------

    def knows(self, table_id: str) -> bool:
        """Whether ``table_id`` is a table of the settings or one heard from."""
        return table_id in self._tables

    @property
    def table_ids(self) -> list[str]:
        return sorted(self._tables)

    def area_of(self, table_id: str) -> str:
        return self._area_of.get(table_id, UNASSIGNED)

    # --- messages in --------------------------------------------------------------------------

    def apply(self, table_id: str, kind: str, message: Mapping[str, Any]) -> bool:
        """Fold one message of ``table_id`` (``kind``: its topic after the table's root).

        Returns whether the table's tile or the floor's open alarms changed.
        """
        table = self._tables.get(table_id)
        if table is None:
            table = self._tables[table_id] = _Table(table_id)
        if kind == "status":
            return self._status(table, message)
        seq = _int(message.get("seq"))
        if seq is None:
            return False
        if seq <= table.seqs.get(kind, 0):
            return False  # older than what is shown (a resend, a retained copy again)
        table.seqs[kind] = seq
        if seq > table.seq:
            table.seq, table.ts = seq, _text(message.get("ts"))
        handler = _HANDLERS.get(kind)
        if handler is None:
            return False
        before = (table.open_count, tuple(table.alarms.values()))
        changed = handler(self, table, message)
        if before != (table.open_count, tuple(table.alarms.values())):
            self.alarms_version += 1
        return changed

    def _status(self, table: _Table, message: Mapping[str, Any]) -> bool:
        session = _int(message.get("session"))
        online = message.get("online")
        if session is None or not isinstance(online, bool):
            return False
        if session < table.session or (
            session == table.session and online and not table.online and table.online is not None
        ):
            return False  # a late will, or an online status after its own offline one
        last_seq = _int(message.get("last_seq")) or 0
        if online and session > table.session and last_seq < table.seq:
            table.forget_stream()  # a new journal
        table.session = session
        table.online = online
        table.reader = _text(message.get("reader"))
        table.status_ts = _text(message.get("ts"))
        return True

    def _state(self, table: _Table, message: Mapping[str, Any]) -> bool:
        table.state = dict(message)
        listed = message.get("open_alarms")
        count = _int(message.get("open_alarm_count"))
        if not isinstance(listed, list) or count is None:
            return True
        table.open_count = count
        named: dict[str, OpenAlarm] = {}
        for item in listed:
            if not isinstance(item, Mapping) or _text(item.get("alarm_id")) is None:
                continue
            alarm_id = str(item["alarm_id"])
            if alarm_id in table.acknowledged:
                continue
            named[alarm_id] = _open_alarm(table, alarm_id, item, ts=None)
        table.listed = frozenset(named)
        if count <= len(listed):
            table.alarms = named  # the state names every open alarm
        else:
            # More are open than listed: the listed ones are the newest; older ones known stay,
            # but none newer than the oldest listed that the state leaves out (acknowledged).
            oldest = min((alarm_number(alarm_id) for alarm_id in named), default=None)
            kept = {
                alarm_id: alarm
                for alarm_id, alarm in table.alarms.items()
                if oldest is None or alarm_number(alarm_id) < oldest
            }
            table.alarms = kept | named
        return True

    def _limits(self, table: _Table, message: Mapping[str, Any]) -> bool:
        table.limits = {"currency": message.get("currency"), "limits": message.get("limits")}
        return True

    def _stats(self, table: _Table, message: Mapping[str, Any]) -> bool:
        table.stats = dict(message)
        return True

    def _roads(self, table: _Table, message: Mapping[str, Any]) -> bool:
        beads = message.get("bead_plate")
        if not isinstance(beads, list):
            return False
        table.strip = [
            {
                "winner": bead["winner"],
                "banker_pair": bead.get("banker_pair") is True,
                "player_pair": bead.get("player_pair") is True,
                "natural": bead.get("natural") is True,
            }
            for bead in beads[-STRIP_LENGTH:]
            if isinstance(bead, Mapping) and bead.get("winner") in {"B", "P", "T"}
        ]
        return True

    def _alarm(self, table: _Table, message: Mapping[str, Any]) -> bool:
        alarm_id = _text(message.get("alarm_id"))
        if alarm_id is None or alarm_id in table.acknowledged:
            return False
        new = alarm_id not in table.alarms
        table.alarms[alarm_id] = _open_alarm(table, alarm_id, message, ts=_text(message.get("ts")))
        if new:
            table.open_count = max(table.open_count, len(table.alarms))
        return True

    def _acknowledged(self, table: _Table, message: Mapping[str, Any]) -> bool:
        alarm_id = _text(message.get("alarm_id"))
        if alarm_id is None:
            return False
        table.acknowledged[alarm_id] = {
            "alarm_id": alarm_id,
            "code": _text(message.get("code")),
            "comment": _text(message.get("comment")),
            "supervisor": _text(message.get("supervisor")),
            "ts": _text(message.get("ts")),
        }
        while len(table.acknowledged) > ACKS_KEPT:
            del table.acknowledged[next(iter(table.acknowledged))]
        if table.alarms.pop(alarm_id, None) is not None:
            table.open_count = max(0, table.open_count - 1)
        return True

    def seed_alarms(self, table_id: str, alarms: Iterable[OpenAlarm]) -> bool:
        """The open alarms the database holds for ``table_id``; whether anything changed.

        The table's own messages come first: an alarm the floor saw acknowledged stays closed,
        and while the newest ``state`` lists every open alarm, none is added (the database may
        be behind). Otherwise an alarm older than those the ``state`` lists is added; the time
        of an alarm the floor knew only from a ``state`` is filled in.
        """
        table = self._tables.get(table_id)
        if table is None:
            table = self._tables[table_id] = _Table(table_id)
        oldest_listed = min(map(alarm_number, table.listed), default=None)
        changed = False
        for alarm in alarms:
            if alarm.alarm_id in table.acknowledged:
                continue
            known = table.alarms.get(alarm.alarm_id)
            if known is not None:
                if known.ts is None and alarm.ts is not None:
                    table.alarms[alarm.alarm_id] = alarm
                    changed = True
                continue
            if table.state_is_complete():
                continue
            if oldest_listed is not None and alarm_number(alarm.alarm_id) >= oldest_listed:
                continue
            table.alarms[alarm.alarm_id] = alarm
            changed = True
        if changed:
            self.alarms_version += 1
        return changed

    # --- what the pages show ------------------------------------------------------------------

    def tile(self, table_id: str) -> dict[str, Any]:
        """One table's tile (see the module's docstring)."""
        table = self._tables[table_id]
        state = table.state or {}
        stats = table.stats or {}
        last_hour = stats.get("last_hour") if isinstance(stats.get("last_hour"), Mapping) else {}
        shoe = stats.get("shoe") if isinstance(stats.get("shoe"), Mapping) else None
        dispute = state.get("dispute")
        return {
            "table_id": table_id,
            "area": self.area_of(table_id),
            "heard": table.online is not None or table.state is not None,
            "online": table.online,
            "reader": table.reader,
            "variant": state.get("variant"),
            "phase": state.get("phase"),
            "held_in": state.get("held_in"),
            "hold_reason": state.get("hold_reason"),
            "holds": list(state.get("holds") or []),
            "shoe_id": state.get("shoe_id"),
            "round_no": state.get("round_no"),
            "cards_left": state.get("cards_left"),
            "last_round": state.get("last_round") is True,
            "dealer": state.get("dealer"),
            "supervisor": state.get("supervisor"),
            "limits": table.limits,
            "rounds_per_hour": (last_hour or {}).get("rounds_per_hour"),
            "shoe_rounds": None if shoe is None else shoe.get("rounds"),
            "strip": list(table.strip),
            "open_alarm_count": max(table.open_count, len(table.alarms)),
            "alarms": [
                alarm.json()
                for alarm in sorted(table.alarms.values(), key=OpenAlarm.order, reverse=True)
            ],
            "dispute": dispute if isinstance(dispute, Mapping) else None,
            "ts": table.ts,
            "seq": table.seq,
        }

    def open_alarms(self) -> list[dict[str, JsonValue]]:
        """Every open alarm of the floor, oldest first."""
        every = [alarm for table in self._tables.values() for alarm in table.alarms.values()]
        return [alarm.json() for alarm in sorted(every, key=OpenAlarm.order)]

    def acknowledgements(self, table_id: str) -> list[dict[str, JsonValue]]:
        """The acknowledgements the floor heard for ``table_id``, newest first."""
        table = self._tables.get(table_id)
        return [] if table is None else list(reversed(table.acknowledged.values()))

    def area_list(self) -> list[JsonValue]:
        """The areas with their tables; the tables of none last, in an area named ``""``."""
        areas: list[JsonValue] = [
            {"name": area.name, "tables": list(area.tables)} for area in self.areas
        ]
        others = [table_id for table_id in sorted(self._tables) if table_id not in self._area_of]
        if others:
            areas.append({"name": UNASSIGNED, "tables": list(others)})
        return areas

    def view(self) -> dict[str, Any]:
        """The whole floor: the areas with their tables, every tile, the open alarms."""
        return {
            "areas": self.area_list(),
            "tiles": {table_id: self.tile(table_id) for table_id in sorted(self._tables)},
            "alarms": self.open_alarms(),
        }


_HANDLERS: Final = {
    "state": FloorModel._state,  # noqa: SLF001 - the class's own dispatch table
    "limits": FloorModel._limits,  # noqa: SLF001
    "stats": FloorModel._stats,  # noqa: SLF001
    "roads": FloorModel._roads,  # noqa: SLF001
    "events/alarm": FloorModel._alarm,  # noqa: SLF001
    "events/alarm_acknowledged": FloorModel._acknowledged,  # noqa: SLF001
}
