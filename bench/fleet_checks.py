# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What ``bench_fleet.py`` checks and measures once the fleet has stopped.

Bench support (not the product). Everything is read from the two sides of the proof: each
table's own journal file (its outbox: every ``seq`` it gave a message and the bytes it
published; its inputs, replayed by ``table-controller replay``) and the ingest's PostgreSQL
database (``messages``, ``rounds``, ``round_settlements``, ``gap_requests``).
"""

from __future__ import annotations

import asyncio
import hashlib
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from table_controller.ingest.store import IngestStore  # noqa: E402
from tests.reliability.harness import journal_query  # noqa: E402
from tests.support.ingest_table import replayed_rounds  # noqa: E402

#: Replays run at once (each is a ``table-controller replay`` process).
REPLAY_CONCURRENCY: Final = 2


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def outbox(journal: Path) -> tuple[int, dict[int, str]]:
    """The table's last ``seq`` and the digest of each payload its outbox still holds."""
    last = journal_query(journal, "SELECT value FROM outbox_meta WHERE key = 'last_seq'")
    rows = journal_query(journal, "SELECT seq, payload FROM outbox")
    return (int(last[0][0]) if last else 0), {int(seq): digest(str(p)) for seq, p in rows}


async def stored_counts(store: IngestStore) -> dict[str, int]:
    """How many messages the database holds per table."""
    rows = await store.execute("SELECT table_id, count(*) FROM messages GROUP BY table_id")
    return {str(table_id): int(str(count)) for table_id, count in rows}


@dataclass(frozen=True, slots=True)
class SeqCheck:
    """Every ``seq`` of every table in the database exactly once, with the bytes published."""

    tables: int
    messages: int
    missing: dict[str, list[int]]
    extra: dict[str, list[int]]
    different: dict[str, list[int]]

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.different)


async def check_seqs(store: IngestStore, journals: dict[str, Path]) -> SeqCheck:
    missing: dict[str, list[int]] = {}
    extra: dict[str, list[int]] = {}
    different: dict[str, list[int]] = {}
    total = 0
    for table_id, journal in journals.items():
        last, published = outbox(journal)
        rows = await store.execute(
            "SELECT seq, payload FROM messages WHERE table_id = :table_id ORDER BY seq",
            table_id=table_id,
        )
        held = {int(str(seq)): digest(str(payload)) for seq, payload in rows}
        total += len(rows)
        # The primary key (table_id, seq) holds each seq once; the count says nothing slipped.
        if len(rows) != len(held):
            extra[table_id] = sorted(held)
        gaps = [seq for seq in range(1, last + 1) if seq not in held]
        beyond = [seq for seq in held if not 1 <= seq <= last]
        changed = [seq for seq, d in published.items() if seq in held and held[seq] != d]
        if gaps:
            missing[table_id] = gaps[:20]
        if beyond:
            extra[table_id] = beyond[:20]
        if changed:
            different[table_id] = changed[:20]
    return SeqCheck(len(journals), total, missing, extra, different)


async def round_mismatches(store: IngestStore, table_id: str, journal: Path) -> list[str]:
    """Each way the table's round rows differ from its journal replayed (empty: equal)."""
    expected = await replayed_rounds(journal)
    rows = await store.execute(
        "SELECT round_id, status, winner, player_cards, banker_cards, correction_no, seq,"
        " void_reason FROM rounds WHERE table_id = :table_id",
        table_id=table_id,
    )
    problems: list[str] = []
    held_ids = {str(row[0]) for row in rows}
    if held_ids != set(expected):
        problems.append(
            f"{table_id}: rounds only stored {sorted(held_ids - set(expected))[:5]},"
            f" only replayed {sorted(set(expected) - held_ids)[:5]}"
        )
    for round_id, status, winner, player, banker, correction_no, seq, reason in rows:
        want = expected.get(str(round_id))
        if want is None:
            continue
        got: dict[str, Any] = {"status": status, "seq": seq}
        if status == "voided":
            got["reason"] = reason
        else:
            got |= {
                "winner": winner,
                "player_cards": player,
                "banker_cards": banker,
                "correction_no": correction_no,
            }
        wanted = {key: want.get(key) for key in got}
        if got != wanted:
            problems.append(f"{table_id} {round_id}: stored {got}, replayed {wanted}")
    settlements = await store.execute(
        "SELECT round_id, bet, numerator, denominator FROM round_settlements"
        " WHERE table_id = :table_id",
        table_id=table_id,
    )
    held: dict[str, dict[str, Fraction | None]] = {}
    for round_id, bet, numerator, denominator in settlements:
        value = None if numerator is None else Fraction(int(str(numerator)), int(str(denominator)))
        held.setdefault(str(round_id), {})[str(bet)] = value
    wanted_settlements = {rid: w["settlement"] for rid, w in expected.items() if w["settlement"]}
    problems += [
        f"{table_id} {round_id}: settlement differs from the replay"
        for round_id in sorted(set(held) | set(wanted_settlements))
        if held.get(round_id) != wanted_settlements.get(round_id)
    ]
    return problems


async def check_rounds(store: IngestStore, journals: dict[str, Path]) -> tuple[int, list[str]]:
    """Rounds compared, and every mismatch, replaying a few journals at a time."""
    limit = asyncio.Semaphore(REPLAY_CONCURRENCY)

    async def one(table_id: str, journal: Path) -> list[str]:
        async with limit:
            return await round_mismatches(store, table_id, journal)

    found = await asyncio.gather(*(one(t, j) for t, j in journals.items()))
    rounds = await store.execute("SELECT count(*) FROM rounds")
    return int(str(rounds[0][0])), [problem for problems in found for problem in problems]


def percentile(values: Sequence[float], share: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[round(share * 1000) - 1]


#: The share of the messages left to store at the end of play that the catch-up rate counts.
CATCH_UP_SHARE: Final = 0.95


@dataclass(frozen=True, slots=True)
class Window:
    """A stretch of wall-clock time (epoch seconds)."""

    start: float
    end: float

    def holds(self, moment: float) -> bool:
        return self.start <= moment <= self.end


async def delays_and_rate(
    store: IngestStore,
    play: Window,
    faults: Sequence[Window],
    at_pit: Mapping[tuple[str, int], float],
) -> dict[str, Any]:
    """Publish-to-commit delays (``ts`` to ``received_at``) and the rate stored during play.

    ``at_pit`` is when the bench's own subscriber on the pit broker got each ``(table, seq)``
    first: it splits the slowest messages' delays into the table to the pit broker and the pit
    broker to the row.
    """
    rows = await store.execute(
        "SELECT table_id, seq, ts, received_at FROM messages WHERE ts IS NOT NULL"
    )
    delays: list[float] = []
    steady: list[float] = []
    #: (delay, made, reached the pit) of the messages made outside the faults.
    made: list[tuple[float, float, float | None]] = []
    stored_in_play = 0
    buckets: dict[int, int] = {}
    for table_id, seq, ts, received_at in rows:
        assert isinstance(ts, datetime)
        assert isinstance(received_at, datetime)
        sent, stored = ts.timestamp(), received_at.timestamp()
        delay = stored - sent
        delays.append(delay)
        if not any(fault.holds(sent) for fault in faults):
            steady.append(delay)
            assert isinstance(seq, int)
            made.append((delay, sent, at_pit.get((str(table_id), seq))))
        if play.holds(stored):
            stored_in_play += 1
            bucket = int(stored - play.start) // 10
            buckets[bucket] = buckets.get(bucket, 0) + 1
    delays.sort()
    steady.sort()
    seconds = play.end - play.start
    # Catch-up: what was still to store when play ended, stored while the tables sat idle; the
    # rate up to the moment 95 % of it was in (the last few are late gap repairs).
    committed = (row[1].timestamp() for row in rows if isinstance(row[1], datetime))
    after = sorted(moment for moment in committed if moment > play.end)
    caught = after[: max(1, int(len(after) * CATCH_UP_SHARE))] if after else []
    catch_up_s = caught[-1] - play.end if caught else 0.0

    def ms(value: float | None) -> float | None:
        return None if value is None else round(value * 1000, 1)

    return {
        "stored_during_play": stored_in_play,
        "stored_per_s": round(stored_in_play / seconds, 1) if seconds > 0 else None,
        "stored_per_s_best_10s": round(max(buckets.values(), default=0) / 10, 1),
        "stored_after_play": len(after),
        "catch_up_per_s": round(len(caught) / catch_up_s, 1) if catch_up_s > 0 else None,
        "delay_ms_p50": ms(percentile(delays, 0.5)),
        "delay_ms_p99": ms(percentile(delays, 0.99)),
        "delay_ms_max": ms(delays[-1] if delays else None),
        "delay_ms_p50_outside_faults": ms(percentile(steady, 0.5)),
        "delay_ms_p99_outside_faults": ms(percentile(steady, 0.99)),
        "messages_outside_faults": len(steady),
        "slowest_outside_faults": _slowest(made, play),
    }


def _slowest(
    made: list[tuple[float, float, float | None]], play: Window
) -> dict[str, dict[str, float | None]]:
    """Where the slowest 1 % of ``(delay, made, at_pit)`` were made, and where they waited.

    By 10 s of play, keyed by the seconds of play the span starts at (``"-10"``: the 10 s
    before play): how many, the longest delay, and the median seconds from the table to the
    pit broker and from the pit broker to the row (None: the bench's subscriber missed them).
    """
    made.sort(key=lambda entry: entry[0], reverse=True)
    spans: dict[str, list[tuple[float, float | None]]] = {}
    for delay, sent, at_pit in made[: max(1, len(made) // 100)] if made else []:
        span = str(int((sent - play.start) // 10) * 10)
        spans.setdefault(span, []).append((delay, None if at_pit is None else at_pit - sent))
    by_span: dict[str, dict[str, float | None]] = {}
    for span, entries in spans.items():
        to_pit = [hop for _, hop in entries if hop is not None]
        beyond = [delay - hop for delay, hop in entries if hop is not None]
        by_span[span] = {
            "count": len(entries),
            "longest_s": round(max(delay for delay, _ in entries), 1),
            "median_to_pit_s": round(statistics.median(to_pit), 2) if to_pit else None,
            "median_pit_to_row_s": round(statistics.median(beyond), 2) if beyond else None,
        }
    return by_span


async def gap_repair_figures(store: IngestStore, dropped: str) -> dict[str, Any]:
    """The ``resend`` requests the workers made and the permanent gaps they recorded."""
    figures: dict[str, Any] = {}
    for name, sql in (
        ("resend_requests", "SELECT count(*) FROM gap_requests"),
        (
            "resend_requests_dropped_table",
            f"SELECT count(*) FROM gap_requests WHERE table_id = '{dropped}'",  # noqa: S608 - our id
        ),
        ("resend_requests_tables", "SELECT count(DISTINCT table_id) FROM gap_requests"),
        ("permanent_gaps", "SELECT count(*) FROM permanent_gaps"),
    ):
        try:
            figures[name] = int(str((await store.execute(sql))[0][0]))
        except Exception as error:  # noqa: BLE001 - a figure the schema may not have
            figures[name] = f"unavailable: {type(error).__name__}"
    return figures


async def repair_after_drop(store: IngestStore, dropped: str, window: Window) -> dict[str, Any]:
    """How long after the drop ended the messages the table made during it were stored.

    The messages of ``dropped`` whose ``ts`` falls in the drop reach the workers only through
    ``resend``: the time from the end of the drop to each one's row, its median and its most.
    """
    rows = await store.execute(
        "SELECT received_at FROM messages WHERE table_id = :table_id"
        " AND ts >= :start AND ts <= :end",
        table_id=dropped,
        start=datetime.fromtimestamp(window.start, UTC),
        end=datetime.fromtimestamp(window.end, UTC),
    )
    after = sorted(row[0].timestamp() - window.end for row in rows if isinstance(row[0], datetime))
    return {
        "dropped_messages_made_during_drop": len(after),
        "repair_s_after_drop_p50": round(percentile(after, 0.5) or 0.0, 1) if after else None,
        "repair_s_after_drop_max": round(after[-1], 1) if after else None,
    }
