# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""docs/shoe-protocol.md against ``drivers/``: frame types, examples, rejection reasons."""

from __future__ import annotations

from pathlib import Path

from drivers.srp.codec import RejectReason, parse_frame
from drivers.srp.constants import Lamp
from drivers.srp.frames import ACKNOWLEDGED_TYPES, Frame, FrameType, Talker
from drivers.srp.host import SessionRejectReason
from drivers.textline import TextRejectReason
from tests.docs.markdown import code_blocks, code_spans, sections, table_with

DOC = Path(__file__).resolve().parents[2] / "docs/shoe-protocol.md"


def _section(level: int, title: str) -> str:
    found = sections(DOC.read_text(encoding="utf-8"), level)
    assert title in found, f"docs/shoe-protocol.md has no heading {title!r}"
    return found[title]


def _constants(holder: type) -> set[str]:
    return {value for name, value in vars(holder).items() if name.isupper()}


def test_the_frame_tables_are_the_frame_types_of_each_talker() -> None:
    frames = _section(3, "Frames")
    from_shoe = table_with(frames, "type")
    shoe_types = {code_spans(cell)[0] for cell in from_shoe.column(0)}
    acknowledged = {code_spans(row[0])[0] for row in from_shoe.rows if row[3] == "yes"}
    host_types = {
        code_spans(row[0])[0] for table_text in frames.split("Frames from the host:")[1:]
        for row in table_with(table_text, "type").rows
    }  # fmt: skip
    assert shoe_types | host_types == {frame_type.value for frame_type in FrameType}
    assert host_types == {"ACK", "LAMP"}
    assert acknowledged == {frame_type.value for frame_type in ACKNOWLEDGED_TYPES}
    assert {lamp.value for lamp in Lamp} <= set(code_spans(frames))


def test_every_example_frame_decodes_with_its_checksum() -> None:
    examples = [
        line for block in code_blocks(_section(3, "Frames")) if block.language == "text"
        for line in block.text.splitlines() if not line.startswith("$<")
    ]  # fmt: skip
    assert len(examples) >= len(FrameType)
    decoded = [parse_frame(line.encode() + b"\r\n") for line in examples]
    assert all(isinstance(frame, Frame) for frame in decoded), decoded
    assert {frame.type for frame in decoded if isinstance(frame, Frame)} == set(FrameType)
    assert {frame.talker for frame in decoded if isinstance(frame, Frame)} == set(Talker)


def test_every_srp_rejection_reason_is_documented_and_no_other() -> None:
    table = table_with(_section(3, "What is rejected"), "reason")
    documented = {code_spans(cell)[0] for cell in table.column(0)}
    assert documented == {reason.value for reason in RejectReason} | _constants(SessionRejectReason)


def test_every_text_line_rejection_reason_is_documented_and_no_other() -> None:
    table = table_with(_section(2, "The text-line profile (Bee-Tek style)"), "reason")
    documented = {code_spans(cell)[0] for cell in table.column(0)}
    # "truncated": a partial line when the port closes (TextLineSession.connection_lost).
    assert documented == _constants(TextRejectReason) | {"truncated"}


def test_the_page_stands_alone() -> None:
    assert "spec/" not in DOC.read_text(encoding="utf-8")
