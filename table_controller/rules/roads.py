# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The scoreboards of a shoe: bead plate, Big Road, derived roads, "ask" marks and statistics.

Pure: no I/O, no clock, no randomness. Imports only the standard library and
``table_controller.rules``.

Theory of operation (mqtt-api.md, ``roads``):

- The **bead plate** is every settled round in order, ties included.
- The **Big Road** is kept as *logical* columns: a banker or player result opens a new column
  when the winner differs from the last column's, else it goes one row down. A tie opens no
  cell: it is counted on the last cell; ties before the first banker or player result are held
  and counted on the first cell when it comes. A cell carries the pairs of the round that made it.
- The **derived roads** (Big Eye Boy, Small Road, Cockroach Pig, with lag ``k`` = 1, 2, 3) get
  one mark for each new Big Road cell, read from the lengths of the Big Road's logical columns,
  never from a drawn grid. For a new cell at column ``c``, row ``r`` (both from 0):

  * ``r == 0`` (a new column): compare columns ``c - 1`` and ``c - 1 - k``; equal lengths give
    red, different lengths blue;
  * ``r >= 1``: look at column ``c - k``; if it reaches row ``r`` (length > ``r``), red; if it
    ends exactly one row above (length == ``r``), blue; if it is shorter still, red.

  A road gets no mark while the column it needs does not exist, so Big Eye Boy starts at
  column 2 row 2 of the Big Road (or column 3 row 1 when column 2 holds one cell), Small Road
  one column later and Cockroach Pig two. Each derived road is itself kept as logical columns:
  a new column whenever the colour changes.
- **Ask banker / ask player** is the mark each derived road would get from the next result,
  computed from the same column lengths without touching the board.

Recording a result costs O(1) (amortised): it appends to lists and reads at most three column
lengths, whatever the round number. The roads are kept in their published form: every bead,
cell and mark is built once, when its round is recorded, so :meth:`Scoreboard.payload` only
copies lists and does not rebuild the shoe's history each round. A voided round is never
recorded; a corrected result is handled by building a new board from the corrected rounds
(:meth:`Scoreboard.from_entries`). A display lays the logical columns out on its drawn grid with
:func:`layout_grid`.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NotRequired, Self, TypedDict, TypeVar

from table_controller.rules.tableau import Coup, Winner

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

#: How each winner is written on the bead plate and the Big Road (mqtt-api.md, ``roads``).
WINNER_LETTERS: dict[Winner, str] = {Winner.BANKER: "B", Winner.PLAYER: "P", Winner.TIE: "T"}
#: And back, to read a published cell as a :class:`BigRoadCell`.
_LETTER_WINNERS: dict[str, Winner] = {letter: winner for winner, letter in WINNER_LETTERS.items()}
#: Rows of the drawn grid of a usual scoreboard display.
DEFAULT_GRID_ROWS = 6


class RoadColour(enum.StrEnum):
    """The mark of a derived road: red when the Big Road repeats its shape, blue when not."""

    RED = "red"
    BLUE = "blue"


class DerivedRoad(enum.StrEnum):
    """The three roads derived from the Big Road, named as in the ``roads`` payload."""

    BIG_EYE_BOY = "big_eye_boy"
    SMALL_ROAD = "small_road"
    COCKROACH_PIG = "cockroach_pig"

    @property
    def lag(self) -> int:
        """How many Big Road columns back this road compares with (1, 2 or 3)."""
        return _LAGS[self]


_LAGS: dict[DerivedRoad, int] = {
    DerivedRoad.BIG_EYE_BOY: 1,
    DerivedRoad.SMALL_ROAD: 2,
    DerivedRoad.COCKROACH_PIG: 3,
}
#: Every derived road with its payload name and lag, in payload order (read on the hot path
#: instead of iterating the enum and its ``value``).
_ROADS: tuple[tuple[DerivedRoad, str, int], ...] = tuple(
    (road, road.value, _LAGS[road]) for road in DerivedRoad
)
_ROAD_NAMES: tuple[str, ...] = tuple(name for _, name, _ in _ROADS)
_BIG_EYE_BOY_LAG, _SMALL_ROAD_LAG, _COCKROACH_PIG_LAG = (lag for _, _, lag in _ROADS)
#: What a tie asks: no mark on any road.
_NO_MARKS: tuple[None, None, None] = (None, None, None)
#: Each mark as published.
_COLOUR_TEXT: dict[RoadColour, str] = {colour: colour.value for colour in RoadColour}
#: The same, and no mark as ``None`` (what ``derived_mark`` returns when a road has none).
_MARK_TEXT: dict[RoadColour | None, str | None] = {
    mark: None if mark is None else mark.value for mark in (None, *RoadColour)
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RoadEntry:
    """What the scoreboards need from one settled round."""

    winner: Winner
    player_pair: bool
    banker_pair: bool
    natural: bool
    player_total: int
    banker_total: int

    def __post_init__(self) -> None:
        for total in (self.player_total, self.banker_total):
            if not 0 <= total <= 9:
                raise ValueError(f"a hand total is 0 to 9, not {total}")

    @classmethod
    def from_coup(cls, coup: Coup) -> Self:
        """The entry of a finished coup."""
        outcome = coup.outcome
        return cls(
            winner=outcome.winner,
            player_pair=coup.player_pair,
            banker_pair=coup.banker_pair,
            natural=outcome.natural,
            player_total=outcome.player_total,
            banker_total=outcome.banker_total,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class BigRoadCell:
    """One cell of the Big Road: a banker or player win and the ties counted on it."""

    winner: Winner
    ties: int
    player_pair: bool
    banker_pair: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeStats:
    """Counts over the rounds recorded so far in the shoe."""

    banker: int = 0
    player: int = 0
    tie: int = 0
    banker_pair: int = 0
    player_pair: int = 0
    natural: int = 0

    @property
    def rounds(self) -> int:
        """Every recorded round, ties included."""
        return self.banker + self.player + self.tie


_TALLY_KEYS = tuple(field.name for field in dataclasses.fields(ShoeStats))
#: The tally key that each winner counts on (the same text as the winner's value).
_WINNER_TALLY: dict[Winner, str] = {winner: winner.value for winner in Winner}


class BeadPayload(TypedDict):
    """One bead: the pair and natural flags are present only when true."""

    winner: str
    banker_pair: NotRequired[bool]
    player_pair: NotRequired[bool]
    natural: NotRequired[bool]


class BigRoadCellPayload(TypedDict):
    """One Big Road cell as published."""

    winner: str
    ties: int
    banker_pair: bool
    player_pair: bool


class StatsPayload(TypedDict):
    """The shoe statistics as published: the spec's counts plus naturals, rounds, cards left."""

    banker: int
    player: int
    tie: int
    banker_pair: int
    player_pair: int
    natural: int
    rounds: int
    cards_left: int | None


class RoadsPayload(TypedDict):
    """The ``roads`` message of mqtt-api.md (without the envelope: schema, table, seq, ts)."""

    type: Literal["roads"]
    shoe_id: str
    bead_plate: list[BeadPayload]
    big_road: list[list[BigRoadCellPayload]]
    big_eye_boy: list[list[str]]
    small_road: list[list[str]]
    cockroach_pig: list[list[str]]
    ask_banker: dict[str, str | None]
    ask_player: dict[str, str | None]
    stats: StatsPayload


def derived_mark(
    column_lengths: Sequence[int], column: int, row: int, lag: int
) -> RoadColour | None:
    """The mark a derived road gets for a Big Road cell at ``column``, ``row`` (from 0).

    Only the lengths of the columns before ``column`` are read, so the cell need not be on
    the board yet. ``None`` when the road has no column to compare with yet.
    """
    if row == 0:
        earlier = column - 1 - lag
        if earlier < 0:
            return None
        same = column_lengths[column - 1] == column_lengths[earlier]
        return RoadColour.RED if same else RoadColour.BLUE
    compared = column - lag
    if compared < 0:
        return None
    return RoadColour.BLUE if column_lengths[compared] == row else RoadColour.RED


class Scoreboard:
    """The scoreboards of one shoe, updated one settled round at a time.

    The roads are kept as they are published (bead and cell dicts, mark texts), each built once
    when its round is recorded, so that :meth:`payload` copies lists and builds nothing new;
    :attr:`big_road` and :meth:`derived_road` read them back as typed values.
    """

    __slots__ = ("_beads", "_big_road", "_derived", "_entries", "_last_winner", "_lengths",
                 "_pending_ties", "_tally")

    def __init__(self) -> None:
        self._entries: list[RoadEntry] = []
        self._beads: list[BeadPayload] = []
        #: The Big Road's logical columns; a cell a tie counts on is replaced, never changed.
        self._big_road: list[list[BigRoadCellPayload]] = []
        self._lengths: list[int] = []
        self._last_winner: Winner | None = None
        self._pending_ties = 0
        self._derived: dict[DerivedRoad, list[list[str]]] = {road: [] for road in DerivedRoad}
        self._tally = dict.fromkeys(_TALLY_KEYS, 0)

    @classmethod
    def from_entries(cls, entries: Iterable[RoadEntry]) -> Self:
        """A board with these rounds recorded in order (after a correction, say)."""
        board = cls()
        for entry in entries:
            board.record(entry)
        return board

    def record(self, entry: RoadEntry) -> None:
        """Add one settled round to every scoreboard."""
        self._entries.append(entry)
        self._beads.append(_bead_payload(entry))
        self._count(entry)
        winner = entry.winner
        if winner is Winner.TIE:
            self._count_tie()
            return
        column, row = self._next_cell(winner)
        cell: BigRoadCellPayload = {
            "winner": WINNER_LETTERS[winner],
            "ties": self._pending_ties,
            "banker_pair": entry.banker_pair,
            "player_pair": entry.player_pair,
        }
        self._pending_ties = 0
        self._last_winner = winner
        if row == 0:
            self._big_road.append([cell])
            self._lengths.append(1)
        else:
            self._big_road[-1].append(cell)
            self._lengths[-1] += 1
        lengths = self._lengths  # a mark reads only the columns before the new cell's
        for road, _, lag in _ROADS:
            mark = derived_mark(lengths, column, row, lag)
            if mark is not None:
                _add_mark(self._derived[road], _COLOUR_TEXT[mark])

    def ask(self, winner: Winner) -> dict[str, str | None]:
        """The mark each derived road would get if the next result were ``winner``.

        The board is not changed. A tie adds no Big Road cell, so it asks nothing: all ``None``.
        """
        return dict(zip(_ROAD_NAMES, self.ask_marks(winner), strict=True))

    def ask_marks(self, winner: Winner) -> tuple[str | None, str | None, str | None]:
        """:meth:`ask`'s marks alone, in payload order: Big Eye Boy, Small Road, Cockroach Pig."""
        if winner is Winner.TIE:
            return _NO_MARKS
        column, row = self._next_cell(winner)
        lengths = self._lengths
        return (_MARK_TEXT[derived_mark(lengths, column, row, _BIG_EYE_BOY_LAG)],
                _MARK_TEXT[derived_mark(lengths, column, row, _SMALL_ROAD_LAG)],
                _MARK_TEXT[derived_mark(lengths, column, row, _COCKROACH_PIG_LAG)])

    def payload(self, shoe_id: str, cards_left: int | None) -> RoadsPayload:
        """The ``roads`` message of mqtt-api.md for this board.

        Its top-level lists and each road's last (still open) column are its own; the closed
        columns and the bead and cell dicts are shared with the board and with later payloads.
        None of them is ever changed once published: read a payload, do not edit it. The
        ``published_*`` methods give the same parts one at a time.
        """
        return {
            "type": "roads",
            "shoe_id": shoe_id,
            "bead_plate": self.published_beads(),
            "big_road": self.published_big_road(),
            "big_eye_boy": self.published_derived(DerivedRoad.BIG_EYE_BOY),
            "small_road": self.published_derived(DerivedRoad.SMALL_ROAD),
            "cockroach_pig": self.published_derived(DerivedRoad.COCKROACH_PIG),
            "ask_banker": self.ask(Winner.BANKER),
            "ask_player": self.ask(Winner.PLAYER),
            "stats": self.published_stats(cards_left),
        }

    def published_beads(self) -> list[BeadPayload]:
        """The bead plate as published (the bead dicts are shared: do not edit them)."""
        return self._beads.copy()

    def published_big_road(self) -> list[list[BigRoadCellPayload]]:
        """The Big Road's columns as published (closed columns shared: do not edit them)."""
        return _copy_columns(self._big_road)

    def published_derived(self, road: DerivedRoad) -> list[list[str]]:
        """One derived road's columns as published (closed columns shared: do not edit them)."""
        return _copy_columns(self._derived[road])

    def published_stats(self, cards_left: int | None) -> StatsPayload:
        """The statistics as published, with the cards left in the shoe."""
        tally = self._tally
        return {
            "banker": tally["banker"],
            "player": tally["player"],
            "tie": tally["tie"],
            "banker_pair": tally["banker_pair"],
            "player_pair": tally["player_pair"],
            "natural": tally["natural"],
            "rounds": tally["banker"] + tally["player"] + tally["tie"],
            "cards_left": cards_left,
        }

    @property
    def entries(self) -> tuple[RoadEntry, ...]:
        """The bead plate: every recorded round in order."""
        return tuple(self._entries)

    @property
    def big_road(self) -> tuple[tuple[BigRoadCell, ...], ...]:
        """The Big Road's logical columns."""
        return tuple(tuple(_big_road_cell(cell) for cell in column) for column in self._big_road)

    @property
    def pending_ties(self) -> int:
        """Ties recorded before the first banker or player result, not yet on any cell."""
        return self._pending_ties

    @property
    def stats(self) -> ShoeStats:
        """Wins by side, ties, pairs and naturals so far."""
        return ShoeStats(**self._tally)

    def derived_road(self, road: DerivedRoad) -> tuple[tuple[RoadColour, ...], ...]:
        """One derived road's logical columns (a new column whenever the colour changes)."""
        return tuple(tuple(RoadColour(mark) for mark in column) for column in self._derived[road])

    def _count(self, entry: RoadEntry) -> None:
        tally = self._tally
        tally[_WINNER_TALLY[entry.winner]] += 1
        tally["banker_pair"] += entry.banker_pair
        tally["player_pair"] += entry.player_pair
        tally["natural"] += entry.natural

    def _count_tie(self) -> None:
        if not self._big_road:
            self._pending_ties += 1
            return
        last_column = self._big_road[-1]
        cell = last_column[-1]
        last_column[-1] = {  # a new dict: the old one may be in a payload already
            "winner": cell["winner"],
            "ties": cell["ties"] + 1,
            "banker_pair": cell["banker_pair"],
            "player_pair": cell["player_pair"],
        }

    def _next_cell(self, winner: Winner) -> tuple[int, int]:
        """Where a banker or player result would go on the Big Road: (column, row), from 0."""
        if self._last_winner is None:
            return 0, 0
        if self._last_winner is winner:
            return len(self._big_road) - 1, self._lengths[-1]
        return len(self._big_road), 0


def _add_mark(columns: list[list[str]], mark: str) -> None:
    """Put a mark on a derived road: below the last one if the same colour, else in a new column."""
    if columns and columns[-1][-1] == mark:
        columns[-1].append(mark)
    else:
        columns.append([mark])


def _big_road_cell(cell: BigRoadCellPayload) -> BigRoadCell:
    return BigRoadCell(
        winner=_LETTER_WINNERS[cell["winner"]],
        ties=cell["ties"],
        player_pair=cell["player_pair"],
        banker_pair=cell["banker_pair"],
    )


_Item = TypeVar("_Item")


def _copy_columns(columns: list[list[_Item]]) -> list[list[_Item]]:
    """The columns as a payload that stays as it is once built, whatever is recorded later.

    Only a road's last column still grows (or has its last cell replaced, when a tie counts on
    it): that one is copied, the closed ones before it are shared as they are.
    """
    published = columns.copy()
    if published:
        published[-1] = published[-1].copy()
    return published


def _bead_payload(entry: RoadEntry) -> BeadPayload:
    bead: BeadPayload = {"winner": WINNER_LETTERS[entry.winner]}
    if entry.banker_pair:
        bead["banker_pair"] = True
    if entry.player_pair:
        bead["player_pair"] = True
    if entry.natural:
        bead["natural"] = True
    return bead


_Cell = TypeVar("_Cell")


def layout_grid(
    columns: Sequence[Sequence[_Cell]], rows: int = DEFAULT_GRID_ROWS
) -> list[tuple[int, int, _Cell]]:
    """Place logical columns on a drawn grid ``rows`` high: ``(column, row, cell)``, from 0.

    Each logical column starts on the top row, one drawn column right of where the previous
    one started (further right if a tail already took that top cell), and goes down. When it
    reaches the bottom row, or the cell below is already taken by an earlier column's tail, it
    turns right and runs along that row: the dragon tail. The grid has no right edge; a
    display scrolls or crops. Works for the Big Road and for the derived roads alike.
    """
    if rows < 1:
        raise ValueError(f"a grid has at least one row, not {rows}")
    taken: set[tuple[int, int]] = set()
    placements: list[tuple[int, int, _Cell]] = []
    start = -1
    for logical_column in columns:
        if not logical_column:
            raise ValueError("a logical column holds at least one cell")
        start += 1
        while (start, 0) in taken:
            start += 1
        x, y = start, 0
        in_tail = False
        for index, cell in enumerate(logical_column):
            if index:
                if not in_tail and y + 1 < rows and (x, y + 1) not in taken:
                    y += 1
                else:
                    in_tail = True
                    x += 1
            # A tail only runs right of every earlier column's cells on its row.
            assert (x, y) not in taken, f"layout collision at ({x}, {y})"
            taken.add((x, y))
            placements.append((x, y, cell))
    return placements
