# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The MQTT contract: the generated models against the core, the committed documents, AsyncAPI.

The models generated from the core's payload types must accept exactly what the core publishes
(whole shoes through the real procedure, and through ``table-controller replay --json``), the
committed documents under docs/api must be what the models generate, and the AsyncAPI
document must be valid against the official schema of ``@asyncapi/specs``.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema  # no stubs installed
import pytest
from pydantic import BaseModel, ValidationError

from table_controller.cli import main
from table_controller.contract.codes import AlarmCode, EventType, Phase, StaffRole
from table_controller.contract.commands.message import CommandMessage
from table_controller.contract.envelope import JsonValue, dumps, envelope
from table_controller.contract.journal_refusal import JournalRefusal, refusal_reply
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.contract.schema.asyncapi import (
    CHANNELS,
    asyncapi_document,
    generated_files,
    payload_schemas,
)
from table_controller.contract.schema.models import EVENT_MODELS, MESSAGE_MODELS
from table_controller.history.pace import Pace
from table_controller.ingress.parsing import parse_command, to_procedure_command
from table_controller.mqtt.client.sending import unrecorded_message
from table_controller.procedure import inputs
from table_controller.procedure.decisions import CommandAccepted
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.cards import Card, all_cards
from table_controller.rules.variants import NOT_OFFERED, VARIANTS
from table_controller.runtime.interpreter import DecisionInterpreter

COMMITTED = Path(__file__).resolve().parents[2] / "docs/api"
#: The topics of mqtt-api.md below <root>, and who publishes them.
SPEC_TOPICS = {
    "status": "send",
    "state": "send",
    "roads": "send",
    "odds": "send",
    "stats": "send",
    "limits": "send",
    "commands/replies": "send",
    "commands": "receive",
    **{f"events/{event}": "send" for event in EVENT_MODELS},
}
SPEC_EVENT_TYPES = [
    "shoe_started",
    "burn",
    "betting_opened",
    "betting_closed",
    "card",
    "prompt",
    "round_result",
    "round_voided",
    "result_corrected",
    "last_round",
    "shoe_ended",
    "shoe_voided",
    "alarm",
    "alarm_acknowledged",
    "staff_changed",
    "dispute_opened",
    "dispute_resolved",
]


# --- a table fed as the runtime would feed it --------------------------------------------
#
# Commands go in as MQTT payload bytes through parse_command; every Publish comes out wrapped
# in the envelope by contract.envelope, with synthetic seq and ts, followed by the state
# snapshot and a command_reply per command: every message kind the core can produce, exactly
# as a backend would receive it.

EPOCH = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TABLE_ID = "T07"


def shuffled_shoe(decks: int, seed: int) -> list[Card]:
    shoe = [card for _ in range(decks) for card in all_cards()]
    random.Random(seed).shuffle(shoe)
    return shoe


class ContractTable:
    """One procedure, a deck to deal from, and every message it published, as JSON text."""

    def __init__(self, variant: str, *, betting: bool = True, seed: int = 7) -> None:
        self.machine = TableProcedure(VARIANTS[variant], table_id=TABLE_ID, betting_phase=betting)
        self.betting = betting
        self.deck = shuffled_shoe(VARIANTS[variant].decks, seed)
        self.now = 0.0
        self.seq = 0
        self.commands = 0
        self.wire: list[str] = []
        self.last_accepted = False
        self.interpreter = DecisionInterpreter(pace=Pace())

    # --- inputs -------------------------------------------------------------------------------

    def _tick(self) -> float:
        self.now += 0.5
        return self.now

    def feed(self, event: inputs.Input) -> None:
        decisions = self.machine.handle(event)
        self.last_accepted = any(isinstance(d, CommandAccepted) for d in decisions)
        ts = (EPOCH + timedelta(seconds=self.now)).isoformat(timespec="milliseconds")
        ts = ts.replace("+00:00", "Z")
        outcome = self.interpreter.interpret(
            decisions, self.machine.snapshot(), key=str(self.seq), ts=ts
        )
        for message in outcome.messages:
            self._send(message.event_type, message.payload, ts)

    def _send(self, message_type: str, payload: Any, ts: str) -> None:
        self.seq += 1
        message = envelope(message_type, payload, table_id=TABLE_ID, seq=self.seq, ts=ts)
        self.wire.append(dumps(message))

    def sign_in(self, staff_id: str, role: StaffRole) -> None:
        """A member of staff signs in, as the staff desk hands it on once the PIN is right."""
        self.commands += 1
        self.feed(
            inputs.SignIn(
                at=self._tick(),
                command_id=f"cmd-{self.commands}",
                operator="display",
                staff_id=staff_id,
                name=staff_id,
                role=role,
            )
        )

    def command(self, name: str, **args: JsonValue) -> bool:
        """Send one command as MQTT bytes; True if the procedure carried it out."""
        self.commands += 1
        raw = json.dumps(
            {"id": f"cmd-{self.commands}", "command": name, "operator": "pit-12", "args": args}
        ).encode()
        parsed = parse_command(raw)
        assert isinstance(parsed, CommandMessage), parsed
        self.feed(to_procedure_command(parsed, at=self._tick()))
        return self.last_accepted

    def card(self, card: Card | None = None) -> None:
        self.feed(inputs.CardDrawn(at=self._tick(), card=card or self.deck.pop()))

    def misread(self) -> Card:
        """A card leaves the shoe unread; returns it, for a supervisor to enter by hand."""
        self.feed(inputs.CardMisread(at=self._tick()))
        return self.deck.pop()

    def lost_frames(self, count: int) -> None:
        self.feed(inputs.FramesLost(at=self._tick(), count=count))

    def cut(self) -> None:
        self.feed(inputs.CutCardDrawn(at=self._tick()))

    def reader_offline(self) -> None:
        self.feed(inputs.ReaderWentOffline(at=self._tick()))

    def reader_back(self) -> None:
        self.feed(inputs.ReaderCameBack(at=self._tick()))

    # --- a dealer who follows the prompts ---------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self.machine.phase

    @property
    def round_no(self) -> int:
        value = self.machine.snapshot().state.round_no
        return 0 if value is None else value

    @property
    def round_id(self) -> str:
        return str(self.machine.snapshot().state.round_id)

    def burn(self) -> None:
        while self.phase in {Phase.BURN_CARD, Phase.BURNING}:
            self.card()

    def start_round(self) -> None:
        """From between rounds to the first card: open and close the betting, or deal."""
        assert self.phase is Phase.BETWEEN_ROUNDS, self.phase
        if self.betting:
            assert self.command("open_betting")
            assert self.command("close_betting")
        else:
            assert self.command("deal")

    def finish_round(self) -> None:
        while self.phase is Phase.DEALING:
            self.card()

    def play_round(self) -> None:
        self.start_round()
        self.finish_round()


# --- checking messages ------------------------------------------------------------------------


def extra_fields(value: object, where: str = "") -> Iterator[str]:
    """Fields a parsed payload carried that its model does not describe, anywhere inside."""
    if isinstance(value, BaseModel):
        for name in value.model_extra or {}:
            yield f"{where}.{name}".lstrip(".")
        for name in type(value).model_fields:
            yield from extra_fields(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from extra_fields(item, f"{where}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from extra_fields(item, f"{where}.{key}")


@pytest.fixture(scope="module")
def document_validators() -> dict[str, jsonschema.Draft202012Validator]:
    """A validator per message type, from the generated AsyncAPI document's components."""
    components = asyncapi_document()["components"]
    validators = {}
    for channel in CHANNELS:  # a channel is named after the type of its messages
        schema = {
            "components": components,
            "$ref": f"#/components/schemas/{channel.model.__name__}",
        }
        validators[channel.name] = jsonschema.Draft202012Validator(schema)
    return validators


def check_wire(wire: list[str], validators: dict[str, jsonschema.Draft202012Validator]) -> None:
    """Every message validates against its model (strictly, no undescribed field) and schema."""
    for text in wire:
        data = json.loads(text)
        model = MESSAGE_MODELS[data["type"]]
        try:
            parsed = model.model_validate_json(text, strict=True)
        except ValidationError as error:
            pytest.fail(f"{data['type']} does not fit {model.__name__}: {error}\n{text}")
        assert not list(extra_fields(parsed)), f"undescribed fields in {text}"
        validators[data["type"]].validate(data)


def types_of(wire: list[str]) -> set[str]:
    return {json.loads(text)["type"] for text in wire}


# --- whole shoes through the real procedure ---------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "betting", "seed"),
    [
        ("commission", True, 1),
        ("super_six", True, 2),
        ("lucky", True, 3),
        ("mini", False, 4),
        ("commission", False, 5),
    ],
)
def test_a_whole_shoe_publishes_only_what_the_contract_describes(
    variant: str, betting: bool, seed: int, document_validators: Any
) -> None:
    table = ContractTable(variant, betting=betting, seed=seed)
    assert table.command("new_shoe", shoe_id=f"S-{seed:04d}")
    table.burn()
    cut_at = 14
    while table.phase is not Phase.SHOE_OVER and len(table.deck) > 8:
        table.start_round()
        while table.phase is Phase.DEALING:
            if len(table.deck) == cut_at and VARIANTS[variant].burn:
                table.cut()
            table.card()
        if table.round_no >= 200:  # mini has no cut card: stop the shoe by hand
            break
    if table.phase is not Phase.SHOE_OVER:
        assert table.command("void_shoe")
    check_wire(table.wire, document_validators)
    results = [json.loads(t) for t in table.wire if '"type":"round_result"' in t]
    assert len(results) >= 30
    for result in results:  # every bet id of the variant, a number or not_offered
        assert set(result["settlement"]) == set(VARIANTS[variant].bet_ids)
    if variant == "super_six":  # Big and Small stop after round 30 (game-rules.md)
        assert results[40]["settlement"]["big"] == NOT_OFFERED


def shoe_with_trouble(table: ContractTable) -> str:
    """Cards with no shoe, a burn with a misread, readers and cards going missing mid-round.

    Returns the id of the last round settled.
    """
    table.card()  # before any shoe: alarm card_without_shoe
    table.cut()  # alarm unexpected_cut_card
    assert not table.command("close_betting")  # refused: wrong phase
    table.sign_in("D-1", StaffRole.DEALER)
    table.sign_in("S-1", StaffRole.SUPERVISOR)
    assert table.command("new_shoe", shoe_id="S-0042")
    table.card()  # the face-up burn card
    table.misread()  # a burned card nobody read still counts
    table.burn()
    for _ in range(2):
        table.play_round()
    # reader offline in mid-round, then back
    table.start_round()
    table.card()
    table.reader_offline()
    table.reader_back()
    table.finish_round()
    # a misread in mid-round, entered by hand
    table.start_round()
    table.card()
    missed = table.misread()
    assert table.command("manual_card", card=missed.code)
    table.finish_round()
    # lost frames in mid-round, the missing card entered by hand
    table.start_round()
    table.card()
    table.lost_frames(1)
    assert table.command("manual_card", card=table.deck.pop().code)
    table.finish_round()
    return table.round_id


def dealer_and_supervisor_fixes(table: ContractTable, settled: str) -> None:
    """Unnecessary, exposed and dropped cards, a misdeal, a void and a correction.

    A new dealer takes over on the way, and the supervisor signs out after the correction.
    """
    table.sign_in("D-2", StaffRole.DEALER)
    table.card()  # between rounds: unnecessary card
    assert table.command("open_betting")
    table.card()  # exposed card while betting
    table.start_round()
    table.card()
    assert table.command("dropped_card", read=True)  # reused: nothing changes
    table.finish_round()
    table.start_round()
    table.card()
    assert table.command("dropped_card", read=False)  # the round is voided
    table.start_round()
    table.card()
    table.card()
    assert table.command("misdeal")
    table.play_round()
    corrected = table.round_id
    table.play_round()
    assert table.command("void_round", round_id=settled)
    assert table.command(
        "correct_result", round_id=corrected, player=["9S", "TH"], banker=["8D", "KC"]
    )
    assert not table.command("void_round", round_id="S-0042-999")  # unknown_round
    assert table.command("dispute", reason="patron says the banker had 7", rounds=[corrected])
    assert not table.command("dispute", reason="another", rounds=[settled])  # dispute_open
    assert table.command("resolve_dispute", dispute_id="T07-D0001", outcome="video: it stands")
    assert table.command("acknowledge_alarm", alarm_id="T07-A000001", comment="seen: no shoe")
    assert not table.command("acknowledge_alarm", alarm_id="T07-A000001")  # already acknowledged
    assert table.command("sign_out", staff_id="S-1")
    assert not table.command("sign_out", staff_id="S-9")  # not_signed_in


def shoe_ends_and_the_next_is_voided(table: ContractTable) -> None:
    """The cut card in mid-round, cards after the last round, a second shoe voided."""
    table.start_round()
    table.card()
    table.cut()
    table.finish_round()
    assert table.phase is Phase.SHOE_OVER
    table.card()
    table.card()
    assert table.command("new_shoe")  # numbered by the table
    table.burn()
    table.play_round()
    table.start_round()
    table.card()
    assert table.command("void_shoe")


def test_every_event_type_of_the_spec_is_published_and_fits_its_model(
    document_validators: Any,
) -> None:
    table = ContractTable("commission", seed=11)
    settled = shoe_with_trouble(table)
    dealer_and_supervisor_fixes(table, settled)
    shoe_ends_and_the_next_is_voided(table)

    check_wire(table.wire, document_validators)
    assert set(SPEC_EVENT_TYPES) <= types_of(table.wire)
    assert {"roads", "state", "command_reply"} <= types_of(table.wire)
    alarms = {json.loads(t)["code"] for t in table.wire if '"type":"alarm"' in t}
    assert {
        "card_without_shoe",
        "unexpected_cut_card",
        "misread",
        "lost_frames",
        "reader_offline",
        "unnecessary_card",
        "exposed_card",
        "card_after_last_round",
    } <= alarms


def test_a_foreign_card_alarm_fits_the_contract(document_validators: Any) -> None:
    table = ContractTable("commission", seed=12)
    assert table.command("new_shoe", shoe_id="S-F")
    table.burn()
    ace = table.deck[-1]
    while table.phase is not Phase.HELD:  # the same card over and over: the 9th is foreign
        if table.phase is Phase.BETWEEN_ROUNDS:
            table.start_round()
        table.card(ace)
    assert table.command("void_shoe")
    check_wire(table.wire, document_validators)
    foreign = [json.loads(t) for t in table.wire if '"code":"foreign_card"' in t]
    assert foreign
    assert foreign[0]["card"] == ace.code


def test_replay_json_output_fits_the_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document_validators: Any
) -> None:
    table = ContractTable("super_six", seed=21)
    lines = [{"command": "new_shoe", "args": {"shoe_id": "S-R"}, "ts": "2026-11-29T12:00:00Z"}]
    lines += [{"card": card.code, "ts": "2026-11-29T12:00:01.5Z"} for card in table.deck[:6]]
    for round_no in range(3):
        lines += [
            {"command": "open_betting", "ts": "2026-11-29T12:01:00Z"},
            {"command": "close_betting", "ts": "2026-11-29T12:01:30Z"},
        ]
        start = 6 + 6 * round_no
        lines += [
            {"card": card.code, "ts": "2026-11-29T12:02:00Z"}
            for card in table.deck[start : start + 6]
        ]
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status = main(["replay", "--variant", "super_six", "--inputs", str(inputs), "--json"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    check_wire(out, document_validators)
    assert {"shoe_started", "burn", "round_result", "roads"} <= types_of(out)


# --- the models against the spec -------------------------------------------------------------


def test_the_spec_example_round_result_fits() -> None:
    example = {
        "schema": "baccarat-table/1",
        "type": "round_result",
        "table_id": "T07",
        "seq": 1234,
        "ts": "2026-11-29T12:00:00.123Z",
        "shoe_id": "S-0042",
        "round_no": 45,
        "round_id": "S-0042-45",
        "dealer": "D-104",
        "player": {"cards": ["QH", "4S", "9D"], "total": 3},
        "banker": {"cards": ["6C", "KD"], "total": 6},
        "winner": "banker",
        "natural": False,
        "cards_dealt": 5,
        "player_pair": False,
        "banker_pair": False,
        "last_round": False,
        "settlement": {
            "player": -1,
            "banker": 0.5,
            "tie": -1,
            "super_six": 12,
            "player_pair": -1,
            "banker_pair": -1,
            "big": "not_offered",
            "small": "not_offered",
        },
        "manual_cards": [],
    }
    round_result = MESSAGE_MODELS["round_result"]
    round_result.model_validate_json(json.dumps(example), strict=True)
    for field, bad in [
        ("settlement", {"player": "-1"}),
        ("settlement", {"no_such_bet": 1}),
        ("player", {"cards": ["10H", "4S"], "total": 4}),
        ("winner", "dragon"),
        ("round_no", 0),
        ("schema", "baccarat-table/2"),
        ("ts", "yesterday"),
    ]:
        with pytest.raises(ValidationError):
            round_result.model_validate_json(json.dumps({**example, field: bad}), strict=True)
    with pytest.raises(ValidationError):
        round_result.model_validate_json(
            json.dumps({k: v for k, v in example.items() if k != "round_id"}), strict=True
        )


def test_status_odds_and_replies_that_the_core_does_not_build_fit_their_models() -> None:
    status_message = MESSAGE_MODELS["status"]
    envelope = {
        "schema": "baccarat-table/1",
        "table_id": "T07",
        "seq": 9,
        "ts": "2026-11-29T12:00:00Z",
    }
    status_envelope = {key: value for key, value in envelope.items() if key != "seq"}
    status_message.model_validate(
        {
            **status_envelope,
            "type": "status",
            "last_seq": 9,
            "online": True,
            "session": 3,
            "version": "0.1.0",
            "reader": "connected",
        }
    )
    will = {
        **status_envelope,
        "type": "status",
        "last_seq": 9,
        "online": False,
        "session": 3,
        "version": "0.1.0",
    }
    assert status_message.model_validate(will).model_dump().get("reader") is None
    fresh = {**will, "last_seq": 0, "online": True, "session": 1}
    assert status_message.model_validate(fresh).model_dump()["last_seq"] == 0  # before any message
    status_schema = jsonschema.Draft202012Validator(payload_schemas()["status"])
    status_schema.validate(will)
    for wrong in (
        {**will, "reader": "asleep"},
        {key: value for key, value in will.items() if key != "last_seq"},
        {**will, "seq": 9},  # a status with a seq of its own would pass for a stream message
    ):
        with pytest.raises(ValidationError):
            status_message.model_validate(wrong)
        assert not status_schema.is_valid(wrong)
    banker = {
        "ev": -0.0106,
        "house_edge": 0.0106,
        "rtp": 0.9894,
        "probabilities": {"win": 0.4586, "push": 0.0952, "lose": 0.4462},
    }
    odds = {
        **envelope,
        "type": "odds",
        "shoe_id": "S-1",
        "round_no": 2,
        "cards_left": 400,
        "bets": {"banker": banker},
    }
    MESSAGE_MODELS["odds"].model_validate(odds)
    unknown_bet = {"dragon": banker}
    for wrong_odds in ({**odds, "round_no": 0}, {**odds, "bets": unknown_bet}):
        with pytest.raises(ValidationError):
            MESSAGE_MODELS["odds"].model_validate(wrong_odds)
    refused = MESSAGE_MODELS["command_reply"].model_validate(
        {
            **envelope,
            "type": "command_reply",
            "id": None,
            "ok": False,
            "error": "malformed_json",
            "message": "the command must be a JSON object",
        }
    )
    assert refused.model_dump()["id"] is None


def test_a_reply_the_table_could_not_record_has_no_seq_and_fits_the_contract() -> None:
    refusal = JournalRefusal(cause="database or disk is full (SQLITE_FULL)", disk_full=True)
    reply = refusal_reply("c-9", "new_shoe", refusal)
    message = OutgoingMessage(key="unrecorded", payload=reply, ts="2026-11-29T12:00:00.000Z")
    text = unrecorded_message(message, table_id="T07", seal=None)
    unrecorded = json.loads(text)
    assert "seq" not in unrecorded
    assert unrecorded["error"] == "journal_unavailable"
    MESSAGE_MODELS["command_reply"].model_validate_json(text, strict=True)
    jsonschema.Draft202012Validator(payload_schemas()["command_reply"]).validate(unrecorded)
    # Any other message without its seq is refused: only a reply goes out unrecorded.
    alarm = {
        "schema": "baccarat-table/1",
        "type": "alarm",
        "table_id": "T07",
        "ts": "2026-11-29T12:00:00.000Z",
        "code": "misread",
        "message": "a card left the shoe unread",
    }
    with pytest.raises(ValidationError, match="seq"):
        MESSAGE_MODELS["alarm"].model_validate(alarm)
    errors = jsonschema.Draft202012Validator(payload_schemas()["alarm"]).iter_errors(alarm)
    assert "'seq' is a required property" in {error.message for error in errors}


def test_the_contract_has_every_event_and_alarm_code_of_the_spec() -> None:
    # the alarm codes mqtt-api.md lists are all in the contract
    spec_alarms = {
        "unnecessary_card",
        "foreign_card",
        "lost_frames",
        "reader_offline",
        "misread",
        "card_after_last_round",
        "edge_positive",
        "shuffle_pattern",
        "shoe_repeated",
    }
    assert spec_alarms <= {code.value for code in AlarmCode}
    alarm_codes = MESSAGE_MODELS["alarm"].model_json_schema()["$defs"]["AlarmCode"]["enum"]
    assert set(alarm_codes) == {code.value for code in AlarmCode}
    published = {event.value for event in EventType}
    # The retained topics and the replies have topics of their own: they are not events.
    own_topics = {"roads", "odds", "state", "stats", "limits", "status", "command_reply"}
    assert published - own_topics == set(EVENT_MODELS) == set(SPEC_EVENT_TYPES)
    assert list(EVENT_MODELS) == SPEC_EVENT_TYPES
    assert set(MESSAGE_MODELS) == published


# --- the generated documents -------------------------------------------------------------


def committed_files() -> dict[str, str]:
    return {
        str(path.relative_to(COMMITTED)): path.read_text(encoding="utf-8")
        for path in sorted(COMMITTED.rglob("*"))
        if path.is_file()
    }


def test_the_committed_documents_match_the_payload_types() -> None:
    generated = generated_files()
    committed = committed_files()
    missing = sorted(set(generated) - set(committed))
    stale = sorted(set(committed) - set(generated))
    changed = sorted(
        name for name in set(generated) & set(committed) if generated[name] != committed[name]
    )
    advice = "docs/api drifted from the payload types: run 'table-controller schema' and commit"
    assert not missing, f"{advice}; missing {missing}"
    assert not stale, f"{advice}; no model for {stale}"
    assert not changed, f"{advice}; changed {changed}"


def test_the_asyncapi_document_is_valid_asyncapi_3(asyncapi_meta_schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft7Validator(asyncapi_meta_schema)
    committed = json.loads((COMMITTED / "asyncapi.json").read_text(encoding="utf-8"))
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(committed)]
    assert not errors, "\n".join(errors[:10])
    # the validator does look: an AsyncAPI 2 style operation and a bad QoS are refused
    broken = copy.deepcopy(committed)
    broken["operations"]["publish_round_result"]["action"] = "publish"
    broken["operations"]["publish_status"]["bindings"]["mqtt"]["qos"] = 3
    assert len(list(validator.iter_errors(broken))) >= 1
    assert not validator.is_valid(broken)


def test_the_document_has_every_topic_of_the_spec_with_qos_1_and_its_retain_flag() -> None:
    document = asyncapi_document()
    seen = {}
    for name, operation in document["operations"].items():
        channel = document["channels"][operation["channel"]["$ref"].rsplit("/", 1)[1]]
        topic = channel["address"].removeprefix("baccarat/tables/{table_id}/")
        seen[topic] = operation["action"]
        mqtt = operation["bindings"]["mqtt"]
        assert mqtt["qos"] == 1, name
        retained = topic in {"status", "state", "roads", "odds", "stats", "limits"}
        assert mqtt["retain"] is retained, name
    assert seen == SPEC_TOPICS
    assert document["operations"]["receive_command"]["reply"]["channel"] == {
        "$ref": "#/channels/command_reply"
    }
    assert asyncapi_document(prefix="casino/floor2")["channels"]["status"]["address"] == (
        "casino/floor2/{table_id}/status"
    )


def test_every_payload_schema_is_a_valid_json_schema() -> None:
    for name, schema in payload_schemas().items():
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["title"], name


def test_schema_subcommand_writes_and_checks_the_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "api"
    assert main(["schema", "--out", str(out)]) == 0
    written = {
        str(path.relative_to(out)): path.read_text(encoding="utf-8")
        for path in out.rglob("*")
        if path.is_file()
    }
    assert written == generated_files()
    assert main(["schema", "--out", str(out), "--check"]) == 0
    (out / "schemas/round_result.json").write_text("{}\n", encoding="utf-8")
    (out / "schemas/alarm.json").unlink()
    assert main(["schema", "--out", str(out), "--check"]) == 1
    err = capsys.readouterr().err
    assert "round_result.json: out of date" in err
    assert "alarm.json: out of date" in err
    with pytest.raises(SystemExit) as stopped:
        main(["schema", "--topic-prefix", "a/+/b", "--out", str(out)])
    assert stopped.value.code == 2
    assert "--topic-prefix" in capsys.readouterr().err


def test_the_checks_catch_an_undescribed_field_and_a_wrong_value(
    document_validators: Any,
) -> None:
    table = ContractTable("commission", seed=31)
    assert table.command("new_shoe", shoe_id="S-X")
    table.burn()
    table.play_round()
    text = next(t for t in table.wire if '"type":"round_result"' in t)
    check_wire([text], document_validators)
    message = json.loads(text)
    squeezed = {**message["player"], "squeezed": True}
    with_extra = {**message, "player": squeezed, "not_in_the_contract": "D9"}
    parsed = MESSAGE_MODELS["round_result"].model_validate_json(json.dumps(with_extra), strict=True)
    assert sorted(extra_fields(parsed)) == ["not_in_the_contract", "player.squeezed"]
    with pytest.raises(AssertionError, match="undescribed"):
        check_wire([json.dumps(with_extra)], document_validators)
    wrong = {**message, "winner": "dragon"}
    assert not document_validators["round_result"].is_valid(wrong)
    with pytest.raises(pytest.fail.Exception, match="does not fit RoundSettled"):
        check_wire([json.dumps(wrong)], document_validators)
