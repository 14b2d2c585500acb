# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The scoreboards, against shoes worked out by hand on squared paper.

Every expected road below is a literal list written from the Big Road drawn by hand and the
derived-road rules (a new column: compare the two columns before it, k apart; further down:
look at the column k to the left, one row up), never computed by the code under test.
"""

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.rules.cards import parse_cards
from table_controller.rules.roads import (
    BigRoadCell,
    DerivedRoad,
    RoadColour,
    RoadEntry,
    Scoreboard,
    ShoeStats,
    derived_mark,
    layout_grid,
)
from table_controller.rules.tableau import Coup, Winner

R = "red"
U = "blue"  # U for blUe, so that B stays Banker in the shoes below

_WINNERS = {"B": Winner.BANKER, "P": Winner.PLAYER, "T": Winner.TIE}
# Totals that fit each winner; their values do not matter to the roads.
_TOTALS = {"B": (3, 6), "P": (6, 3), "T": (5, 5)}


def entry(
    letter: str, *, player_pair: bool = False, banker_pair: bool = False, natural: bool = False
) -> RoadEntry:
    player_total, banker_total = _TOTALS[letter]
    return RoadEntry(
        winner=_WINNERS[letter],
        player_pair=player_pair,
        banker_pair=banker_pair,
        natural=natural,
        player_total=player_total,
        banker_total=banker_total,
    )


def board_of(shoe: str) -> Scoreboard:
    return Scoreboard.from_entries(entry(letter) for letter in shoe)


def roads(board: Scoreboard) -> tuple[list[list[str]], list[list[str]], list[list[str]]]:
    payload = board.payload("S-1", None)
    return payload["big_eye_boy"], payload["small_road"], payload["cockroach_pig"]


def big_road_letters(board: Scoreboard) -> list[str]:
    return [
        "".join(cell["winner"] for cell in column)
        for column in board.payload("S", None)["big_road"]
    ]


def asks(board: Scoreboard) -> tuple[list[str | None], list[str | None]]:
    order = ("big_eye_boy", "small_road", "cockroach_pig")
    banker, player = board.ask(Winner.BANKER), board.ask(Winner.PLAYER)
    return [banker[name] for name in order], [player[name] for name in order]


# --- the normative example of mqtt-api.md ---------------------------------------------------

SPEC_EXAMPLE = """
{"type": "roads", "shoe_id": "S-0042",
 "bead_plate": [{"winner": "T"}, {"winner": "B"},
                {"winner": "P", "player_pair": true}, {"winner": "P"}],
 "big_road": [[{"winner": "B", "ties": 1, "banker_pair": false, "player_pair": false}],
              [{"winner": "P", "ties": 0, "banker_pair": false, "player_pair": true},
               {"winner": "P", "ties": 0, "banker_pair": false, "player_pair": false}]],
 "big_eye_boy": [["blue"]], "small_road": [], "cockroach_pig": [],
 "ask_banker": {"big_eye_boy": "blue", "small_road": null, "cockroach_pig": null},
 "ask_player": {"big_eye_boy": "red", "small_road": null, "cockroach_pig": null},
 "stats": {"banker": 1, "player": 2, "tie": 1, "banker_pair": 0, "player_pair": 1}}
"""


def test_spec_example_shoe_t_b_p_pair_p_gives_exactly_the_spec_payload() -> None:
    board = Scoreboard.from_entries(
        [entry("T"), entry("B"), entry("P", player_pair=True), entry("P")]
    )
    expected = json.loads(SPEC_EXAMPLE)
    # The stats carry three keys beside the spec's (the payload may carry more fields).
    expected["stats"] |= {"natural": 0, "rounds": 4, "cards_left": 408}
    payload = board.payload("S-0042", 408)
    assert payload == expected
    assert json.loads(json.dumps(payload)) == expected


# --- the Big Road ----------------------------------------------------------------------------


def test_new_column_when_the_winner_changes_and_ties_on_the_previous_cell() -> None:
    board = board_of("BBTPTTBP")
    assert board.big_road == (
        (
            BigRoadCell(winner=Winner.BANKER, ties=0, player_pair=False, banker_pair=False),
            BigRoadCell(winner=Winner.BANKER, ties=1, player_pair=False, banker_pair=False),
        ),
        (BigRoadCell(winner=Winner.PLAYER, ties=2, player_pair=False, banker_pair=False),),
        (BigRoadCell(winner=Winner.BANKER, ties=0, player_pair=False, banker_pair=False),),
        (BigRoadCell(winner=Winner.PLAYER, ties=0, player_pair=False, banker_pair=False),),
    )


def test_leading_ties_are_held_then_counted_on_the_first_cell() -> None:
    board = board_of("TT")
    assert board.big_road == ()
    assert board.pending_ties == 2
    assert board.payload("S", None)["big_road"] == []
    assert board.payload("S", None)["bead_plate"] == [{"winner": "T"}, {"winner": "T"}]
    board.record(entry("B"))
    board.record(entry("B"))
    board.record(entry("T"))
    board.record(entry("P"))
    assert board.pending_ties == 0
    assert board.payload("S", None)["big_road"] == [
        [
            {"winner": "B", "ties": 2, "banker_pair": False, "player_pair": False},
            {"winner": "B", "ties": 1, "banker_pair": False, "player_pair": False},
        ],
        [{"winner": "P", "ties": 0, "banker_pair": False, "player_pair": False}],
    ]
    assert roads(board) == ([], [], [])
    # Banker next opens column 3: columns 2 (1 cell) and 1 (2 cells) differ.
    # Player next is column 2 row 2: column 1 reaches row 2.
    assert asks(board) == ([U, None, None], [R, None, None])
    assert board.stats == ShoeStats(banker=2, player=1, tie=3)


def test_pairs_stay_on_their_own_cell_and_a_ties_pairs_only_on_the_bead_plate() -> None:
    board = Scoreboard.from_entries(
        [
            entry("B", banker_pair=True),
            entry("T", player_pair=True, banker_pair=True),
            entry("B", player_pair=True, natural=True),
        ]
    )
    payload = board.payload("S", 300)
    assert payload["bead_plate"] == [
        {"winner": "B", "banker_pair": True},
        {"winner": "T", "banker_pair": True, "player_pair": True},
        {"winner": "B", "player_pair": True, "natural": True},
    ]
    assert payload["big_road"] == [
        [
            {"winner": "B", "ties": 1, "banker_pair": True, "player_pair": False},
            {"winner": "B", "ties": 0, "banker_pair": False, "player_pair": True},
        ]
    ]
    assert payload["stats"] == {
        "banker": 2,
        "player": 0,
        "tie": 1,
        "banker_pair": 2,
        "player_pair": 2,
        "natural": 1,
        "rounds": 3,
        "cards_left": 300,
    }


def test_empty_board() -> None:
    board = Scoreboard()
    expected: dict[str, object] = {
        "type": "roads",
        "shoe_id": "S-0001",
        "bead_plate": [],
        "big_road": [],
        "big_eye_boy": [],
        "small_road": [],
        "cockroach_pig": [],
        "ask_banker": {"big_eye_boy": None, "small_road": None, "cockroach_pig": None},
        "ask_player": {"big_eye_boy": None, "small_road": None, "cockroach_pig": None},
        "stats": {
            "banker": 0,
            "player": 0,
            "tie": 0,
            "banker_pair": 0,
            "player_pair": 0,
            "natural": 0,
            "rounds": 0,
            "cards_left": 416,
        },
    }
    assert dict(board.payload("S-0001", 416)) == expected


# --- derived roads, worked by hand -----------------------------------------------------------


def test_choppy_shoe_is_all_red() -> None:
    # Big Road: eight columns of one cell. Every new column compares two one-cell columns.
    board = board_of("BPBPBPBP")
    assert big_road_letters(board) == ["B", "P", "B", "P", "B", "P", "B", "P"]
    assert roads(board) == ([[R] * 6], [[R] * 5], [[R] * 4])
    # Banker next: column 9 row 1, columns 8 and 8-k both hold one cell: red.
    # Player next: column 8 row 2, column 8-k holds exactly one cell: blue.
    assert asks(board) == ([R, R, R], [U, U, U])


def test_dragon_then_short_columns() -> None:
    # Big Road columns: B x8, P x3, B x2.
    board = board_of("BBBBBBBB" + "PPP" + "BB")
    assert big_road_letters(board) == ["BBBBBBBB", "PPP", "BB"]
    # Big Eye Boy: (2,2) red, (2,3) red [column 1 is 8 long]; (3,1) blue [3 != 8];
    # (3,2) red [column 2 reaches row 2]. Small Road: only (3,2), red [column 1 reaches row 2].
    assert roads(board) == ([[R, R], [U], [R]], [[R]], [])
    # Banker next (3,3): column 2 reaches row 3, column 1 too; Cockroach Pig has no column 0.
    # Player next (4,1): 2 != 3 and 2 != 8: blue; Cockroach Pig would compare with column 0.
    assert asks(board) == ([R, R, None], [U, U, None])


def test_a_dragon_alone_draws_no_derived_road() -> None:
    board = board_of("P" * 12)
    assert roads(board) == ([], [], [])
    # Banker next opens column 2: no column 0 to compare. Player next (1,13): no column 0.
    assert asks(board) == ([None, None, None], [None, None, None])
    board.record(entry("B"))
    # Banker next (2,2): column 1 reaches row 2. Player next (3,1): 1 cell vs 12 cells.
    assert asks(board) == ([R, None, None], [U, None, None])


# The mixed shoe: B B P B B B P B P P B B B B, Big Road column lengths 2 1 3 1 1 2 4.
MIXED_SHOE = "BBPBBBPBPPBBBB"
#: Marks added by each cell of the mixed shoe, cell by cell, worked by hand ("-" = none).
MIXED_BY_CELL = [
    # (column,row)  big eye boy   small road   cockroach pig
    ("1,1", None, None, None),
    ("1,2", None, None, None),
    ("2,1", None, None, None),
    ("3,1", U, None, None),  # BEB: 1 vs 2
    ("3,2", U, R, None),  # BEB: column 2 ends at row 1; SR: column 1 reaches row 2
    ("3,3", R, U, None),  # BEB: column 2 shorter than 2; SR: column 1 ends at row 2
    ("4,1", U, U, None),  # BEB: 3 vs 1; SR: 3 vs 2
    ("5,1", U, R, U),  # BEB: 1 vs 3; SR: 1 vs 1; CP: 1 vs 2
    ("6,1", R, U, R),  # BEB: 1 vs 1; SR: 1 vs 3; CP: 1 vs 1
    ("6,2", U, U, R),  # BEB: col 5 ends at row 1; SR: col 4 ends at row 1; CP: col 3 reaches 2
    ("7,1", U, U, U),  # BEB: 2 vs 1; SR: 2 vs 1; CP: 2 vs 3
    ("7,2", R, U, U),  # BEB: col 6 reaches 2; SR: col 5 ends at 1; CP: col 4 ends at 1
    ("7,3", U, R, R),  # BEB: col 6 ends at 2; SR, CP: shorter than 2
    ("7,4", R, R, R),  # all shorter than 3
]


def test_mixed_shoe_cell_by_cell() -> None:
    board = Scoreboard()
    for letter, (_, big_eye, small, cockroach) in zip(MIXED_SHOE, MIXED_BY_CELL, strict=True):
        expected = {"big_eye_boy": big_eye, "small_road": small, "cockroach_pig": cockroach}
        assert board.ask(_WINNERS[letter]) == expected
        before = [sum(len(c) for c in board.derived_road(road)) for road in DerivedRoad]
        board.record(entry(letter))
        after = [sum(len(c) for c in board.derived_road(road)) for road in DerivedRoad]
        added = [b - a for a, b in zip(before, after, strict=True)]
        assert added == [int(mark is not None) for mark in (big_eye, small, cockroach)]


def test_mixed_shoe_roads_in_logical_columns() -> None:
    board = board_of(MIXED_SHOE)
    assert big_road_letters(board) == ["BB", "P", "BBB", "P", "B", "PP", "BBBB"]
    assert roads(board) == (
        [[U, U], [R], [U, U], [R], [U, U], [R], [U], [R]],
        [[R], [U, U], [R], [U, U, U, U], [R, R]],
        [[U], [R, R], [U, U], [R, R]],
    )
    assert board.derived_road(DerivedRoad.COCKROACH_PIG) == (
        (RoadColour.BLUE,),
        (RoadColour.RED, RoadColour.RED),
        (RoadColour.BLUE, RoadColour.BLUE),
        (RoadColour.RED, RoadColour.RED),
    )
    # Banker next (7,5): columns 6, 5, 4 are all shorter than 4: red.
    # Player next (8,1): column 7 (4) against 6 (2), 5 (1), 4 (1): blue.
    assert asks(board) == ([R, R, R], [U, U, U])


@pytest.mark.parametrize(
    ("rounds", "ask_banker", "ask_player"),
    [
        # After 10 rounds (column 6 holds P P): B opens column 7, 2 against 1, 1, 3.
        # P would be (6,3): columns 5 and 4 shorter than 2, column 3 reaches row 3.
        (10, [U, U, U], [R, R, R]),
        # After 12 rounds (column 7 holds B B): B is (7,3) (see the cell table); P opens
        # column 8: 2 against 2 (red), against 1 and 1 (blue).
        (12, [U, R, R], [R, U, U]),
    ],
)
def test_mixed_shoe_asks_midway(
    rounds: int, ask_banker: list[str | None], ask_player: list[str | None]
) -> None:
    assert asks(board_of(MIXED_SHOE[:rounds])) == (ask_banker, ask_player)


def test_ties_change_no_derived_road() -> None:
    shoe = "TBTTBPTPBTBBBTPPBBTTBBT"
    with_ties, without = board_of(shoe), board_of(shoe.replace("T", ""))
    assert roads(with_ties) == roads(without)
    assert asks(with_ties) == asks(without)
    assert with_ties.ask(Winner.TIE) == {
        "big_eye_boy": None,
        "small_road": None,
        "cockroach_pig": None,
    }


def test_derived_mark_reads_only_earlier_columns() -> None:
    # Columns and rows counted from 0 here; the column asked about need not exist yet.
    lengths = [2, 1, 3]
    assert derived_mark(lengths, 3, 0, 1) is RoadColour.BLUE  # new column: 3 vs 1
    assert derived_mark(lengths, 3, 0, 2) is RoadColour.BLUE  # new column: 3 vs 2
    assert derived_mark(lengths, 3, 0, 3) is None  # no column -1
    assert derived_mark(lengths, 3, 3, 1) is RoadColour.BLUE  # column 2 ends just above
    assert derived_mark(lengths, 3, 2, 1) is RoadColour.RED  # column 2 reaches row 2
    assert derived_mark(lengths, 3, 3, 2) is RoadColour.RED  # column 1 far shorter
    assert derived_mark(lengths, 3, 1, 2) is RoadColour.BLUE  # column 1 ends just above
    assert derived_mark(lengths, 1, 1, 2) is None  # no column -1


# --- entries ---------------------------------------------------------------------------------


def test_entry_from_a_coup() -> None:
    # Player 4S 4H (pair) = 8, a natural; Banker 6C KD = 6.
    coup = Coup.from_cards(parse_cards(["4S", "6C", "4H", "KD"]))
    assert RoadEntry.from_coup(coup) == RoadEntry(
        winner=Winner.PLAYER,
        player_pair=True,
        banker_pair=False,
        natural=True,
        player_total=8,
        banker_total=6,
    )
    # mqtt-api.md round_result example: QH 4S 9D = 3 against 6C KD = 6.
    coup = Coup.from_cards(parse_cards(["QH", "6C", "4S", "KD", "9D"]))
    assert RoadEntry.from_coup(coup) == RoadEntry(
        winner=Winner.BANKER,
        player_pair=False,
        banker_pair=False,
        natural=False,
        player_total=3,
        banker_total=6,
    )


def test_entry_refuses_impossible_totals() -> None:
    with pytest.raises(ValueError, match="0 to 9"):
        RoadEntry(
            winner=Winner.TIE,
            player_pair=False,
            banker_pair=False,
            natural=False,
            player_total=10,
            banker_total=10,
        )


def test_a_correction_is_a_rebuilt_board() -> None:
    results = list(MIXED_SHOE)
    results[6] = "B"  # round 7 corrected from Player to Banker
    corrected = Scoreboard.from_entries(entry(letter) for letter in results)
    assert big_road_letters(corrected) == ["BB", "P", "BBBBB", "PP", "BBBB"]
    assert corrected.entries == tuple(entry(letter) for letter in results)


# --- the drawn grid --------------------------------------------------------------------------


def positions(columns: list[list[str]], rows: int = 6) -> list[tuple[int, int]]:
    return [(x, y) for x, y, _ in layout_grid(columns, rows)]


def test_grid_short_columns_stand_straight() -> None:
    assert layout_grid([["a", "b"], ["c"], ["d", "e", "f"]]) == [
        (0, 0, "a"),
        (0, 1, "b"),
        (1, 0, "c"),
        (2, 0, "d"),
        (2, 1, "e"),
        (2, 2, "f"),
    ]


def test_grid_dragon_tail_and_the_column_that_meets_it() -> None:
    # Eight in a row turn right along the bottom; the next column of six meets that tail at
    # row 6 and turns right at row 5; a column of two stands straight.
    assert positions([["B"] * 8, ["P"] * 6, ["B"] * 2]) == [
        *[(0, row) for row in range(6)],
        (1, 5),
        (2, 5),
        *[(1, row) for row in range(5)],
        (2, 4),
        (2, 0),
        (2, 1),
    ]


def test_grid_three_dragons_step_down_like_stairs() -> None:
    assert positions([["B"] * 7, ["P"] * 7, ["B"] * 7, ["P"]]) == [
        (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5),
        (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4),
        (2, 0), (2, 1), (2, 2), (2, 3), (3, 3), (4, 3), (5, 3),
        (3, 0),
    ]  # fmt: skip


def test_grid_a_tail_on_the_top_row_pushes_the_next_column_right() -> None:
    # Two rows: the second column meets the first one's tail at once and runs along the top.
    assert positions([["B"] * 3, ["P"] * 3, ["B"]], rows=2) == [
        (0, 0), (0, 1), (1, 1),
        (1, 0), (2, 0), (3, 0),
        (4, 0),
    ]  # fmt: skip


def test_grid_of_a_derived_road_and_of_the_big_road() -> None:
    board = board_of("P" * 7 + "B")
    assert [(x, y, cell.winner) for x, y, cell in layout_grid(board.big_road)] == [
        *[(0, row, Winner.PLAYER) for row in range(6)],
        (1, 5, Winner.PLAYER),
        (1, 0, Winner.BANKER),
    ]
    assert layout_grid(board_of(MIXED_SHOE).derived_road(DerivedRoad.COCKROACH_PIG), rows=1) == [
        (0, 0, RoadColour.BLUE),
        (1, 0, RoadColour.RED),
        (2, 0, RoadColour.RED),
        (3, 0, RoadColour.BLUE),
        (4, 0, RoadColour.BLUE),
        (5, 0, RoadColour.RED),
        (6, 0, RoadColour.RED),
    ]


def test_grid_refuses_no_rows_and_empty_columns() -> None:
    with pytest.raises(ValueError, match="at least one row"):
        layout_grid([["B"]], rows=0)
    with pytest.raises(ValueError, match="at least one cell"):
        layout_grid([["B"], []])


# --- properties ------------------------------------------------------------------------------

shoes = st.lists(
    st.sampled_from("BBBBBPPPPPT").map(entry)
    | st.builds(
        entry,
        st.sampled_from("BPT"),
        player_pair=st.booleans(),
        banker_pair=st.booleans(),
        natural=st.booleans(),
    ),
    max_size=90,
)


def oracle_marks(columns: list[int], lag: int) -> list[str]:
    """Derived marks read off a drawn grid with no row limit, as a person reads the board."""
    filled = {(c, r) for c, length in enumerate(columns) for r in range(length)}
    marks = []
    for c, length in enumerate(columns):
        for r in range(length):
            if r == 0:
                if c - 1 - lag < 0:
                    continue
                marks.append(R if columns[c - 1] == columns[c - 1 - lag] else U)
            elif c - lag >= 0:
                left, above_left = (c - lag, r) in filled, (c - lag, r - 1) in filled
                marks.append(R if left or not above_left else U)
    return marks


@given(shoes)
def test_derived_roads_match_a_reading_of_the_drawn_board(entries: list[RoadEntry]) -> None:
    board = Scoreboard.from_entries(entries)
    lengths = [len(column) for column in board.big_road]
    for road in DerivedRoad:
        columns = board.derived_road(road)
        assert [mark.value for column in columns for mark in column] == oracle_marks(
            lengths, road.lag
        )
        assert all(column for column in columns)
        assert all(len(set(column)) == 1 for column in columns)
        assert all(a[0] is not b[0] for a, b in itertools.pairwise(columns))


@given(shoes, st.sampled_from([Winner.BANKER, Winner.PLAYER, Winner.TIE]))
def test_ask_is_what_recording_that_result_would_add(
    entries: list[RoadEntry], winner: Winner
) -> None:
    board = Scoreboard.from_entries(entries)
    payload_before = board.payload("S", 1)
    asked = board.ask(winner)
    assert board.payload("S", 1) == payload_before  # asking changes nothing
    board.record(entry({Winner.BANKER: "B", Winner.PLAYER: "P", Winner.TIE: "T"}[winner]))
    for road in DerivedRoad:
        flat_before = [m for column in payload_before[road.value] for m in column]
        flat_after = [m.value for column in board.derived_road(road) for m in column]
        expected_added = [] if asked[road.value] is None else [asked[road.value]]
        assert flat_after == flat_before + expected_added


@given(shoes)
def test_counts_agree_between_boards(entries: list[RoadEntry]) -> None:
    board = Scoreboard.from_entries(entries)
    stats = board.stats
    cells = [cell for column in board.big_road for cell in column]
    assert stats.rounds == len(entries) == len(board.entries)
    assert len(cells) == stats.banker + stats.player
    assert sum(cell.ties for cell in cells) + board.pending_ties == stats.tie
    assert board.pending_ties == 0 or not cells
    assert stats.player_pair == sum(e.player_pair for e in entries)
    for first, second in itertools.pairwise(board.big_road):
        assert first[0].winner is not second[0].winner
    assert all(len({cell.winner for cell in column}) == 1 for column in board.big_road)


@given(shoes)
def test_incremental_board_equals_a_board_rebuilt_at_every_round(
    entries: list[RoadEntry],
) -> None:
    board = Scoreboard()
    for count, one in enumerate(entries, start=1):
        board.record(one)
        if count % 7 == 0 or count == len(entries):
            rebuilt = Scoreboard.from_entries(entries[:count])
            assert board.payload("S", count) == rebuilt.payload("S", count)


@given(st.lists(st.integers(min_value=1, max_value=20), max_size=40), st.integers(1, 8))
def test_grid_places_every_cell_once_down_or_right(lengths: list[int], rows: int) -> None:
    columns = [[(index, row) for row in range(length)] for index, length in enumerate(lengths)]
    placements = layout_grid(columns, rows)
    assert [cell for _, _, cell in placements] == [cell for column in columns for cell in column]
    spots = [(x, y) for x, y, _ in placements]
    assert len(set(spots)) == len(spots)
    assert all(0 <= y < rows for _, y in spots)
    starts = [x for x, _, (_, row) in placements if row == 0]
    assert starts == sorted(set(starts))
    for (px, py, _), (x, y, (_, row)) in itertools.pairwise(placements):
        if row == 0:
            assert y == 0
        else:
            assert (x, y) in {(px, py + 1), (px + 1, py)}
