# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Just enough Markdown for the docs tests: headings, fenced code blocks and pipe tables.

Test support. The docs under ``docs/`` are read as their writers lay them out: ATX headings
(``## Title``), fenced code blocks (three backticks, possibly indented inside a list item) and
pipe tables whose first row is the header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_FENCE: Final = re.compile(r"^(?P<indent> *)```(?P<info>[^`]*)$")
_HEADING: Final = re.compile(r"^(?P<marks>#{1,6}) (?P<title>.+?)\s*$")
_CODE_SPAN: Final = re.compile(r"`([^`]+)`")


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeBlock:
    """One fenced block: its info string (``sh {background=broker}``), text and first line."""

    info: str
    text: str
    line: int

    @property
    def language(self) -> str:
        return self.info.split(maxsplit=1)[0] if self.info.strip() else ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    """A pipe table: its header cells and its rows of cells, as written."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def column(self, index: int) -> list[str]:
        return [row[index] for row in self.rows]


def code_blocks(text: str) -> list[CodeBlock]:
    """Every fenced code block in document order (their lines without the fence's indent)."""
    blocks: list[CodeBlock] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent = len(opening["indent"])
        body: list[str] = []
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index][indent:] if lines[index][:indent].isspace() else lines[index])
            index += 1
        blocks.append(
            CodeBlock(info=opening["info"].strip(), text="\n".join(body), line=index - len(body))
        )
        index += 1
    return blocks


def _outside_code(text: str) -> list[str]:
    """The document's lines with the lines of fenced code blocks blanked."""
    lines = text.splitlines()
    inside = False
    kept: list[str] = []
    for line in lines:
        if _FENCE.match(line):
            inside = not inside
            kept.append("")
        else:
            kept.append("" if inside else line)
    return kept


def sections(text: str, level: int) -> dict[str, str]:
    """Each heading of ``level`` (2 for ``##``) and the text up to the next of that level or above.

    A ``#`` line inside a code block (a shell comment) is not a heading.
    """
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line, outside in zip(text.splitlines(), _outside_code(text), strict=True):
        heading = _HEADING.match(outside)
        if heading is not None and len(heading["marks"]) <= level:
            current = None
            if len(heading["marks"]) == level:
                current = found.setdefault(heading["title"], [])
                continue
        if current is not None:
            current.append(line)
    return {title: "\n".join(body) for title, body in found.items()}


def tables(text: str) -> list[Table]:
    """Every pipe table outside code blocks, in order."""
    found: list[Table] = []
    block: list[str] = []
    for line in [*_outside_code(text), ""]:
        if line.lstrip().startswith("|"):
            block.append(line.strip())
            continue
        if len(block) >= 2 and set(block[1].replace("|", "").strip()) <= set("-: "):
            rows = [_cells(row) for row in block]
            found.append(Table(header=tuple(rows[0]), rows=tuple(map(tuple, rows[2:]))))
        block = []
    return found


def _cells(row: str) -> list[str]:
    inner = row.strip().removeprefix("|").removesuffix("|")
    return [cell.strip() for cell in inner.split("|")]


def table_with(text: str, first_header: str) -> Table:
    """The first table whose header starts with ``first_header``."""
    for table in tables(text):
        if table.header[0] == first_header:
            return table
    raise AssertionError(f"no table with a first column {first_header!r}")


def code_spans(cell: str) -> list[str]:
    """The text of each `code span` of a cell or a section (its code blocks left out), in order."""
    return _CODE_SPAN.findall("\n".join(_outside_code(cell)))
