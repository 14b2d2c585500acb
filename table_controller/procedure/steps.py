# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The steps the routes name: each composes the parts for one (phase, trigger).

Pure: no I/O, no clock, no randomness. A step calls the parts (which import none of one
another), reads what they return, and decides what follows: a settled or voided round leads to
the next round or, after the last, to the shoe's end. It takes the table, the input's
collector and what it was given (a shoe item as :class:`Drawn`, or the command itself), and
returns the phase it ends in, or a command's refusal; the machine checks the move against
:data:`~table_controller.procedure.states.ROUTES`. A route whose part already has that shape
names the part itself (``supervision.new_shoe``, ``limits.set_limits``, ``faults.clear``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from table_controller.contract import AlarmCode, HoldReason, Phase, ShoeEndReason, VoidReason
from table_controller.procedure import dealing, faults, prompts, shoe_flow, stream, supervision
from table_controller.procedure.inputs import (
    CloseBetting,
    CorrectResult,
    Deal,
    DroppedCard,
    EnterCard,
    Misdeal,
    OpenBetting,
    ReaderCameBack,
    ReaderWentOffline,
    RuntimeFailed,
    VoidRound,
    VoidShoe,
)
from table_controller.procedure.shoe import Shoe
from table_controller.procedure.table import GAP_PHASES, Mark, Out, Refusal, Table, take
from table_controller.rules import Card


@dataclass(frozen=True, slots=True, kw_only=True)
class Drawn:
    """What a shoe item's step is given: its card (``None``: unread), or lost frames' count."""

    card: Card | None = None
    #: The card was entered by hand; ``seen_already``: for a misread, already counted out.
    manual: bool = False
    seen_already: bool = False
    count: int = 0


#: The step of a misread card or the cut card: no card, nothing counted (an immutable value).
NO_CARD = Drawn()

#: A step that takes a shoe item: the phase it ends in.
CardStep = Callable[[Table, Out, Drawn], Phase]


# --- what follows a step ----------------------------------------------------------------------


def _round_over(table: Table, out: Out) -> Phase:
    """After a round settled or voided: the next round, or the shoe's end after the last."""
    shoe = table.in_play()
    if shoe.cut_card_out:
        return shoe_flow.end(shoe, out, ShoeEndReason.CUT_CARD)
    return Phase.BETWEEN_ROUNDS


def _void_in_play(table: Table, out: Out, reason: VoidReason, *, operator: str | None,  # noqa: PLR0913
                  extra: tuple[Card | None, ...] = (), take_queue: bool = True) -> None:
    """Void the round in play.

    A supervisor's void (``take_queue``) discards with the round the items queued behind
    its hold: the dealer dealt them into this round, and a cut card among them still
    counts. A void from the stream itself (exposed card, cut card) leaves the queue alone.
    """
    shoe, current = table.in_play(), table.current()
    cards: list[Card | None] = [*current.cards, *extra]
    if take_queue:
        if any(item is Mark.CUT for item in table.pending):
            shoe_flow.queued_cut(table, out, shoe, current)
        queued = stream.take_queue(table)
        shoe_flow.count_discarded(table, out, shoe, queued)
        cards.extend(queued)
    dealing.void(table, out, reason, operator=operator, cards=cards)
    if reason is VoidReason.SHOE_VOIDED:
        table.close_gap()
    else:
        stream.end_gap(table, out, current.round_id)
    dealing.forget(table)


def _counted(table: Table, out: Out, drawn: Drawn, shoe: Shoe | None = None) -> bool:
    """Count the card out of ``shoe`` (the one in play); ``False`` for a foreign card."""
    if shoe is None:
        shoe = table.in_play()
    if not drawn.seen_already:
        shoe.cards_seen += 1
    return drawn.card is None or take(table, out, shoe, drawn.card)


# --- shoe items -------------------------------------------------------------------------------


def card_without_shoe(table: Table, out: Out, drawn: Drawn) -> Phase:
    """A card before any shoe: an alarm, nothing starts."""
    out.alarm(None, AlarmCode.CARD_WITHOUT_SHOE, "a card came out before any new_shoe",
              card=drawn.card)
    return table.phase


def card_after_last_round(table: Table, out: Out, drawn: Drawn) -> Phase:
    """A card after the shoe's last round: counted, an alarm."""
    if _counted(table, out, drawn):
        shoe_flow.after_last_round(table.in_play(), out, drawn.card)
    return Phase.SHOE_OVER


def burn_first(table: Table, out: Out, drawn: Drawn) -> Phase:
    """The burn's face-up card: it says how many more to burn."""
    if not _counted(table, out, drawn):
        return Phase.BURN_CARD
    target = shoe_flow.burn_first(table.in_play(), out, drawn.card)
    if drawn.card is None:
        stream.open_gap(table, 1, HoldReason.MISREAD)
    return target


def burn(table: Table, out: Out, drawn: Drawn) -> Phase:
    """A card burned face down."""
    if not _counted(table, out, drawn):
        return Phase.BURNING
    return shoe_flow.burn(table.in_play(), out, drawn.card)


def card_between_rounds(table: Table, out: Out, drawn: Drawn) -> Phase:
    """A card between rounds: unnecessary, or (no betting phase) the next round's first."""
    shoe = table.in_play()
    if not table.betting and not table.rounds_stopped():  # the card starts the next round
        dealing.start(table, shoe)
        return deal_card(table, out, drawn)
    if _counted(table, out, drawn):
        shoe_flow.unnecessary_card(shoe, out, drawn.card)
    return Phase.BETWEEN_ROUNDS


def exposed_card(table: Table, out: Out, drawn: Drawn) -> Phase:
    """A card while bets are taken: exposed, the round is voided."""
    if not _counted(table, out, drawn):
        return Phase.BETTING
    dealing.exposed(table, out, table.in_play(), drawn.card)
    _void_in_play(table, out, VoidReason.EXPOSED_CARD, operator=None, extra=(drawn.card,),
                  take_queue=False)
    return _round_over(table, out)


def deal_card(table: Table, out: Out, drawn: Drawn) -> Phase:
    """A card of the round: placed where the drawing rules say, the round settled if complete."""
    shoe = table.in_play()
    if not _counted(table, out, drawn, shoe):
        return Phase.DEALING
    if drawn.card is None:
        dealing.misread(table, out, shoe)
        stream.open_gap(table, 1, HoldReason.MISREAD)
        return Phase.DEALING
    if dealing.deal(table, out, shoe, drawn.card, manual=drawn.manual) is dealing.Dealt.SETTLED:
        return _round_over(table, out)
    return Phase.DEALING


def cut_out_of_play(table: Table, out: Out, _drawn: Drawn) -> Phase:
    """The cut card with no shoe in play: an alarm at most."""
    shoe_flow.cut_card(table, out)  # nothing depends on it any more
    return table.phase


def cut_between_rounds(table: Table, out: Out, _drawn: Drawn) -> Phase:
    """The cut card with no round in play: the shoe ends."""
    shoe = shoe_flow.cut_card(table, out)
    if shoe is None:
        return table.phase
    out.last_round_between(shoe, shoe.round_no)
    return shoe_flow.end(shoe, out, ShoeEndReason.CUT_CARD)


def cut_before_the_deal(table: Table, out: Out, _drawn: Drawn) -> Phase:
    """The cut card while bets are taken: the round does not commence."""
    if shoe_flow.cut_card(table, out) is None:
        return table.phase
    return _no_round_commences(table, out)


def cut_while_dealing(table: Table, out: Out, _drawn: Drawn) -> Phase:
    """The cut card during a round: it is the last, or (before its first card) void."""
    current = table.current()
    if shoe_flow.cut_card(table, out) is None:
        return Phase.DEALING
    if current.cards:  # this round completes and is the last
        current.last_round = True
        out.last_round_during(current)
        return Phase.DEALING
    return _no_round_commences(table, out)


def _no_round_commences(table: Table, out: Out) -> Phase:
    """The cut card before the round's first card: the round is voided, the shoe ends."""
    out.last_round_between(table.in_play(), table.current().round_no - 1)
    _void_in_play(table, out, VoidReason.AFTER_LAST_ROUND, operator=None, take_queue=False)
    return _round_over(table, out)


def frames_lost(table: Table, out: Out, drawn: Drawn) -> Phase:
    """Frames lost: an alarm, and a hold while the burn or a round waits for cards."""
    stream.frames_lost(table, out, drawn.count)
    if table.shoe is not None and table.phase in GAP_PHASES:
        stream.open_gap(table, drawn.count, HoldReason.LOST_FRAMES)
    return table.phase


def frames_lost_between_rounds(table: Table, out: Out, drawn: Drawn) -> Phase:
    """Frames lost between rounds: without a betting phase, a round starts, held."""
    stream.frames_lost(table, out, drawn.count)
    if table.betting or table.rounds_stopped():
        return Phase.BETWEEN_ROUNDS
    dealing.start(table, table.in_play())
    stream.open_gap(table, drawn.count, HoldReason.LOST_FRAMES)
    return Phase.DEALING


# --- commands ---------------------------------------------------------------------------------


def open_betting(table: Table, out: Out, _command: OpenBetting) -> Phase:
    """The next round starts, open for bets."""
    return dealing.open_betting(table, out, table.in_play())


def close_betting(table: Table, out: Out, _command: CloseBetting) -> Phase:
    """No more bets: the round is dealt."""
    return dealing.close_betting(table, out)


def deal(table: Table, _out: Out, _command: Deal) -> Phase:
    """The next round starts (no betting phase)."""
    dealing.start(table, table.in_play())
    return Phase.DEALING


def misdeal(table: Table, out: Out, command: Misdeal) -> Phase:
    """The round being dealt is voided."""
    _void_in_play(table, out, VoidReason.MISDEAL, operator=command.operator)
    return _round_over(table, out)


def dropped_card(table: Table, out: Out, command: DroppedCard) -> Phase:
    """A card fell out of sight: reused if read, else the round is voided."""
    if command.read:
        return table.phase  # the card is reused: nothing changes
    _void_in_play(table, out, VoidReason.DROPPED_CARD, operator=command.operator)
    return _round_over(table, out)


def void_round(table: Table, out: Out, command: VoidRound) -> Phase | Refusal:
    """The round in play, or a settled round of the shoe, is voided."""
    current = table.round
    if current is not None and command.round_id == current.round_id:
        misread = table.holds.gap_reason is HoldReason.MISREAD
        reason = VoidReason.MISREAD if misread else VoidReason.SUPERVISOR
        _void_in_play(table, out, reason, operator=command.operator)
        return _round_over(table, out)
    refusal = supervision.void_settled(table.in_play(), out, command)
    return table.phase if refusal is None else refusal


def void_shoe(table: Table, out: Out, command: VoidShoe) -> Phase:
    """The shoe is voided with its round in play; nothing more is dealt from it."""
    shoe = table.in_play()
    rounds: tuple[str, ...] = ()
    discarded: tuple[Card | None, ...] = ()
    if table.round is not None:
        rounds = (table.round.round_id,)
        _void_in_play(table, out, VoidReason.SHOE_VOIDED, operator=command.operator)
    else:
        discarded = tuple(table.pending_cards())
    supervision.shoe_voided(table, out, command, rounds=rounds, discarded=discarded)
    shoe.ended = True
    return Phase.SHOE_OVER


def correct_result(table: Table, out: Out, command: CorrectResult) -> Phase | Refusal:
    """A settled round's cards are corrected."""
    refusal = supervision.correct(table, out, table.in_play(), command)
    return table.phase if refusal is None else refusal


def _entered(table: Table, out: Out, command: EnterCard, card_step: CardStep) -> Phase | Refusal:
    """A card entered by hand: a missing one goes through ``card_step``, the phase's own."""
    refusal = supervision.refuse_entry(table.in_play(), command.card)
    if refusal is not None:
        return refusal
    if table.holds.gap == 0:
        stream.enter_left_over(table, out, command.card)
        return table.phase
    seen_already = stream.fill_gap(table)
    return card_step(table, out, Drawn(card=command.card, manual=True, seen_already=seen_already))


def enter_burn_first(table: Table, out: Out, command: EnterCard) -> Phase | Refusal:
    """The face-up burn card, entered by hand."""
    return _entered(table, out, command, burn_first)


def enter_burn(table: Table, out: Out, command: EnterCard) -> Phase | Refusal:
    """A burn card, entered by hand."""
    return _entered(table, out, command, burn)


def enter_between_rounds(table: Table, out: Out, command: EnterCard) -> Phase | Refusal:
    """A card drawn for a left-over lost frame, entered by hand."""
    return _entered(table, out, command, card_between_rounds)


def enter_dealt_card(table: Table, out: Out, command: EnterCard) -> Phase | Refusal:
    """A card of the round, entered by hand."""
    return _entered(table, out, command, deal_card)


def enter_after_last_round(table: Table, out: Out, command: EnterCard) -> Phase | Refusal:
    """A card drawn for a left-over lost frame after the last round, entered by hand."""
    return _entered(table, out, command, card_after_last_round)


# --- inputs taken in every phase ----------------------------------------------------------------


def reader_offline(table: Table, out: Out, _event: ReaderWentOffline) -> None:
    """The reader went offline: an alarm, and a hold."""
    stream.reader(table, out, online=False)


def reader_back(table: Table, out: Out, _event: ReaderCameBack) -> None:
    """The reader talks again."""
    stream.reader(table, out, online=True)


def runtime_failed(table: Table, out: Out, event: RuntimeFailed) -> None:
    """The runtime could not carry out an input: the table faults (once) and says so."""
    faults.fault(table, event.message)
    show_fault(table, out, event.message)


def show_fault(table: Table, out: Out, message: str) -> None:
    """Hold the table for the fault (once) and raise the alarm ``message``."""
    prompts.show(table, out)
    faults.alarm(table, out, message)
