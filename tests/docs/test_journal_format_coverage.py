# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""docs/journal-format.md lists every record the product can write, and its canonical form.

Where ``test_journal_format_doc.py`` checks the rows one real table wrote, this checks the
document against the product's own lists: every command, every kind of input, every reader
fact kept as an audit row, and the encoding the hash covers. A record type added to the
product fails here until it is documented.
"""

from __future__ import annotations

import dataclasses
import typing
from fractions import Fraction
from pathlib import Path
from typing import Final

from drivers.events import ReaderAlarm, ReaderEvent, ReaderHello, ReaderStatus, ShoeState
from table_controller.contract.codes import StaffRole
from table_controller.contract.payloads.state import BetLimits
from table_controller.procedure import inputs
from table_controller.procedure.records import input_to_record
from table_controller.rules.cards import Card
from table_controller.runtime.journal.format import (
    ANSWER_KEY,
    AUDIT_ROW,
    HASHED_COLUMNS,
    INPUT_ROW,
    JOURNAL_FORMAT,
    RECALL_ANSWER_KEY,
    SCHEMA,
    canonical_json,
    genesis_hash,
)
from table_controller.runtime.reader_input import audit_record
from tests.docs.markdown import code_spans, table_with

DOC: Final = Path(__file__).resolve().parents[2] / "docs/journal-format.md"
#: The command fields that are not arguments.
_NOT_ARGS: Final = frozenset({"at", "command_id", "operator", "supervisor"})
#: Command fields whose argument in the record has another name: (command, field) -> argument.
_ARG_NAMES: Final = {("dispute", "round_ids"): "rounds"}
#: One of every input that is not a command.
_SAMPLES: Final[dict[type, inputs.Input]] = {
    inputs.CardDrawn: inputs.CardDrawn(at=1.0, card=Card.parse("KH")),
    inputs.CutCardDrawn: inputs.CutCardDrawn(at=1.0),
    inputs.CardMisread: inputs.CardMisread(at=1.0),
    inputs.FramesLost: inputs.FramesLost(at=1.0, count=2),
    inputs.ReaderWentOffline: inputs.ReaderWentOffline(at=1.0),
    inputs.ReaderCameBack: inputs.ReaderCameBack(at=1.0),
    inputs.RoundAssessed: inputs.RoundAssessed(at=1.0, shoe_id="S-1", round_no=1),
    inputs.RuntimeFailed: inputs.RuntimeFailed(at=1.0, message="the draw failed"),
    inputs.SoftwareModified: inputs.SoftwareModified(
        at=1.0, message="1 file changed", details={"changed": ["table_controller/cli/run.py"]}
    ),
    inputs.LimitsConfigured: inputs.LimitsConfigured(
        at=1.0, currency="MOP", limits={"banker": BetLimits(min=Fraction(100), max=Fraction(10))}
    ),
}


def text() -> str:
    return DOC.read_text(encoding="utf-8")


def names(column: list[str]) -> set[str]:
    return {span for cell in column for span in code_spans(cell)[:1]}


def test_every_command_and_its_arguments_are_documented() -> None:
    commands = table_with(text(), "Command")
    documented = dict(zip(commands.column(0), commands.column(1), strict=True))
    assert {cell.strip("`") for cell in documented} == set(inputs.COMMANDS)
    for name, cls in inputs.COMMANDS.items():
        fields = {
            _ARG_NAMES.get((name, field.name), field.name) for field in dataclasses.fields(cls)
        } - _NOT_ARGS
        assert fields <= set(code_spans(documented[f"`{name}`"])), name


def test_every_kind_of_input_is_documented_with_the_fields_its_record_has() -> None:
    kinds_of_input = typing.get_args(inputs.Input)
    commands = set(inputs.COMMANDS.values())
    assert {cls for cls in kinds_of_input if cls not in commands} == set(_SAMPLES)
    kinds = names(table_with(text(), "Input key").column(0))
    common = names(table_with(text(), "Field").column(0))
    for sample in _SAMPLES.values():
        record = input_to_record(sample)
        assert len(set(record) - common) == 1, record
        assert set(record) - common <= kinds, record
    assessment = input_to_record(_SAMPLES[inputs.RoundAssessed])["assessed"]
    assert isinstance(assessment, dict)
    assert set(assessment) <= names(table_with(text(), "Assessment field").column(0))
    sign_in = inputs.SignIn(
        at=1.0, command_id="c-1", operator="pit", staff_id="D-1", name="A", role=StaffRole.DEALER
    )
    command_fields = names(table_with(text(), "Command field").column(0))
    assert set(input_to_record(sign_in)) <= common | command_fields | {"command"}


def test_every_audit_row_the_reader_and_the_answers_write_is_documented() -> None:
    audits = table_with(text(), "Audit key")
    documented = {
        code_spans(key)[0]: value
        for key, value in zip(audits.column(0), audits.column(1), strict=True)
    }
    facts: list[ReaderEvent] = [
        ReaderHello(model="M", firmware="1", serial="9"),
        ReaderStatus(state=ShoeState.FAULT, code="E3"),
        ReaderAlarm(code="E3", text="card not read"),
    ]
    for fact in facts:
        record = audit_record(fact)
        assert record is not None
        [(key, value)] = record.items()
        assert isinstance(value, dict)
        assert set(value) <= set(code_spans(documented[key])), key
    assert {ANSWER_KEY, RECALL_ANSWER_KEY, "reader_event", "started"} <= set(documented)
    assert (INPUT_ROW, AUDIT_ROW) == ("input", "audit")


def test_the_documented_encoding_is_the_products() -> None:
    doc = text()
    assert f"`{JOURNAL_FORMAT}`" in doc
    for column in HASHED_COLUMNS:
        assert f"| `{column}` |" in doc, column
    for line in SCHEMA.strip().splitlines()[1:]:
        assert line.strip().replace(" IF NOT EXISTS", "") in doc, line
    assert canonical_json({"b": 1, "a": "é\n\x01"}) == '{"a":"é\\n\\u0001","b":1}'
    header = '{"format":"table-controller-journal/1","table_id":"T1"}'
    assert f"printf '%s' '{header}' | sha256sum\n# {genesis_hash('T1')}  -" in doc
