# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Before each round: the shoe's odds, its alarms and its offer, as one ``RoundAssessed`` input.

Pure: no I/O, no clock, no randomness. The runtime drives it in three steps, so that the
analysis (about a millisecond, more at a shoe's first round) runs off the dealing path:

1. :meth:`RoundAdvisor.request`, on the event loop after an input: if the table is between
   rounds and the shoe changed since the last assessment, an :class:`AssessmentRequest`
   holding everything the analysis needs as immutable values (this is the one place that
   decides when an assessment is due);
2. :func:`analyse_request`, on a worker thread: the exact edges of every bet for the next
   round (:func:`~table_controller.protection.edge.round_edges`), and the shuffle checks over
   the shoe so far;
3. :meth:`RoundAdvisor.conclude`, back on the loop: which alarms are new (each edge crossing
   once, each shuffle finding once a shoe), which bets dynamic windows suspend, and the odds
   payload, as a :class:`~table_controller.procedure.inputs.RoundAssessed` input. The runtime
   journals it and hands it to the procedure like any input, so ``replay`` of a journal
   publishes it at the same place.

:meth:`RoundAdvisor.assess` runs the three steps at once, for ``replay`` of recorded inputs
(which hold no assessments) and the tests: an assessment right after the input that made it
due, as a live table has it when nothing else arrives during the millisecond of analysis.
:meth:`RoundAdvisor.warm_up` computes beforehand what a table's first assessment would
otherwise compute while the first cards are dealt (the analyser's tables, the shuffle limits).

The advisor's memory (alarms already raised, recent shoes' openings) is rebuilt from the
inputs it observes, the journal's replay included: :meth:`RoundAdvisor.observe` sees every
input, live or replayed, and learns what was raised from the ``RoundAssessed`` inputs
themselves. Floats appear only in the payloads (the JSON edge); decisions use Fractions.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from table_controller.contract import AlarmCode, BetOdds, Odds, TableSnapshot
from table_controller.procedure import (
    AssessmentAlarm,
    CardDrawn,
    CardMisread,
    EnterCard,
    Input,
    RoundAssessed,
    ShoeCount,
)
from table_controller.protection.edge import (
    DEFAULT_EDGE_THRESHOLD,
    DynamicWindows,
    ImpossibleCount,
    NoEdges,
    RoundEdges,
    RoundOffer,
    positive_edges,
    round_edges,
    shoe_left,
)
from table_controller.protection.shoe_repeats import (
    DEFAULT_REPEAT_FALSE_ALARM_RATE,
    PastShoe,
    RepeatCheck,
    ShoeRepeated,
    check_repeated,
)
from table_controller.protection.shuffle_checks import (
    DEFAULT_FALSE_ALARM_RATE,
    ShufflePattern,
    check_shuffle,
    shuffle_limits,
)
from table_controller.rules import Card, Reshuffle, Variant


@dataclass(frozen=True, slots=True, kw_only=True)
class AdvisorSettings:
    """How the advisor alarms and offers (``run``'s settings and the variant file)."""

    #: ``edge_positive`` when an offered bet's house edge drops below this.
    edge_threshold: Fraction = DEFAULT_EDGE_THRESHOLD
    #: Suspend bets while the player has the edge on them; None keeps the fixed windows.
    dynamic_windows: DynamicWindows | None = None
    #: Chance that a fair shoe raises ``shuffle_pattern`` at all.
    shuffle_false_alarm_rate: float = DEFAULT_FALSE_ALARM_RATE
    #: Chance that a fair shoe raises ``shoe_repeated`` against the recent shoes.
    repeat_false_alarm_rate: float = DEFAULT_REPEAT_FALSE_ALARM_RATE
    #: How many recent shoes' openings a new shoe is compared with.
    past_shoes: int = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class AssessmentRequest:
    """Everything one assessment needs, as values: safe to analyse on any thread."""

    variant: Variant
    settings: AdvisorSettings
    shoe_id: str
    round_no: int
    #: The cards out since the last shuffle (``None``: left unread).
    gone: tuple[Card | None, ...]
    #: The shoe's cards in the order they left it (for the shuffle checks); empty to skip.
    sequence: tuple[Card | None, ...]
    #: Recent shoes to compare the opening with; empty when it is not (yet) to be checked.
    past: tuple[PastShoe, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Analysis:
    """What :func:`analyse_request` found."""

    request: AssessmentRequest
    edges: RoundEdges | NoEdges | ImpossibleCount
    patterns: tuple[ShufflePattern, ...]
    repeats: tuple[ShoeRepeated, ...]


def analyse_request(request: AssessmentRequest) -> Analysis:
    """The heavy part: exact edges and the shuffle checks (pure; for a worker thread)."""
    variant = request.variant
    settings = request.settings
    left = shoe_left(variant.decks, request.gone)
    edges: RoundEdges | NoEdges | ImpossibleCount = (
        left
        if isinstance(left, ImpossibleCount)
        else round_edges(variant, shoe_id=request.shoe_id, round_no=request.round_no, left=left)
    )
    patterns: tuple[ShufflePattern, ...] = ()
    if request.sequence:
        limits = shuffle_limits(variant.decks, settings.shuffle_false_alarm_rate)
        patterns = check_shuffle(request.sequence, limits)
    repeats: tuple[ShoeRepeated, ...] = ()
    if request.past:
        check = RepeatCheck(
            decks=variant.decks, false_alarm_rate=settings.repeat_false_alarm_rate
        )
        repeats = check_repeated(request.shoe_id, request.sequence, request.past, check)
    return Analysis(request=request, edges=edges, patterns=patterns, repeats=repeats)


def warm_up(variant: Variant, settings: AdvisorSettings | None = None) -> None:
    """Compute once, before play, what a process's first assessment would otherwise compute.

    The drawing rules folded into the analyser's tables, and the shuffle checks' run limits
    for the variant's decks and the configured false-alarm rate (exact probabilities): about
    0.3 s together. Both are kept for the life of the process; the runtime calls this before
    the table reads its first input, so that no card's event waits for them.
    """
    settings = settings or AdvisorSettings()
    left = shoe_left(variant.decks, ())
    if not isinstance(left, ImpossibleCount):  # an empty list of cards out never is
        round_edges(variant, shoe_id="warm-up", round_no=1, left=left)
    if variant.reshuffle is not Reshuffle.EVERY_ROUND:  # such a shoe is never checked
        shuffle_limits(variant.decks, settings.shuffle_false_alarm_rate)


def _json_number(value: Fraction) -> float:
    return float(value)


def odds_payload(edges: RoundEdges, offered: frozenset[str]) -> Odds:
    """The ``<root>/odds`` payload: each bet's exact odds as JSON numbers, and if offered."""
    return Odds(
        shoe_id=edges.shoe_id,
        round_no=edges.round_no,
        cards_left=edges.cards_left,
        bets={
            bet_id: BetOdds(
                ev=_json_number(odds.ev),
                house_edge=_json_number(odds.house_edge),
                rtp=_json_number(odds.rtp),
                probabilities={
                    name: _json_number(chance) for name, chance in odds.probabilities.items()
                },
                offered=bet_id in offered,
            )
            for bet_id, odds in edges.bets.items()
        },
    )


def _json_details(details: Mapping[str, object]) -> dict[str, object]:
    return {
        key: _json_number(value) if isinstance(value, Fraction) else value
        for key, value in details.items()
    }


class RoundAdvisor:
    """One table's advisor: follows the inputs, asks for and concludes assessments."""

    def __init__(self, variant: Variant, settings: AdvisorSettings | None = None) -> None:
        self.variant = variant
        self.settings = settings or AdvisorSettings()
        self._every_round = variant.reshuffle is Reshuffle.EVERY_ROUND
        self._shoe_id: str | None = None
        self._sequence: list[Card | None] = []
        self._past: deque[PastShoe] = deque(maxlen=self.settings.past_shoes)
        #: The last state assessed: (shoe_id, next round, cards out).
        self._assessed_key: tuple[str, int, int] | None = None
        #: Bets below the threshold at the last assessment of this shoe (edge crossings).
        self._below: frozenset[str] = frozenset()
        #: Alarm keys raised for this shoe (shuffle pattern kinds, repeated shoe).
        self._raised: set[str] = set()
        self._repeat_checked = False

    # --- following the table --------------------------------------------------------------

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The table took ``event`` (live or replayed); ``state`` is its snapshot after it."""
        shoe_id = state.state.shoe_id
        if shoe_id is not None and shoe_id != self._shoe_id:
            self._new_shoe(shoe_id)
        match event:
            case CardDrawn(card=card) | EnterCard(card=card) if shoe_id is not None:
                if isinstance(event, CardDrawn):
                    self._sequence.append(card)
                elif None in self._sequence:  # a card entered for one that left unread
                    self._sequence[len(self._sequence) - 1 - self._sequence[::-1].index(None)] = (
                        card
                    )
            case CardMisread() if shoe_id is not None:
                self._sequence.append(None)
            case RoundAssessed():
                self._learn(event)
            case _:
                pass

    def _new_shoe(self, shoe_id: str) -> None:
        if self._shoe_id is not None and self._sequence:
            self._past.append(PastShoe(shoe_id=self._shoe_id, cards=tuple(self._sequence)))
        self._shoe_id = shoe_id
        self._sequence = []
        self._below = frozenset()
        self._raised = set()
        self._repeat_checked = False

    def _learn(self, event: RoundAssessed) -> None:
        """What an assessment (live or from the journal) settled: alarms raised, bets below."""
        if event.shoe_id != self._shoe_id:
            return
        for alarm in event.alarms:
            self._raised.add(_raised_key(alarm.code, alarm.details))
            if alarm.code == AlarmCode.SHOE_REPEATED.value:
                self._repeat_checked = True
        if event.odds is not None:
            candidates = self._candidates(event.round_no)
            self._below = _below_in(event.odds, candidates, self.settings.edge_threshold)

    # --- assessing ----------------------------------------------------------------------------

    def warm_up(self) -> None:
        """What this table's first assessment would compute, computed now (:func:`warm_up`)."""
        warm_up(self.variant, self.settings)

    def assess(self, count: ShoeCount | None, *, at: float) -> RoundAssessed | None:
        """The assessment due now, analysed and concluded at once; None if none is due.

        The same steps as the runtime's (:meth:`request`, :func:`analyse_request`,
        :meth:`conclude`), on the caller's thread: ``replay`` runs it after each input.
        """
        request = self.request(count)
        if request is None:
            return None
        return self.conclude(analyse_request(request), at=at)

    def request(self, count: ShoeCount | None) -> AssessmentRequest | None:
        """An assessment to run now, or None (mid-round, no shoe, or nothing new).

        The only test of whether one is due: the live service and ``replay`` both ask here
        after each input the table took.
        """
        if count is None or not count.between_rounds or count.shoe_id != self._shoe_id:
            return None
        cards_out = sum(n for _, n in count.seen) + count.unread
        key = (count.shoe_id, count.next_round_no, cards_out)
        if key == self._assessed_key:
            return None
        self._assessed_key = key
        gone: tuple[Card | None, ...] = ()
        if not self._every_round:
            gone = tuple(card for card, n in count.seen for _ in range(n)) + (None,) * count.unread
        opening = RepeatCheck(decks=self.variant.decks).opening_cards
        check_repeat = (
            not self._every_round
            and not self._repeat_checked
            and len(self._sequence) >= opening
            and bool(self._past)
        )
        if check_repeat:
            self._repeat_checked = True
        return AssessmentRequest(
            variant=self.variant,
            settings=self.settings,
            shoe_id=count.shoe_id,
            round_no=count.next_round_no,
            gone=gone,
            sequence=() if self._every_round else tuple(self._sequence),
            past=tuple(self._past) if check_repeat else (),
        )

    def _candidates(self, round_no: int) -> frozenset[str]:
        """The bets that would be offered on a round before their edge is considered."""
        windows = self.settings.dynamic_windows
        if windows is None:
            return frozenset(self.variant.offered_on(round_no))
        return frozenset(windows.candidates(self.variant, round_no))

    def _odds_and_offer(
        self, edges: RoundEdges, alarms: list[AssessmentAlarm]
    ) -> tuple[Odds, RoundOffer | None]:
        """The odds payload and dynamic windows' offer; adds an alarm per new edge crossing."""
        candidates = self._candidates(edges.round_no)
        threshold = self.settings.edge_threshold
        alarms.extend(
            AssessmentAlarm(code=AlarmCode.EDGE_POSITIVE.value, message=finding.message,
                            details=_json_details(finding.alarm_details()))
            for finding in positive_edges(edges, candidates, threshold=threshold)
            if finding.bet_id not in self._below
        )  # fmt: skip
        windows = self.settings.dynamic_windows
        if windows is None:
            return odds_payload(edges, candidates), None
        offer = windows.decide(
            self.variant, shoe_id=edges.shoe_id, round_no=edges.round_no, edges=edges
        )
        return odds_payload(edges, frozenset(offer.offered)), offer

    def conclude(self, analysis: Analysis, *, at: float) -> RoundAssessed | None:
        """The input for the procedure; None if the table moved to another shoe meanwhile."""
        request = analysis.request
        if request.shoe_id != self._shoe_id:
            return None
        alarms: list[AssessmentAlarm] = []
        odds: Odds | None = None
        offer: RoundOffer | None = None
        edges = analysis.edges
        if isinstance(edges, ImpossibleCount):
            key = _raised_key(AlarmCode.IMPOSSIBLE_COUNT.value, {})
            if key not in self._raised:
                alarms.append(AssessmentAlarm(code=AlarmCode.IMPOSSIBLE_COUNT.value,
                                              message=f"impossible card count: {edges.message}",
                                              details={"seen": edges.seen, "held": edges.held}))
        elif isinstance(edges, RoundEdges):
            odds, offer = self._odds_and_offer(edges, alarms)
        for pattern in analysis.patterns:
            details = _json_details(pattern.alarm_details())
            if _raised_key(AlarmCode.SHUFFLE_PATTERN.value, details) not in self._raised:
                alarms.append(AssessmentAlarm(code=AlarmCode.SHUFFLE_PATTERN.value,
                                              message=pattern.message, details=details))
        for repeat in analysis.repeats[:1]:  # the strongest evidence is enough
            details = _json_details(repeat.alarm_details())
            alarms.append(AssessmentAlarm(code=AlarmCode.SHOE_REPEATED.value,
                                          message=repeat.message, details=details))
        if odds is None and not alarms:
            return None
        assessed = RoundAssessed(
            at=at,
            shoe_id=request.shoe_id,
            round_no=request.round_no,
            odds=odds,
            alarms=tuple(alarms),
            offer=None if offer is None else offer.offered,
            suspended=()
            if offer is None
            else tuple((s.bet_id, float(s.house_edge)) for s in offer.suspended),
        )
        self._learn(assessed)  # at once: a second assessment before this one is handled
        return assessed


def _raised_key(code: str, details: Mapping[str, object]) -> str:
    """Which alarm a finding is, for raising it once a shoe (a pattern once per kind)."""
    if code == AlarmCode.SHUFFLE_PATTERN.value:
        return f"{code}:{details.get('kind')}"
    return code


def _below_in(odds: Odds, candidates: frozenset[str], threshold: Fraction) -> frozenset[str]:
    """The candidate bets whose published house edge is below the threshold."""
    return frozenset(
        bet_id
        for bet_id, value in odds.bets.items()
        if bet_id in candidates and Fraction(value.house_edge) < threshold
    )
