# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The built-in game variants as data (game-rules.md section 4) and round settlement.

Pure: no I/O, no clock, no randomness.

A variant is its number of decks, whether a new shoe is burned, when the cards are
reshuffled, and its bet menu: for each bet, the pay table (tier -> net payout "to one") and
the rounds of the shoe on which it is offered. A bet's pay table is the catalogue's default
(``bets.py``) unless a variant says otherwise; the main bets are paid one of three ways
(:class:`MainBets`). Every figure here is a default that an operator may override, and an
operator may compose variants of their own from the same parts
(``table_controller/variant_file.py``).
"""

from __future__ import annotations

import enum
import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Final, TypeAlias, TypeVar

from table_controller.rules.bets import (
    BETS,
    THREE_CARD_7,
    WIN,
    WIN_ON_6,
    CoupBet,
    OpeningBet,
    net_result,
    verdict,
)
from table_controller.rules.tableau import Coup, Hand, Outcome

#: A bet rule of either kind (a coup bet or an opening bet).
_RuleT = TypeVar("_RuleT", CoupBet, OpeningBet)

#: The settlement value of a bet outside its window (mqtt-api.md, ``round_result``).
NOT_OFFERED: Final = "not_offered"
#: The latest round number a side-bet window may name; no shoe deals more rounds.
MAX_ROUND = 200
#: A variant's name: it is the ``variant`` setting and the ``variant`` of the MQTT messages.
VARIANT_NAME_PATTERN: Final = r"^[a-z][a-z0-9_]{0,31}$"


class Reshuffle(enum.StrEnum):
    """When the cards are shuffled again."""

    CUT_CARD = "cut_card"
    EVERY_ROUND = "every_round"


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """Rounds ``first`` to ``last`` of a shoe, both included (rounds count from 1)."""

    first: int
    last: int

    def __post_init__(self) -> None:
        if not 1 <= self.first <= self.last <= MAX_ROUND:
            raise ValueError(f"window must satisfy 1 <= first <= last <= {MAX_ROUND}")

    def __contains__(self, round_no: object) -> bool:
        return isinstance(round_no, int) and self.first <= round_no <= self.last


@dataclass(frozen=True, slots=True, kw_only=True)
class BetOffer:
    """One bet on a variant's menu: its pay table and the rounds it is offered on."""

    bet_id: str
    payouts: Mapping[str, Fraction]
    window: Window | None = None  # None: every round

    def __post_init__(self) -> None:
        rule = BETS.get(self.bet_id)
        if rule is None:
            raise ValueError(f"unknown bet {self.bet_id!r}")
        if set(self.payouts) != set(rule.tiers):
            raise ValueError(
                f"bet {self.bet_id!r} needs payouts for tiers {sorted(rule.tiers)}, "
                f"got {sorted(self.payouts)}"
            )
        for tier, payout in self.payouts.items():
            if not isinstance(payout, Fraction) or payout < 0:
                raise ValueError(f"bet {self.bet_id!r} tier {tier!r}: payout must be >= 0")


#: One offered bet of a round's menu: its id, rule and pay table.
_Priced: TypeAlias = tuple[str, _RuleT, Mapping[str, Fraction]]


@dataclass(frozen=True, slots=True, kw_only=True)
class _RoundMenu:
    """A variant's bet menu on one round, worked out once for every round alike, and settled.

    The main bets' results depend on the coup's :class:`~table_controller.rules.tableau.Outcome`
    alone (``bets.py``), and a coup has one of at most 400 outcomes; so :meth:`settle` works
    them out once per outcome and keeps them (a memo, bounded, that changes no result).
    """

    #: Every bet of the variant, in menu order.
    bet_ids: tuple[str, ...]
    #: The bets taken on the round, in menu order.
    offered: tuple[str, ...]
    coup_bets: tuple[_Priced[CoupBet], ...]
    opening_bets: tuple[_Priced[OpeningBet], ...]
    _by_outcome: dict[Outcome, dict[str, Fraction | str]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def settle(self, coup: Coup) -> dict[str, Fraction | str]:
        """Every bet of the variant: its net result, or ``not_offered`` outside its window."""
        outcome = coup.outcome
        main = self._by_outcome.get(outcome)
        if main is None:
            # Every bet in menu order; an opening bet's place is filled for each coup below.
            main = dict.fromkeys(self.bet_ids, NOT_OFFERED)
            for bet_id, coup_bet, payouts in self.coup_bets:
                main[bet_id] = net_result(verdict(coup_bet, coup), payouts)
            self._by_outcome[outcome] = main
        settlement = main.copy()
        if self.opening_bets:
            openings = {Hand.PLAYER: coup.player_opening, Hand.BANKER: coup.banker_opening}
            for bet_id, opening_bet, payouts in self.opening_bets:
                settlement[bet_id] = net_result(opening_bet.decide(openings[opening_bet.hand]),
                                                payouts)
        return settlement


def _round_menu(bets: Iterable[BetOffer], round_no: int, *, virtual: bool) -> _RoundMenu:
    offered = [
        offer for offer in bets if virtual or offer.window is None or round_no in offer.window
    ]
    coup_bets: list[_Priced[CoupBet]] = []
    opening_bets: list[_Priced[OpeningBet]] = []
    for offer in offered:
        rule = BETS[offer.bet_id]
        if isinstance(rule, CoupBet):
            coup_bets.append((offer.bet_id, rule, offer.payouts))
        else:
            opening_bets.append((offer.bet_id, rule, offer.payouts))
    return _RoundMenu(
        bet_ids=tuple(offer.bet_id for offer in bets),
        offered=tuple(offer.bet_id for offer in offered),
        coup_bets=tuple(coup_bets),
        opening_bets=tuple(opening_bets),
    )


def _round_menus(bets: tuple[BetOffer, ...], *, virtual: bool) -> tuple[_RoundMenu, ...]:
    """The menu of each round from 0 to ``MAX_ROUND + 1``, indexed by round number.

    Windows lie within rounds 1 to ``MAX_ROUND``, so round 0 (and below) offers what round 0
    offers and any round after ``MAX_ROUND`` what round ``MAX_ROUND + 1`` offers. The menu
    changes only where a window starts or ends: one menu is built per stretch between.
    """
    changes = {0, MAX_ROUND + 1}
    for offer in bets:
        if offer.window is not None:
            changes.update((offer.window.first, offer.window.last + 1))
    menus: list[_RoundMenu] = []
    for start, end in itertools.pairwise([*sorted(changes), MAX_ROUND + 2]):
        menus.extend([_round_menu(bets, start, virtual=virtual)] * (end - start))
    return tuple(menus)


@dataclass(frozen=True, slots=True, kw_only=True)
class Variant:
    """A game variant: shoe, procedures that differ, and its bet menu."""

    name: str
    title: str
    decks: int
    burn: bool
    reshuffle: Reshuffle
    bets: tuple[BetOffer, ...]
    #: A virtual (RNG) table offers every bet on every round.
    virtual: bool = False
    _by_id: Mapping[str, BetOffer] = field(init=False, repr=False, compare=False)
    #: The menu of each round, by round number (see :func:`_round_menus`).
    _menus: tuple[_RoundMenu, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.decks < 1:
            raise ValueError("a variant needs at least one deck")
        by_id = {offer.bet_id: offer for offer in self.bets}
        if len(by_id) != len(self.bets):
            raise ValueError(f"variant {self.name!r} lists a bet twice")
        object.__setattr__(self, "_by_id", by_id)
        object.__setattr__(self, "_menus", _round_menus(self.bets, virtual=self.virtual))

    @property
    def bet_ids(self) -> tuple[str, ...]:
        return tuple(offer.bet_id for offer in self.bets)

    def offer(self, bet_id: str) -> BetOffer:
        """The offer of one bet; ``KeyError`` if the variant has no such bet."""
        return self._by_id[bet_id]

    def offered(self, bet_id: str, round_no: int) -> bool:
        """Whether the bet is taken on this round of the shoe."""
        window = self._by_id[bet_id].window
        return self.virtual or window is None or round_no in window

    def offered_on(self, round_no: int) -> tuple[str, ...]:
        """The bets taken on this round, in menu order."""
        return self._menu(round_no).offered

    def _menu(self, round_no: int) -> _RoundMenu:
        if 0 <= round_no <= MAX_ROUND:
            return self._menus[round_no]
        return self._menus[0 if round_no < 0 else MAX_ROUND + 1]

    def as_virtual(self) -> Variant:
        """The same variant on an RNG table: no side-bet windows."""
        return replace(self, virtual=True)

    @property
    def cards(self) -> int:
        """Cards in a full shoe."""
        return self.decks * 52


def rules_digest(variant: Variant) -> str:
    """SHA-256 (hex) of what settles the variant's rounds: shoe, menu, pay tables and windows.

    Not its name or title, nor whether a virtual table deals it (that is the card source's).
    A journal's start row carries it, so that a replay can tell it is given the same rules.
    """
    rules = {
        "decks": variant.decks,
        "burn": variant.burn,
        "reshuffle": variant.reshuffle.value,
        "bets": [
            [
                offer.bet_id,
                {tier: str(pays) for tier, pays in offer.payouts.items()},
                None if offer.window is None else [offer.window.first, offer.window.last],
            ]
            for offer in variant.bets
        ],
    }
    text = json.dumps(rules, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def settle_round(variant: Variant, coup: Coup, round_no: int) -> dict[str, Fraction | str]:
    """Every bet of the variant: its net result, or ``not_offered`` outside its window."""
    return variant._menu(round_no).settle(coup)  # noqa: SLF001 - this module's own


def default_offer(
    bet_id: str, window: Window | None = None, payouts: Mapping[str, Fraction] | None = None
) -> BetOffer:
    """A bet on the catalogue's default pay table, with the tiers ``payouts`` names changed."""
    return BetOffer(
        bet_id=bet_id,
        payouts={**BETS[bet_id].default_payouts, **(payouts or {})},
        window=window,
    )


def _offer(
    bet_id: str, window: tuple[int, int] | None = None, **payouts: Fraction | int
) -> BetOffer:
    return default_offer(
        bet_id,
        None if window is None else Window(first=window[0], last=window[1]),
        {tier: Fraction(value) for tier, value in payouts.items()},
    )


_HALF = Fraction(1, 2)


class MainBets(enum.StrEnum):
    """How a variant pays its main bets: Player, Banker (by tier) and Tie."""

    #: Banker pays 0.95 on every win.
    COMMISSION = "commission"
    #: Banker pays 1, but 0.5 on a win with 6.
    NO_COMMISSION = "no_commission"
    #: EZ Baccarat: Banker pays 1, and a win with a three-card 7 pushes.
    EZ = "ez"


#: The Banker's pay table of each kind of main bets (``bets.py``: the Banker's tiers).
_BANKER_PAYS: Mapping[MainBets, Mapping[str, Fraction]] = {
    MainBets.COMMISSION: {},  # the catalogue's default
    MainBets.NO_COMMISSION: {WIN: Fraction(1), WIN_ON_6: _HALF, THREE_CARD_7: Fraction(1)},
    MainBets.EZ: {WIN: Fraction(1), WIN_ON_6: Fraction(1), THREE_CARD_7: Fraction(0)},
}


def main_bets(kind: MainBets) -> tuple[BetOffer, BetOffer, BetOffer]:
    """Player, Banker and Tie, every round, as ``kind`` pays them."""
    return (
        default_offer("player"),
        default_offer("banker", payouts=_BANKER_PAYS[kind]),
        default_offer("tie"),
    )


def _per_hand(
    template: str, window: tuple[int, int], **payouts: Fraction | int
) -> tuple[BetOffer, ...]:
    return tuple(
        _offer(template.format(hand=hand), window, **payouts) for hand in ("player", "banker")
    )


def _cut_card_shoe(name: str, title: str, *bets: BetOffer) -> Variant:
    """A live table's variant: eight decks, a burn at each shoe, reshuffled at the cut card."""
    return Variant(
        name=name, title=title, decks=8, burn=True, reshuffle=Reshuffle.CUT_CARD, bets=bets
    )


#: The pair bets of the live variants.
_PAIRS = _per_hand("{hand}_pair", (1, 60))
#: The pair and Big/Small side bets shared by Standard and Super Six.
_PAIRS_BIG_SMALL = (*_PAIRS, _offer("big", (1, 30)), _offer("small", (1, 30)))

COMMISSION = _cut_card_shoe(
    "commission",
    "Standard Baccarat",
    *main_bets(MainBets.COMMISSION),
    *_PAIRS_BIG_SMALL,
    *_per_hand("{hand}_natural_8", (1, 60)),
    *_per_hand("{hand}_natural_9", (1, 60)),
    _offer("super_6_plus", (1, 60)),
)

SUPER_SIX = _cut_card_shoe(
    "super_six",
    "Classic Super Six (no commission)",
    *main_bets(MainBets.NO_COMMISSION),
    *_PAIRS_BIG_SMALL,
    _offer("super_six"),
)

LUCKY = _cut_card_shoe(
    "lucky",
    "Lucky Baccarat (no commission)",
    *main_bets(MainBets.NO_COMMISSION),
    *_per_hand("{hand}_red", (1, 40)),
    *_per_hand("{hand}_black", (1, 40)),
    _offer("lucky_6", (1, 30)),
    *_per_hand("{hand}_lucky_pair", (1, 60)),
    *(_offer(f"{hand}_wins_on_{group}", (1, 40)) for hand in ("player", "banker")
      for group in ("123", "456", "789")),
    *(_offer(f"tie_on_{group}", (1, 40)) for group in ("0123", "456", "789")),
)  # fmt: skip

MINI = Variant(
    name="mini",
    title="Mini Baccarat (virtual)",
    decks=6,
    burn=False,
    reshuffle=Reshuffle.EVERY_ROUND,
    bets=main_bets(MainBets.COMMISSION),
    virtual=True,
)

EZ = _cut_card_shoe(
    "ez",
    "EZ Baccarat (no commission)",
    *main_bets(MainBets.EZ),
    *_PAIRS,
    _offer("dragon_7"),
    _offer("panda_8"),
)

#: The built-in variants by name.
VARIANTS: Mapping[str, Variant] = {
    variant.name: variant for variant in (COMMISSION, SUPER_SIX, LUCKY, MINI, EZ)
}
