# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Every query of docs/backend.md, on PostgreSQL filled by a real table, against its journal."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

from table_controller.ingest.store import IngestStore, StoreOutcome
from tests.support.ingest_table import play_table, replayed_messages, replayed_rounds

DOC = Path(__file__).parents[2] / "docs" / "backend.md"


def queries() -> list[str]:
    return re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


async def test_the_documented_queries_answer_as_the_journal_says(
    pg_database_url: str, tmp_path: Path
) -> None:
    results, changes, alarms, per_hour, kept_apart = queries()
    played = await play_table(tmp_path)
    store = await IngestStore.open(pg_database_url)
    try:
        for topic, payload in played.messages:
            await store.store(topic, payload, verified=None)
        # A forged copy of the first result, with the winner changed: kept apart.
        topic, payload = next(m for m in played.messages if m[0].endswith("/round_result"))
        forged = json.loads(payload) | {"winner": "tie"}
        outcome = await store.store(
            topic,
            json.dumps(forged).encode(),
            verified=False,
            quarantine="signature does not match",
        )
        assert outcome is StoreOutcome.QUARANTINED
        replay = await replayed_messages(played.journal)
        expected = await replayed_rounds(played.journal)
        times = [datetime.fromisoformat(m["ts"]) for m in replay if m.get("ts")]
        shift = {
            "shift_start": min(times) - timedelta(hours=1),
            "shift_end": max(times) + timedelta(hours=1),
        }

        rows = await store.execute(results, table_id="V1", **shift)
        settled = [m["round_id"] for m in replay if m["type"] == "round_result"]
        assert [row[0] for row in rows] == settled
        for round_id, _ts, status, winner, *_, numerator, denominator in rows:
            want = expected[str(round_id)]
            assert status == want["status"]
            if status != "voided":
                assert winner == want["winner"]
                banker = Fraction(int(str(numerator)), int(str(denominator)))
                assert banker == want["settlement"]["banker"]
            else:
                assert numerator is None

        rows = await store.execute(changes, **shift)
        changed = [
            (m["round_id"], "voided" if m["type"] == "round_voided" else "corrected",
             m.get("correction_no", 0), m["operator"], m["supervisor"])
            for m in replay
            if m["type"] in {"round_voided", "result_corrected"}
        ]  # fmt: skip
        assert [row[1:6] for row in rows] == changed
        assert len(changed) == 5

        rows = await store.execute(alarms, **shift)
        codes = Counter(m["code"] for m in replay if m["type"] == "alarm")
        assert {row[1]: row[2] for row in rows} == codes

        rows = await store.execute(per_hour, **shift)
        standing = sum(1 for want in expected.values() if want["status"] != "voided")
        assert sum(int(str(row[2])) for row in rows) == standing
        assert {row[0] for row in rows} == {"(none)"}

        now = datetime.now(UTC)
        window = {"shift_start": now - timedelta(hours=1), "shift_end": now + timedelta(hours=1)}
        rows = await store.execute(kept_apart, **window)
        assert [row[:3] for row in rows] == [("V1", "signature does not match", 1)]
    finally:
        await store.close()
