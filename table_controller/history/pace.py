# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Game pace: rounds per hour, round times, voids and holds, from what the table published.

Pure: no I/O, no clock, no randomness. :class:`Timeline` reads the payloads of each input with
the input's journal time stamp (UTC) and keeps what the figures are made of: when each round
was dealt and settled, the voids and the alarms that count, the holds, the shoes and the
dealers' stints. :func:`figures` then sums any set of time spans of it: a shoe, a stint, the
last hour, every stint of one dealer, an hour of the day. A replay of the journal gives the
same figures as the live table, since it reads the same payloads with the same time stamps.

:class:`Pace` is the live table's use of it: an observer of what each input published, given
to the table service (and to ``replay``) when it is built; after every input that ends a round,
starts a shoe or changes the dealer, it gives the retained ``stats`` payload, published as that
input's last message, and forgets what no longer counts for it.

What the figures mean: a round is timed from betting closed (or its first card, without a
betting phase) to its result; the time between rounds from a round's end (result or void) to
the next round's betting opened (or first card) in the same shoe; hold time while the prompt
says ``hold``. Rounds per hour divide the rounds settled in the spans by the spans' length.
"""

from __future__ import annotations

import statistics
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

from table_controller.contract import (
    AlarmCode,
    AlarmRaised,
    BettingClosed,
    BettingOpened,
    CardPlaced,
    PaceFigures,
    Payload,
    PromptAction,
    PromptShown,
    RoundSettled,
    RoundVoided,
    ShoeEnded,
    ShoeStarted,
    ShoeVoided,
    StaffChanged,
    Stats,
    VoidReason,
    utc_text,
)

HOUR_S: Final = 3600.0
#: Alarms counted in the figures, by the figure's name.
COUNTED_ALARMS: Final = {
    AlarmCode.EXPOSED_CARD: "exposed_cards",
    AlarmCode.MISREAD: "misreads",
    AlarmCode.UNNECESSARY_CARD: "unnecessary_cards",
}
#: The counts of :class:`PaceFigures`, in order.
COUNTS: Final = ("voids", "misdeals", "exposed_cards", "misreads", "unnecessary_cards")


def seconds_of(ts: str) -> float | None:
    """A journal time stamp (``2026-11-29T12:00:00.123Z``) as seconds since the epoch.

    ``None`` for text that is no time stamp (a hand-written input file's, say); a stamp without
    a zone is taken as UTC.
    """
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def stamp_of(seconds: float) -> str:
    """Seconds since the epoch as the journal writes a time stamp (milliseconds, ``Z``)."""
    return utc_text(datetime.fromtimestamp(seconds, tz=UTC))


@dataclass(slots=True)
class Span:
    """A stretch of time: ``end`` is ``None`` while it goes on."""

    key: str
    start: float
    end: float | None = None

    def clipped(self, low: float, high: float) -> tuple[float, float] | None:
        """The part of the span inside ``[low, high]``, if any."""
        start, end = max(self.start, low), min(high if self.end is None else self.end, high)
        return (start, end) if end > start else None


@dataclass(frozen=True, slots=True)
class Mark:
    """One thing that happened at ``at``: a round settled, a gap between rounds, a count."""

    at: float
    #: ``round`` (``seconds``: its time, if its start was seen), ``between`` (``seconds``) or a
    #: name of :data:`COUNTS`.
    kind: str
    seconds: float | None = None


@dataclass(slots=True)
class Timeline:
    """What the pace figures are made of, read from the table's payloads in order."""

    marks: list[Mark] = field(default_factory=list)
    #: Each mark's time, in the same order (for finding a span's marks by bisection).
    mark_times: list[float] = field(default_factory=list)
    holds: list[Span] = field(default_factory=list)
    shoes: list[Span] = field(default_factory=list)
    stints: list[Span] = field(default_factory=list)
    #: The time of the first and of the latest input read.
    first: float | None = None
    now: float | None = None
    _round_start: dict[str, float] = field(default_factory=dict)
    _round_end: float | None = None

    @property
    def shoe(self) -> Span | None:
        """The shoe in play, if any."""
        return self.shoes[-1] if self.shoes and self.shoes[-1].end is None else None

    @property
    def stint(self) -> Span | None:
        """The signed-in dealer's stint, if any."""
        return self.stints[-1] if self.stints and self.stints[-1].end is None else None

    def read(self, at: float, payloads: Iterable[Payload]) -> bool:
        """Take one input's payloads at ``at``; whether the ``stats`` payload should follow."""
        if self.now is not None:
            at = max(at, self.now)  # a wall clock stepped back: held at the latest time
        if self.first is None:
            self.first = at
        self.now = at
        changed = False
        for payload in payloads:
            changed = self._read_one(at, payload) or changed
        return changed

    def _read_one(self, at: float, payload: Payload) -> bool:  # noqa: C901, PLR0912 - one case per payload
        match payload:
            case ShoeStarted(shoe_id=shoe_id):
                self._end(self.shoes, at)
                self.shoes.append(Span(shoe_id, at))
                self._round_end = None
                return True
            case ShoeEnded() | ShoeVoided():
                self._end(self.shoes, at)
                self._round_end = None
            case BettingOpened(round_id=round_id):
                self._between(at)
                self._round_start.pop(round_id, None)
            case BettingClosed(round_id=round_id):
                self._round_start[round_id] = at
            case CardPlaced(round_id=round_id) if round_id not in self._round_start:
                self._between(at)
                self._round_start[round_id] = at
            case RoundSettled(round_id=round_id):
                start = self._round_start.pop(round_id, None)
                self._mark(Mark(at, "round", None if start is None else max(at - start, 0)))
                self._round_end = at
                return True
            case RoundVoided(round_id=round_id, reason=reason, was_settled=was_settled):
                self._mark(Mark(at, "voids"))
                if reason is VoidReason.MISDEAL:
                    self._mark(Mark(at, "misdeals"))
                if not was_settled:
                    self._round_start.pop(round_id, None)
                    self._round_end = at
                return True
            case AlarmRaised(code=code) if code in COUNTED_ALARMS:
                self._mark(Mark(at, COUNTED_ALARMS[code]))
            case PromptShown(action=action):
                held = self.holds and self.holds[-1].end is None
                if action is PromptAction.HOLD and not held:
                    self.holds.append(Span("hold", at))
                elif action is not PromptAction.HOLD and held:
                    self._end(self.holds, at)
            case StaffChanged(dealer=dealer):
                stint = self.stint
                if (None if stint is None else stint.key) != dealer:
                    self._end(self.stints, at)
                    if dealer is not None:
                        self.stints.append(Span(dealer, at))
                    return True
        return False

    def _mark(self, mark: Mark) -> None:
        self.marks.append(mark)
        self.mark_times.append(mark.at)

    def _between(self, at: float) -> None:
        """A round begins: the time since the last round's end, if that was in this shoe."""
        if self._round_end is not None:
            self._mark(Mark(at, "between", max(at - self._round_end, 0)))
            self._round_end = None

    @staticmethod
    def _end(spans: list[Span], at: float) -> None:
        if spans and spans[-1].end is None:
            spans[-1].end = at

    def forget_before(self, moment: float) -> None:
        """Drop what ended before ``moment``: no figure asked for later reaches back so far."""
        kept = bisect_left(self.mark_times, moment)
        del self.marks[:kept], self.mark_times[:kept]
        for spans in (self.holds, self.shoes, self.stints):
            spans[:] = [span for span in spans if span.end is None or span.end >= moment]


def figures(timeline: Timeline, spans: Sequence[tuple[float, float]]) -> PaceFigures:
    """The figures of everything in ``spans`` (disjoint ``(start, end)`` pairs, in order)."""
    return figures_of([(timeline, spans)])


def figures_of(parts: Sequence[tuple[Timeline, Sequence[tuple[float, float]]]]) -> PaceFigures:
    """The figures of spans of several timelines together (one dealer at several tables)."""
    marks: list[Mark] = []
    held = 0.0
    length = 0.0
    starts: list[float] = []
    for timeline, spans in parts:
        times = timeline.mark_times  # in order: the timeline's time never goes back
        for start, end in spans:
            marks.extend(timeline.marks[bisect_left(times, start) : bisect_right(times, end)])
            for hold in timeline.holds:
                part = hold.clipped(start, end)
                if part is not None:
                    held += part[1] - part[0]
            length += end - start
            starts.append(start)
    round_times = [m.seconds for m in marks if m.kind == "round" and m.seconds is not None]
    gaps = [m.seconds for m in marks if m.kind == "between" and m.seconds is not None]
    rounds = sum(1 for mark in marks if mark.kind == "round")
    counts = {name: sum(1 for mark in marks if mark.kind == name) for name in COUNTS}
    latest = max((timeline.now or 0.0 for timeline, _ in parts), default=0.0)
    return PaceFigures(
        since=stamp_of(min(starts) if starts else latest),
        rounds=rounds,
        rounds_per_hour=_rate(rounds, length),
        median_round_seconds=_median(round_times),
        median_between_rounds_seconds=_median(gaps),
        **counts,
        hold_seconds=round(held, 3),
    )


def _rate(rounds: int, length_s: float) -> float | None:
    return round(rounds * HOUR_S / length_s, 1) if length_s >= 1.0 else None


def _median(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


class Pace:
    """The live table's ``stats``: its shoe, its dealer's stint and the last hour."""

    def __init__(self) -> None:
        self.timeline = Timeline()
        #: The ``stats`` last given.
        self.latest: Stats | None = None

    def observe(self, ts: str, payloads: Sequence[Payload]) -> Stats | None:
        """Read one input's payloads (journal time ``ts``); the new ``stats``, when due.

        An input whose ``ts`` is no time stamp is not read: it has no place in time.
        """
        at = seconds_of(ts)
        if at is None or not self.timeline.read(at, payloads):
            return None
        stats = self.latest = self.stats()
        self._forget()
        return stats

    def stats(self) -> Stats:
        """The figures as of the latest input read."""
        timeline = self.timeline
        now = timeline.now or 0.0
        shoe, stint = timeline.shoe, timeline.stint
        hour_start = max(now - HOUR_S, timeline.first or now)
        return Stats(
            shoe_id=None if shoe is None else shoe.key,
            dealer=None if stint is None else stint.key,
            shoe=None if shoe is None else figures(timeline, [(shoe.start, now)]),
            stint=None if stint is None else figures(timeline, [(stint.start, now)]),
            last_hour=figures(timeline, [(hour_start, now)]),
        )

    def _forget(self) -> None:
        timeline = self.timeline
        now = timeline.now or 0.0
        keep_from = now - HOUR_S
        for span in (timeline.shoe, timeline.stint):
            if span is not None:
                keep_from = min(keep_from, span.start)
        timeline.forget_before(keep_from)
