# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller replay --edges`` and ``--plot``: each bet's edge round by round, as drawn.

Driven through the console entry point (``main``) as an operator would, on recordings of
stacked shoes (the pair bets turn at a round counted by hand), of seeded shoes dealt with
faults (exposed, unnecessary and unread cards, voids, a correction) and of a table run through
the real :class:`TableService` into a journal.
"""

from __future__ import annotations

import asyncio
import json
import random
import struct
from collections import Counter
from collections.abc import Iterator, Mapping
from fractions import Fraction
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.cli.replay import edge_rows, edge_table
from table_controller.contract.codes import Phase
from table_controller.contract.payloads.state import TableSnapshot
from table_controller.history.pace import Pace
from table_controller.procedure.inputs import CardDrawn, Input
from table_controller.procedure.machine import TableProcedure
from table_controller.protection import plot
from table_controller.protection.edge import RoundEdges, ShoeLeft, round_edges, shoe_left
from table_controller.protection.replay_edges import (
    PlayedRound,
    RecordedShoe,
    ShoeRecorder,
    replay_edges,
    split_rounds,
)
from table_controller.rules.cards import Card
from table_controller.rules.composition import Composition
from table_controller.rules.variants import COMMISSION
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.service import TableService
from tests.protection.shoes import cards, fair_shoe, gone_before, pair_edge, stacked_shoe
from tests.support.dealing import ProcedureTable, ScriptedDealer, Step, seeded_shoe
from tests.support.links import ListSink

Record = dict[str, object]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PAIRS = ("player_pair", "banker_pair")


# --- recordings ---------------------------------------------------------------------------------


def write(tmp_path: Path, records: list[Record], name: str = "inputs.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(record) for record in records) + "\n", encoding="utf-8")
    return path


def dealt_records(shoe: RecordedShoe) -> list[Record]:
    """A dealer dealing ``shoe`` round by round on a table with a betting phase."""
    records: list[Record] = [{"command": "new_shoe", "args": {"shoe_id": shoe.shoe_id}}]
    records += [{"card": card.code} for card in shoe.burn if card is not None]
    for played in shoe.rounds:
        records += [{"command": "open_betting"}, {"command": "close_betting"}]
        records += [{"card": card.code} for card in played.cards if card is not None]
    return records


def card_records(text: str) -> list[Record]:
    return [{"card": code} for code in text.split()]


def stacked_pair_shoe(rounds: int = 14) -> RecordedShoe:
    """Every queen and king dealt first: the pair bets turn within the first nine rounds."""
    full = split_rounds("S-PAIR", stacked_shoe("QK", "Q", seed=5), burn=True)
    return RecordedShoe(shoe_id=full.shoe_id, burn=full.burn, rounds=full.rounds[:rounds])


def known_pair_round(shoe: RecordedShoe) -> int:
    """The first round whose pair edge, counted by hand from the ranks left, is below zero."""
    return next(
        played.round_no
        for played in shoe.rounds
        if pair_edge(Composition.full(8).without(gone_before(shoe, played.round_no))) < 0
    )


def replay(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["replay", *argv]) == 0
    return capsys.readouterr().out


def json_rows(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def table_cells(text: str) -> list[dict[str, str]]:
    """The rows of an ``--edges`` table as ``{column: cell}``."""
    lines = text.splitlines()
    header = lines[1].split()
    assert header[:2] == ["round", "cards"]
    rows = []
    for line in lines[2:]:
        if line.startswith("edge_positive"):
            break
        rows.append(dict(zip(header, line.split(), strict=True)))
    return rows


def edge_in_cell(cell: str) -> float:
    return float(cell.strip("()*"))


# --- the table and its marks ---------------------------------------------------------------------


def test_the_pair_edge_turns_below_zero_at_the_round_counted_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shoe = stacked_pair_shoe()
    known = known_pair_round(shoe)
    assert 1 < known <= 9
    text = replay(capsys, "--inputs", str(write(tmp_path, dealt_records(shoe))), "--edges")
    assert text.startswith("shoe S-PAIR (commission, 8 decks): house edge in % before each round")
    rows = table_cells(text)
    assert [int(row["round"]) for row in rows] == [p.round_no for p in shoe.rounds]
    for row in rows:
        round_no = int(row["round"])
        for bet_id in PAIRS:
            cell = row[bet_id]
            below = edge_in_cell(cell) < 0
            assert below == (round_no >= known), (round_no, cell)  # stays below in this stack
            assert cell.endswith("*") == below
            assert not cell.startswith("(")  # pairs are offered on rounds 1 to 60
        assert not row["banker"].endswith("*")
    turned = rows[known - 1]
    exact = pair_edge(Composition.full(8).without(gone_before(shoe, known)))
    assert edge_in_cell(turned["player_pair"]) == pytest.approx(float(exact) * 100, abs=5e-4)
    assert int(turned["cards"]) == 416 - len(gone_before(shoe, known))
    alarms = [line for line in text.splitlines() if line.startswith("edge_positive")]
    assert [line.split()[1:4] for line in alarms] == [
        ["round", str(known), "player_pair"],
        ["round", str(known), "banker_pair"],
    ]


def test_a_threshold_marks_the_pairs_from_an_earlier_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shoe = stacked_pair_shoe()
    path = write(tmp_path, dealt_records(shoe))
    known = known_pair_round(shoe)
    text = replay(capsys, "--inputs", str(path), "--edges", "--threshold", "5")
    assert "* below 5 %" in text.splitlines()[0]
    starred = [
        int(row["round"]) for row in table_cells(text) if row["player_pair"].endswith("*")
    ]
    by_hand = [
        p.round_no
        for p in shoe.rounds
        if pair_edge(Composition.full(8).without(gone_before(shoe, p.round_no)))
        < Fraction(5, 100)
    ]
    assert starred == by_hand
    assert starred[0] < known


def test_json_rows_are_the_edges_replay_edges_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shoe = stacked_pair_shoe(rounds=66)  # past the 60-round window of the pairs
    text = replay(
        capsys, "--inputs", str(write(tmp_path, dealt_records(shoe))), "--edges", "--json"
    )
    rows = json_rows(text)
    expected = replay_edges(COMMISSION, shoe)
    assert len(rows) == len(expected) == 66
    for row, replayed in zip(rows, expected, strict=True):
        edges = replayed.edges
        assert isinstance(edges, RoundEdges)
        assert row == {
            "shoe_id": "S-PAIR",
            "round_no": replayed.round_no,
            "cards_left": edges.cards_left,
            "bets": {
                bet_id: {
                    "house_edge": float(edges.house_edge(bet_id)),
                    "offered": bet_id in replayed.offer.offered,
                }
                for bet_id in COMMISSION.bet_ids
            },
        }
    bets = rows[60]["bets"]
    assert isinstance(bets, dict)
    assert bets["player_pair"]["offered"] is False  # round 61: the window is closed
    assert bets["banker"]["offered"] is True


def test_rounds_without_odds_say_why() -> None:
    ace = Card.parse("AS")
    shoe = RecordedShoe(
        shoe_id="S-F",
        rounds=(
            PlayedRound(round_no=1, cards=(ace,) * 4),
            PlayedRound(round_no=2, cards=(ace,) * 5),  # a ninth ace: more than 8 decks hold
            PlayedRound(round_no=3, cards=cards("2H 3H 4H 5H")),
        ),
    )
    replayed = replay_edges(COMMISSION, shoe)
    rows = list(edge_rows(COMMISSION, "S-F", replayed))
    assert [row.get("no_odds") for row in rows] == [None, None, "AS seen 9 times; the shoe holds 8"]
    assert rows[2]["cards_left"] is None
    bets = rows[2]["bets"]
    assert isinstance(bets, dict)
    assert bets["banker"] == {"house_edge": None, "offered": True}
    table = edge_table(COMMISSION, shoe, replayed, threshold=Fraction(0)).splitlines()
    assert table[-1].split() == ["3", "-", "no", "odds:", "AS", "seen", "9", "times;", "the",
                                 "shoe", "holds", "8"]  # fmt: skip


def test_without_a_betting_phase_the_rounds_are_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = dealt_records(stacked_pair_shoe())
    betting = replay(capsys, "--inputs", str(write(tmp_path, records)), "--edges", "--json")
    dealt_only = [r for r in records if r.get("command") not in {"open_betting", "close_betting"}]
    path = write(tmp_path, dealt_only, "dealt.jsonl")
    assert replay(capsys, "--inputs", str(path), "--edges", "--json", "--no-betting-phase") == (
        betting
    )


def test_a_virtual_table_reshuffles_before_every_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flat = fair_shoe(6, random.Random(4))[:40]
    shoe = split_rounds("V-1", flat, burn=False)
    records: list[Record] = [{"command": "new_shoe", "args": {"shoe_id": "V-1"}}]
    records += [{"card": card.code} for card in flat[: sum(len(p.cards) for p in shoe.rounds)]]
    path = write(tmp_path, records)
    rows = json_rows(
        replay(capsys, "--variant", "mini", "--inputs", str(path), "--edges", "--json",
               "--no-betting-phase")
    )  # fmt: skip
    assert [row["round_no"] for row in rows] == [p.round_no for p in shoe.rounds]
    assert {row["cards_left"] for row in rows} == {312}
    assert len({json.dumps(row["bets"]) for row in rows}) == 1  # a full shoe every round


# --- the cards before each round, with every kind of card that leaves the shoe undealt -----------


class FaultyDealer:
    """The scripted dealer's seeded shoe through a bare procedure, with faults, and the truth.

    The dealer deals when the table's lamp asks and opens betting between rounds; on top, at
    random, a card is misread (entered by hand or its round voided, the dealer sometimes
    dealing on behind the hold), drawn when none was due, or exposed as betting opens.
    ``gone`` is every card out of the shoe in order (``None`` for one that left unread and was
    never entered by hand); ``before[n]`` is ``gone`` when round ``n``'s betting opened.
    """

    def __init__(self, seed: int, *, fault_rate: float = 0.06) -> None:
        self.rng = random.Random(seed)
        self.fault_rate = fault_rate
        self.dealer = ScriptedDealer(seeded_shoe(seed), operator="pit")
        self.table = ProcedureTable(TableProcedure(COMMISSION, table_id="T"))
        self.recorder = ShoeRecorder()
        self.table.observers.append(self.recorder.observe)
        self.gone: list[Card | None] = []
        self.before: dict[int, list[Card | None]] = {}
        self.shoe_id = f"S-{seed}"

    @property
    def records(self) -> list[Record]:
        return self.table.records

    @property
    def events(self) -> list[tuple[str, Mapping[str, object]]]:
        """Every event published, as ``(type, payload)``."""
        return self.table.events

    def command(self, name: str, **args: object) -> None:
        self.table.give(self.dealer.command(name, **args))

    def draw(self) -> Card:
        """The shoe's next card; the cut card, on the way, goes to the table."""
        while (drawn := self.dealer.draw()) is not None:
            if "card" in drawn:
                return Card.parse(str(drawn["card"]))
            self.table.give(drawn)
        raise AssertionError("the shoe ran out before the table ended it")

    def fault(self) -> bool:
        return self.rng.random() < self.fault_rate

    def deal_card(self, *, face_up: bool, burning: bool) -> None:
        card = self.draw()
        if face_up or not self.fault():
            self.table.give({"card": card.code})
            self.gone.append(card)
            return
        self.table.give({"misread": True})
        if burning or self.table.state()["hold_reason"] != "misread":
            # a burn card or a card after the last round: nobody reads it, it stays unknown
            self.gone.append(None)
            return
        index = len(self.gone)
        self.gone.append(card)
        if self.rng.random() < 0.5:  # the dealer deals on behind the hold
            extra = self.draw()
            self.table.give({"card": extra.code})
            self.gone.append(extra)
        if self.rng.random() < 0.6:
            self.command("manual_card", card=card.code)
        else:
            self.command("void_round", round_id=self.table.state()["round_id"])
            self.gone[index] = None

    def between_rounds(self) -> None:
        if self.fault():  # an unnecessary card
            card = self.draw()
            self.table.give({"card": card.code})
            self.gone.append(card)
        if self.table.state()["phase"] != "between_rounds":
            return
        self.command("open_betting")
        self.before[int(str(self.table.state()["round_no"]))] = list(self.gone)
        if self.fault():  # an exposed card voids the round
            card = self.draw()
            self.table.give({"card": card.code})
            self.gone.append(card)
            return
        self.command("close_betting")

    def play(self) -> None:
        """A new shoe, dealt until the table says it is over."""
        self.command("new_shoe", shoe_id=self.shoe_id)
        while (step := self.table.step()) is not Step.OVER:
            assert step is not Step.HOLD, self.table.state()
            if step is Step.BETTING:
                self.between_rounds()
                continue
            prompt = self.table.state()["prompt"]
            burning = prompt["action"] == "burn"
            face_up = burning and prompt.get("count") is None
            self.deal_card(face_up=face_up, burning=burning and not face_up)


def before_round(shoe: RecordedShoe, round_no: int) -> Counter[Card | None]:
    gone: Counter[Card | None] = Counter(shoe.burn)
    for played in shoe.rounds:
        if played.round_no < round_no:
            gone.update(played.cards)
    return gone


@pytest.mark.parametrize("seed", range(12))
def test_each_round_sees_exactly_the_cards_out_of_the_shoe_when_it_began(seed: int) -> None:
    dealer = FaultyDealer(seed)
    dealer.play()
    (shoe,) = dealer.recorder.shoes()
    assert [p.round_no for p in shoe.rounds] == sorted(dealer.before)
    for played in shoe.rounds:
        assert before_round(shoe, played.round_no) == Counter(dealer.before[played.round_no])
    everything = [*shoe.burn, *(c for p in shoe.rounds for c in p.cards), *shoe.leftover]
    assert Counter(everything) == Counter(dealer.gone)


def test_the_faults_are_there_to_be_counted() -> None:
    """The seeded dealers above meet every fault they are meant to (the test is not vacuous)."""
    alarms: Counter[str] = Counter()
    voids: Counter[str] = Counter()
    unread = 0
    for seed in range(12):
        dealer = FaultyDealer(seed)
        dealer.play()
        alarms.update(str(p["code"]) for t, p in dealer.events if t == "alarm")
        voids.update(str(p["reason"]) for t, p in dealer.events if t == "round_voided")
        unread += dealer.gone.count(None)
    assert {"misread", "unnecessary_card", "exposed_card"} <= set(alarms)
    assert {"misread", "exposed_card"} <= set(voids)
    assert alarms["misread"] > voids["misread"] > 0  # some were entered by hand, some voided
    assert unread > voids["misread"]  # and some burn cards were never read


@pytest.mark.parametrize("seed", [3, 7])
def test_json_edges_of_a_faulty_shoe_are_those_of_the_cards_out_when_each_round_began(
    seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dealer = FaultyDealer(seed)
    dealer.play()
    path = write(tmp_path, dealer.records)
    rows = json_rows(replay(capsys, "--inputs", str(path), "--edges", "--json"))
    assert [row["round_no"] for row in rows] == sorted(dealer.before)
    for row in rows:
        gone = dealer.before[int(str(row["round_no"]))]
        left = shoe_left(8, gone)
        assert isinstance(left, ShoeLeft)
        edges = round_edges(
            COMMISSION, shoe_id=str(row["shoe_id"]), round_no=int(str(row["round_no"])), left=left
        )
        assert isinstance(edges, RoundEdges)
        assert row["cards_left"] == 416 - len(gone) == edges.cards_left
        bets = row["bets"]
        assert isinstance(bets, dict)
        assert {bet: bets[bet]["house_edge"] for bet in bets} == {
            bet: float(edges.house_edge(bet)) for bet in COMMISSION.bet_ids
        }


def test_a_corrected_round_counts_with_its_corrected_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records: list[Record] = [
        {"command": "new_shoe", "args": {"shoe_id": "S-C"}},
        *card_records("2C 5D 6D"),
        {"command": "open_betting"}, {"command": "close_betting"},
        *card_records("8S 8D 9H 9C"),  # both 7: both stand
        {"command": "correct_result",
         "args": {"round_id": "S-C-1", "player": ["8S", "9H"], "banker": ["8D", "9D"]}},
        {"command": "open_betting"}, {"command": "close_betting"},
    ]  # fmt: skip
    rows = json_rows(
        replay(capsys, "--inputs", str(write(tmp_path, records)), "--edges", "--json")
    )
    left = shoe_left(8, cards("2C 5D 6D 8S 8D 9H 9D"))
    assert isinstance(left, ShoeLeft)
    corrected = round_edges(COMMISSION, shoe_id="S-C", round_no=2, left=left)
    assert isinstance(corrected, RoundEdges)
    second = rows[1]["bets"]
    assert isinstance(second, dict)
    assert second["tie"]["house_edge"] == float(corrected.house_edge("tie"))
    assert second["player_pair"]["house_edge"] == float(corrected.house_edge("player_pair"))


# --- --plot ----------------------------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_plot_writes_a_png_and_the_events_are_still_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    path = write(tmp_path, dealt_records(stacked_pair_shoe(rounds=40)))
    events = replay(capsys, "--inputs", str(path), "--json")
    image = tmp_path / "edges.png"
    assert main(["replay", "--inputs", str(path), "--json", "--plot", str(image)]) == 0
    captured = capsys.readouterr()
    assert captured.out == events  # --plot alone: the events, byte for byte
    assert f"edges of shoe S-PAIR (40 rounds) drawn in {image}" in captured.err
    data = image.read_bytes()
    assert png_size(data) == (1100, 600)
    assert b"Matplotlib" in data  # the Software text chunk matplotlib writes
    assert len(data) > 10_000


def test_plot_with_edges_prints_the_table_and_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    path = write(tmp_path, dealt_records(stacked_pair_shoe()))
    table = replay(capsys, "--inputs", str(path), "--edges")
    image = tmp_path / "edges.png"
    assert replay(capsys, "--inputs", str(path), "--edges", "--plot", str(image)) == table
    assert png_size(image.read_bytes()) == (1100, 600)


def test_without_matplotlib_plot_is_a_usage_error_naming_the_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing() -> object:
        raise plot.PlotUnavailableError(
            "drawing a plot needs matplotlib: pip install 'table-controller[plot]'"
        )

    monkeypatch.setattr(plot, "_pyplot", missing)
    path = write(tmp_path, dealt_records(stacked_pair_shoe()))
    image = tmp_path / "edges.png"
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--inputs", str(path), "--plot", str(image)])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "pip install 'table-controller[plot]'" in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert not image.exists()


# --- a journal written by the table service -------------------------------------------------


class ScriptedCards:
    """A virtual table's card source dealing a fixed list of cards in order."""

    def __init__(self, shoe: list[Card]) -> None:
        self._cards: Iterator[Card] = iter(shoe)

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The service's hook after each input: nothing to learn here."""

    def draw(self, state: TableSnapshot, *, at: float) -> Input:
        return CardDrawn(at=at, card=next(self._cards))


async def run_table(journal_path: Path, shoe: list[Card], rounds: int) -> None:
    """Run a commission table through ``TableService`` for ``rounds`` rounds of ``shoe``."""
    with Journal.open(journal_path, table_id="T07") as journal:
        service = TableService(
            procedure=TableProcedure(COMMISSION, table_id="T07"),
            journal=journal,
            sink=ListSink(),
            pace=Pace(),
            card_source=ScriptedCards(shoe),
            wall_clock=lambda: "2026-11-29T12:00:00.000Z",
        )
        task = asyncio.create_task(service.run())

        async def settled(round_no: int | None) -> None:
            async with asyncio.timeout(10):
                while True:
                    state = service.procedure.snapshot().state
                    if state.phase is Phase.BETWEEN_ROUNDS and state.round_no == round_no:
                        return
                    await asyncio.sleep(0.005)

        try:
            reply = await service.submit(
                {"command": "new_shoe", "id": "c-0", "operator": "pit",
                 "args": {"shoe_id": "J-1"}}
            )  # fmt: skip
            assert reply["ok"], reply
            await settled(None)  # the burn is done: no round yet
            for round_no in range(1, rounds + 1):
                for command in ("open_betting", "close_betting"):
                    reply = await service.submit(
                        {"command": command, "id": f"c-{round_no}-{command}", "operator": "pit"}
                    )
                    assert reply["ok"], reply
                await settled(round_no)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await service.aclose()


async def test_a_journal_written_by_the_table_service_replays_its_edges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flat = stacked_shoe("QK", "K", seed=9)
    journal = tmp_path / "T07.journal"
    await run_table(journal, flat, rounds=12)
    rows = json_rows(replay(capsys, "--inputs", str(journal), "--edges", "--json"))
    dealt = split_rounds("J-1", flat, burn=True)
    expected = replay_edges(
        COMMISSION, RecordedShoe(shoe_id="J-1", burn=dealt.burn, rounds=dealt.rounds[:12])
    )
    assert [row["round_no"] for row in rows] == list(range(1, 13))
    for row, replayed in zip(rows, expected, strict=True):
        assert isinstance(replayed.edges, RoundEdges)
        assert row["cards_left"] == replayed.edges.cards_left
        bets = row["bets"]
        assert isinstance(bets, dict)
        assert bets["player_pair"]["house_edge"] == float(replayed.edges.house_edge("player_pair"))
    table = replay(capsys, "--inputs", str(journal), "--edges", "--shoe", "J-1")
    turned = next(
        int(row["round"]) for row in table_cells(table) if row["banker_pair"].endswith("*")
    )
    shoe = RecordedShoe(shoe_id="J-1", burn=dealt.burn, rounds=dealt.rounds[:12])
    assert turned == known_pair_round(shoe)


# --- what is refused ---------------------------------------------------------------------------


def two_shoes() -> list[Record]:
    first = dealt_records(stacked_pair_shoe(rounds=3))
    second = dealt_records(
        RecordedShoe(
            shoe_id="S-2",
            burn=cards("2C 5D 6D"),
            rounds=split_rounds("S-2", cards("8S 8D 9H 9C"), burn=False).rounds,
        )
    )
    return [*first, {"command": "void_shoe"}, *second]


def test_every_shoe_gets_a_table_and_shoe_picks_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, two_shoes())
    both = replay(capsys, "--inputs", str(path), "--edges")
    heads = [line.split()[1] for line in both.splitlines() if line.startswith("shoe ")]
    assert heads == ["S-PAIR", "S-2"]
    only = replay(capsys, "--inputs", str(path), "--edges", "--shoe", "S-2")
    assert only.startswith("shoe S-2 ")
    assert only.strip() in both
    rows = json_rows(replay(capsys, "--inputs", str(path), "--edges", "--json", "--shoe", "S-2"))
    assert [(row["shoe_id"], row["round_no"]) for row in rows] == [("S-2", 1)]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--shoe", "S-PAIR"], "--shoe and --threshold go with --edges or --plot"),
        (["--threshold", "1"], "--shoe and --threshold go with --edges or --plot"),
        (["--edges", "--shoe", "S-9"], "--shoe: no shoe 'S-9'"),
        (["--plot", "{tmp}/edges.png"], "--plot draws one shoe: name it with --shoe"),
        (["--plot", "{tmp}/edges.svg"], "--plot: the file must end in .png"),
        (["--plot", "{tmp}/nowhere/edges.png"], "--plot: no such directory"),
        (["--edges", "--threshold", "lots"], "not a percentage: 'lots'"),
    ],
)
def test_wrong_edge_options_stop_with_status_2_and_print_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], words: str
) -> None:
    path = write(tmp_path, two_shoes())
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in extra]
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--inputs", str(path), *argv])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert words in captured.err
    assert not list(tmp_path.glob("*.png"))


def test_an_unknown_record_is_still_refused_with_edges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records: list[Record] = [*dealt_records(stacked_pair_shoe(rounds=2)), {"odds_of_the_day": 1}]
    path = write(tmp_path, records)
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--inputs", str(path), "--edges"])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"line {len(records)}:" in captured.err


def test_a_recording_without_a_shoe_has_no_edges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, [{"reader": "offline"}, {"reader": "online"}])
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--inputs", str(path), "--edges"])
    assert stopped.value.code == 2
    assert "the recording holds no shoe" in capsys.readouterr().err
