# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``resend``: which ranges the table takes, how often, and the reply it gives.

Pure: no I/O, no clock of its own, no randomness. A backend that misses ``seq`` numbers asks
the table to publish them again from its outbox (docs/mqtt-api.md, "Resend"). The edge checks
the range (:func:`range_problem`), counts each operator's requests against a per-minute limit
(``ingress/request_limit.py``) and answers with :func:`resend_reply` once the messages are
out. The republishing itself is the MQTT link's (``mqtt/client/republisher.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from table_controller.contract import EdgeReply

#: The widest range one ``resend`` may ask for: ``to_seq - from_seq`` stays below it.
MAX_RESEND_SPAN: Final = 10_000
#: The largest ``seq`` a table can give (SQLite's integer): ranges above it are refused.
MAX_SEQ: Final = 2**63 - 1


def range_problem(from_seq: int, to_seq: int) -> str | None:
    """Why ``from_seq``..``to_seq`` (inclusive) is not a range ``resend`` takes; None: it is."""
    if from_seq < 1:
        return f"from_seq must be 1 or more; got {from_seq}"
    if to_seq > MAX_SEQ:
        return f"to_seq must be at most {MAX_SEQ}"
    if to_seq < from_seq:
        return f"to_seq ({to_seq}) is below from_seq ({from_seq})"
    if to_seq - from_seq >= MAX_RESEND_SPAN:
        return (
            f"the range holds {to_seq - from_seq + 1} seq; at most {MAX_RESEND_SPAN} "
            "are resent at once (ask in several ranges)"
        )
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Republished:
    """What a resend did: how many messages went out again and which ``seq`` are gone.

    ``last_seq`` is the highest ``seq`` the table had given when the range was read: a
    ``seq`` above it was not given yet and is neither resent nor gone.
    """

    resent: int
    gone: Sequence[int]
    last_seq: int


def missing_seqs(first: int, last: int, held: Sequence[int]) -> list[int]:
    """The ``seq`` of ``first``..``last`` (inclusive) that are not in ``held`` (ascending)."""
    present = set(held)
    return [seq for seq in range(first, last + 1) if seq not in present]


def resend_reply(command_id: str, done: Republished) -> EdgeReply:
    """The reply to ``resend``, once the messages are out."""
    return EdgeReply(
        id=command_id,
        ok=True,
        command="resend",
        resent=done.resent,
        gone=list(done.gone),
        last_seq=done.last_seq,
    )
