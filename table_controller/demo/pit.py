# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's automatic pit: which command the table gets next, and when.

Pure: no I/O, no clock, no randomness. The adapter (:mod:`table_controller.demo.runner`) feeds
it what the backend receives from the table (:func:`pit_input` reads it), each draw of the
automatic dealer (:class:`CardDealt`) and the loop's time, asks :meth:`AutoPit.due` for what
to do, and sleeps until :meth:`AutoPit.deadline`. Command
ids are made from a prefix the adapter draws at random, so that two runs on one journal never
share an id (a repeated id is answered again and not carried out, mqtt-api.md "Commands").

Theory of operation
===================

The pit follows the table's ``phase`` (from its retained ``<root>/state``) and answers it the
way a pit boss and a dealer would, after a pause of the :class:`Pace`:

==================== ======================================== =======================
phase                command                                  pause (at speed 1)
==================== ======================================== =======================
``no_shoe``          ``new_shoe``                             ``shoe_change_s``
``shoe_over``        ``new_shoe`` (a newly shuffled shoe)     ``shoe_change_s``
``between_rounds``   ``open_betting``                         ``between_rounds_s``
``betting``          ``close_betting``                        ``betting_s``
anything else        none: the automatic dealer deals as the  (``card_s`` per card,
                     shoe's lamp asks, and a hold waits for   in the dealer)
                     a person
==================== ======================================== =======================

* **A new shoe.** Before ``new_shoe`` the pit asks for the virtual shoe to be filled with a
  freshly shuffled shoe (:class:`LoadNewShoe`), unless nothing was dealt from the cards in
  it yet (the shoe the demo starts with). A variant that reshuffles every round (``mini``) gets
  fresh cards before each ``open_betting`` instead.
* **One command in flight.** A command waits for its reply; with no reply after
  :data:`RESEND_S` it is sent again with the same id (the table carries it out once). An
  accepted ``new_shoe``, ``open_betting`` or ``close_betting`` always changes the phase, so
  after its reply the pit waits for the next ``state`` before it decides again. A ``sign_in``
  changes who is at the table, never its phase, and publishes no ``state`` at all for someone
  signed in already (the demo's staff, on a journal it resumes): after its reply the pit goes
  on at once.
* **An unknown phase is probed.** A table with a fresh journal publishes no ``state`` until
  its first command, and a refused command means the phase the pit believed is wrong. Then
  it tries the commands in turn (a refused command changes nothing) until a ``state``
  arrives: ``new_shoe`` first while the shoe's cards are untouched
  (:data:`PROBE_WITH_FRESH_CARDS`), otherwise last (:data:`PROBE_WITH_USED_CARDS`) and only
  :data:`RESEND_S` after the other two were refused, since it comes with fresh cards, which
  must not reach a shoe in play: a dealer in mid-coup shows a ``state`` with his next card
  well before that. After a whole round of refusals (the table is held, say) it waits
  :data:`RESEND_S` and starts again.
* **Staff first.** Once the table is online, the dealer and the supervisor it was given sign
  in (``sign_in`` with their PINs), one after the other, before any other command: the demo
  table requires a dealer.
* **Nothing before the table is online**, and nothing once ``rounds`` distinct rounds were
  settled (:attr:`AutoPit.finished`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Final, TypeAlias

#: Seconds without a reply before a command is sent again (a network matter: not scaled).
RESEND_S: Final = 2.0
#: What the pit tries, in this order, when it does not know the table's phase ...
PROBE_WITH_FRESH_CARDS: Final = ("new_shoe", "open_betting", "close_betting")
#: ... and when the virtual shoe's cards were dealt from (``new_shoe`` brings fresh ones).
PROBE_WITH_USED_CARDS: Final = ("open_betting", "close_betting", "new_shoe")
#: The operator named in the pit's commands.
OPERATOR: Final = "demo-pit"
#: The command that signs the staff in: it leaves the phase as it was.
SIGN_IN: Final = "sign_in"
#: The dealer's shortest pause before a card, whatever the speed. The table acknowledges a
#: card before it decides and lights the next lamp (journal, then ack, then controller, then
#: lamp: README.md, "How it fits together"), so for a moment after the acknowledgement the lamp
#: still asks for a card the coup may no longer need; a card dealt in that moment is an
#: ``unnecessary_card``. A human dealer is never that quick.
MIN_CARD_S: Final = 0.05


@dataclass(frozen=True, slots=True, kw_only=True)
class Pace:
    """The pauses of the demo's pit and dealer, in seconds; :meth:`at_speed` scales them."""

    #: The dealer's pause before each card the lamp asks for.
    card_s: float = 0.6
    #: How long betting stays open.
    betting_s: float = 4.0
    #: How long a result is shown before the next round opens.
    between_rounds_s: float = 2.0
    #: How long a shoe change takes.
    shoe_change_s: float = 3.0

    def at_speed(self, speed: float) -> Pace:
        """Every pause divided by ``speed`` (2 is twice as fast); a card's no less than MIN_CARD_S.

        Raises:
            ValueError: ``speed`` is not a positive finite number.
        """
        if not 0 < speed < float("inf"):
            raise ValueError(f"speed must be more than 0, got {speed}")
        return replace(
            self,
            card_s=max(self.card_s / speed, MIN_CARD_S),
            betting_s=self.betting_s / speed,
            between_rounds_s=self.between_rounds_s / speed,
            shoe_change_s=self.shoe_change_s / speed,
        )


# --- inputs: what the backend received ------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PhaseSeen:
    """A ``state`` message: the table is in ``phase``."""

    phase: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StatusSeen:
    """A ``status`` message: the table's controller is online or not."""

    online: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundSettled:
    """A ``round_result``."""

    round_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandAnswered:
    """A reply on ``commands/replies``; ``error`` is the refusal's code."""

    command_id: str
    ok: bool
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDealt:
    """The automatic dealer drew from the virtual shoe (its cards are no longer untouched)."""


PitInput: TypeAlias = PhaseSeen | StatusSeen | RoundSettled | CommandAnswered | CardDealt


def pit_input(channel: str, message: dict[str, object]) -> PitInput | None:
    """What one message of the table (``channel`` is the topic after ``<root>/``) tells the pit.

    Returns:
        The input, or None for a message the pit has no use for (or cannot read).
    """
    match channel:
        case "state":
            phase = message.get("phase")
            return PhaseSeen(phase=phase) if isinstance(phase, str) else None
        case "status":
            online = message.get("online")
            return StatusSeen(online=online) if isinstance(online, bool) else None
        case "events/round_result":
            round_id = message.get("round_id")
            return RoundSettled(round_id=round_id) if isinstance(round_id, str) else None
        case "commands/replies":
            command_id, ok, error = message.get("id"), message.get("ok"), message.get("error")
            if not isinstance(command_id, str) or not isinstance(ok, bool):
                return None
            return CommandAnswered(
                command_id=command_id, ok=ok, error=error if isinstance(error, str) else None
            )
    return None


# --- decisions ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadNewShoe:
    """Fill the virtual shoe with a freshly shuffled shoe (before the command that follows)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GiveCommand:
    """Publish ``{"id": command_id, "command": command, "operator": OPERATOR, "args": args}``."""

    command_id: str
    command: str
    args: Mapping[str, object] = field(default_factory=dict, hash=False)

    def payload(self) -> dict[str, object]:
        """The command as mqtt-api.md writes it."""
        return {
            "id": self.command_id,
            "command": self.command,
            "operator": OPERATOR,
            "args": dict(self.args),
        }


PitDecision: TypeAlias = LoadNewShoe | GiveCommand


@dataclass(slots=True)
class _Pending:
    command: GiveCommand
    sent_at: float


@dataclass(slots=True)
class _Knowledge:
    #: The phase of the latest ``state``; None when unknown or no longer trusted.
    phase: str | None = None
    #: When the phase was learned or, after a reply, when the pit may decide again.
    since: float = 0.0
    #: An accepted command's reply came; the ``state`` it leads to has not.
    awaiting_state: bool = False
    online: bool = False
    #: How many commands of the current round of probes were given.
    probe: int = 0
    settled: set[str] = field(default_factory=set)
    #: Whether the virtual shoe's cards are untouched since they were shuffled.
    fresh_cards: bool = True


class AutoPit:
    """The automatic pit boss of the demo (see the module's theory of operation).

    Args:
        pace: The pauses (already scaled to the demo's speed).
        id_prefix: Starts every command id; unique per run (the adapter draws it).
        rounds: Stop after this many settled rounds; None: never.
        reshuffle_every_round: The variant shuffles the cards again before each round.
        sign_ins: Staff ids and PINs signed in, in order, before anything else.
    """

    def __init__(
        self,
        *,
        pace: Pace,
        id_prefix: str,
        rounds: int | None = None,
        reshuffle_every_round: bool = False,
        sign_ins: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.pace = pace
        self.rounds = rounds
        self.reshuffle_every_round = reshuffle_every_round
        self._sign_ins = list(sign_ins)
        self._id_prefix = id_prefix
        self._issued = 0
        self._known = _Knowledge()
        self._pending: _Pending | None = None

    @property
    def settled(self) -> int:
        """How many distinct rounds were settled."""
        return len(self._known.settled)

    @property
    def finished(self) -> bool:
        """Whether the rounds asked for were played."""
        return self.rounds is not None and self.settled >= self.rounds

    @property
    def phase(self) -> str | None:
        """The phase the pit believes the table is in (None: unknown)."""
        return self._known.phase

    def handle(self, item: PitInput, now: float) -> None:
        """Take in one message of the table, received at ``now``."""
        known = self._known
        match item:
            case PhaseSeen(phase=phase):
                if phase != known.phase or known.awaiting_state:
                    known.since = now
                known.phase = phase
                known.awaiting_state = False
                known.probe = 0
            case CardDealt():
                known.fresh_cards = False
            case StatusSeen(online=online):
                known.online = online
            case RoundSettled(round_id=round_id):
                known.settled.add(round_id)
            case CommandAnswered(command_id=command_id, ok=ok):
                pending = self._pending
                if pending is None or pending.command.command_id != command_id:
                    return  # an answer to a resent copy, or to an earlier run
                self._pending = None
                known.since = now
                if ok:
                    known.awaiting_state = pending.command.command != SIGN_IN
                else:
                    known.phase = None  # refused: the phase believed is wrong, so probe
                    known.awaiting_state = False

    def deadline(self) -> float | None:
        """When :meth:`due` will next have something to do (None: only after an input)."""
        if self.finished or not self._known.online:
            return None
        if self._pending is not None:
            return self._pending.sent_at + RESEND_S
        known = self._known
        if known.awaiting_state:
            return known.since + RESEND_S
        if self._sign_ins:
            return known.since
        if known.phase is None:
            return known.since + self._probe_pause()
        wanted = self._wanted(known.phase)
        return None if wanted is None else known.since + wanted[1]

    def due(self, now: float) -> list[PitDecision]:  # noqa: PLR0911 - one case per state
        """What to do at ``now``: nothing, a command (resent or new), or fresh cards then one."""
        known = self._known
        if self.finished or not known.online:
            return []
        if self._pending is not None:
            return self._resend(self._pending, now)
        if known.awaiting_state and now >= known.since + RESEND_S:
            known.awaiting_state = False  # the state it led to was lost: find out by probing
            known.phase = None
            known.probe = 0
        if known.awaiting_state:
            return []
        if self._sign_ins:
            staff_id, pin = self._sign_ins.pop(0)
            return self._give(SIGN_IN, now, {"staff_id": staff_id, "pin": pin})
        if known.phase is None:
            return self._probe(now)
        wanted = self._wanted(known.phase)
        if wanted is None or now < known.since + wanted[1]:
            return []
        return self._give(wanted[0], now)

    @staticmethod
    def _resend(pending: _Pending, now: float) -> list[PitDecision]:
        if now < pending.sent_at + RESEND_S:
            return []
        pending.sent_at = now
        return [pending.command]

    def _wanted(self, phase: str) -> tuple[str, float] | None:
        pace = self.pace
        match phase:
            case "no_shoe" | "shoe_over":
                return "new_shoe", pace.shoe_change_s
            case "between_rounds":
                return "open_betting", pace.between_rounds_s
            case "betting":
                return "close_betting", pace.betting_s
        return None

    def _probes(self) -> tuple[str, ...]:
        known = self._known
        return PROBE_WITH_FRESH_CARDS if known.fresh_cards else PROBE_WITH_USED_CARDS

    def _probe_pause(self) -> float:
        """How long after the last refusal the next probe goes (0 within a round of probes)."""
        probes, index = self._probes(), self._known.probe
        if index == len(probes) or (probes[index] == "new_shoe" and index > 0):
            return RESEND_S
        return 0.0

    def _probe(self, now: float) -> list[PitDecision]:
        known = self._known
        if now < known.since + self._probe_pause():
            return []
        if known.probe == len(self._probes()):
            known.probe = 0
        command = self._probes()[known.probe]
        known.probe += 1
        return self._give(command, now)

    def _give(
        self, command: str, now: float, args: Mapping[str, object] | None = None
    ) -> list[PitDecision]:
        known = self._known
        decisions: list[PitDecision] = []
        reshuffle = command == "new_shoe" or (
            command == "open_betting" and self.reshuffle_every_round
        )
        if reshuffle and not known.fresh_cards:
            decisions.append(LoadNewShoe())
            known.fresh_cards = True
        self._issued += 1
        give = GiveCommand(
            command_id=f"{self._id_prefix}-{self._issued}", command=command, args=args or {}
        )
        self._pending = _Pending(command=give, sent_at=now)
        decisions.append(give)
        return decisions
