# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One atheris entry point per input edge, each checked by the oracles of ``tests/fuzz``.

Test tooling, not shipped: it runs only under atheris (``python -m fuzz TARGET -runs=N``) and
reuses the properties of the hypothesis suites, so both kinds of fuzzing hold the targets to
the same promises: no exception but the target's own error type, a bounded buffer, no card
that was not in the input, and nothing accepted that the contract refuses.
"""

from __future__ import annotations

import json
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Final

from tests.fuzz.test_fuzz_commands import check_parse_commands
from tests.fuzz.test_fuzz_records import check_records
from tests.fuzz.test_fuzz_settings import Sources, check_sources
from tests.fuzz.test_fuzz_srp import Stream, check_decoder, check_host
from tests.fuzz.test_fuzz_textline import LineStream, check_parse_lines, check_session
from tests.fuzz.test_fuzz_variant_file import check_documents, check_variant_text


def _reads(data: bytes) -> tuple[bytes, ...]:
    """The input after its first byte, split into reads whose sizes the first byte seeds."""
    if not data:
        return ()
    step, body = data[0] % 31 + 1, data[1:]
    sizes = [(step * (index + 3)) % 97 + 1 for index in range(len(body))]
    reads, position = [], 0
    for size in sizes:
        if position >= len(body):
            break
        reads.append(body[position : position + size])
        position += size
    return tuple(reads)


def srp(data: bytes) -> None:
    """SRP/1 decoder and host session: spec frames only, zero invented cards."""
    reads = _reads(data)
    stream = Stream(data=b"".join(reads), pieces=0, reads=reads)
    check_decoder(stream)
    check_host(stream, confirm=bool(data[:1]) and data[0] % 2 == 0)


def textline(data: bytes) -> None:
    """Bee-Tek text lines: cards exactly where the spec's grammar reads them."""
    reads = _reads(data)
    joined = b"".join(reads)
    check_session(LineStream(data=joined, lines=joined.count(b"\n"), reads=reads))
    check_parse_lines(joined.split(b"\n"))


def command(data: bytes) -> None:
    """MQTT commands: accepted exactly when the contract allows."""
    check_parse_commands([data])


def record(data: bytes) -> None:
    """Input records: any JSON value gives an input or ``RecordRejected``."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return
    check_records([value])


def variant_file(data: bytes) -> None:
    """The variant file, as TOML text and as the document it parses to."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    with tempfile.TemporaryDirectory() as directory:
        check_variant_text(text, Path(directory))
    try:
        document = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return
    check_documents([document])


def settings(data: bytes) -> None:
    """The settings loader over a TOML file of any bytes, with a minimal set of flags."""
    flags = {"table_id": "T1", "card_source": "rng"}
    with tempfile.TemporaryDirectory() as directory:
        check_sources(Sources(None, data, {}, flags), Path(directory))


TARGETS: Final[dict[str, Callable[[bytes], None]]] = {
    "srp": srp,
    "textline": textline,
    "command": command,
    "record": record,
    "variant_file": variant_file,
    "settings": settings,
}
