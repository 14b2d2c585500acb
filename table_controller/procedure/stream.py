# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The shoe's items as a stream: queued while the table is held, and the cards missing in it.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads and changes the
:class:`~table_controller.procedure.table.Table` and imports no other part.

Cards, misreads, the cut card and lost frames are handled in the order the shoe reported them;
while a hold stands they wait in ``pending``, untouched. A misread card or lost frames during
the burn or a round open a *gap*: the cards missing until a supervisor enters them. When the
burn or round ends with lost frames still unaccounted for they are *left over*: a card the
dealer drew for one may still be entered, and is then counted out of the shoe and discarded.
"""

from __future__ import annotations

from dataclasses import replace

from table_controller.contract import AlarmCode, HoldReason
from table_controller.procedure.table import Item, Out, Table, last_round_id
from table_controller.rules import Card


def arrive(table: Table, item: Item) -> Item | None:
    """An item out of the shoe: returned to be handled now, or queued behind a hold."""
    if table.held():
        table.pending.append(item)
        return None
    return item


def next_queued(table: Table) -> Item | None:
    """The next queued item, once nothing holds the table any more."""
    if table.pending and not table.held():
        return table.pending.popleft()
    return None


def take_queue(table: Table) -> list[Card | None]:
    """Empty the queue: the cards in it (``None`` for unread ones) go with a voided round."""
    queued = table.pending_cards()
    table.pending.clear()
    return queued


def open_gap(table: Table, count: int, reason: HoldReason) -> None:
    """``count`` cards are missing at the head of the stream: the table holds until entered."""
    table.holds = replace(table.holds, gap=count, gap_reason=reason)


def fill_gap(table: Table) -> bool:
    """One missing card entered by hand; whether it was a misread (already counted out)."""
    holds = table.holds
    gap = holds.gap - 1
    table.holds = replace(holds, gap=gap, gap_reason=holds.gap_reason if gap else None)
    return holds.gap_reason is HoldReason.MISREAD


def end_gap(table: Table, out: Out, round_id: str | None) -> None:
    """The burn or round that needed the missing cards ended: lost frames are left over."""
    gap = table.holds.gap
    if table.holds.gap_reason is HoldReason.LOST_FRAMES and gap and table.shoe is not None:
        table.left_over += gap
        out.alarm(
            table.shoe, AlarmCode.LOST_FRAMES_LEFT_OVER,
            f"{gap} lost frame(s) not needed by {round_id or 'the burn'}: if the dealer "
            "drew a card for one, enter it (manual_card) before the next round",
            round_id=round_id, count=gap,
        )
    table.close_gap()


def enter_left_over(table: Table, out: Out, card: Card) -> None:
    """A card drawn for a left-over lost frame: out of the shoe, and discarded."""
    shoe = table.in_play()
    table.left_over -= 1
    shoe.cards_seen += 1
    shoe.accounting.take(card)
    out.alarm(shoe, AlarmCode.UNNECESSARY_CARD,
              "a card drawn for a lost frame, entered by hand: counted and discarded",
              round_id=last_round_id(shoe), card=card)


def frames_lost(table: Table, out: Out, count: int) -> None:
    """Frames lost: an alarm, and a gap while the burn or a round waits for cards."""
    round_id = None if table.round is None else table.round.round_id
    out.alarm(table.shoe, AlarmCode.LOST_FRAMES, f"{count} frame(s) from the shoe were lost",
              round_id=round_id, count=count)


def reader(table: Table, out: Out, *, online: bool) -> None:
    """The reader went offline (a hold and an alarm) or came back."""
    table.holds = replace(table.holds, reader_offline=not online)
    if not online:
        out.alarm(table.shoe, AlarmCode.READER_OFFLINE, "the card reader is offline")
