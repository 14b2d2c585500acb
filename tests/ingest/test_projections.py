# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest's reading of payloads: msgspec's, with the standard library's result and reasons."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest

from table_controller.ingest import projections as p

#: Payloads both readers accept, and those msgspec refuses that ``json`` reads (a lone
#: surrogate escape, a float beyond a double's range).
READ = [
    b'{"a": 1, "b": [true, false, null], "c": {"d": "\\u00e9\\ud83d\\ude00"}}',
    b'{"a": 1, "a": 2}',
    b'{"big": 123456789012345678901234567890, "neg": -123456789012345678901234567890}',
    b'{"f": 0.95, "g": -0.0, "h": 1E2, "i": 2.5e-7, "j": 1.0, "k": 0.1}',
    b' {"lone": "\\ud800"} ',
    b'{"huge": 1e400, "tiny": 1e-400}',
    '{"text": "été 中文"}'.encode(),
]


@pytest.mark.parametrize("payload", READ)
def test_a_payload_reads_as_the_standard_library_reads_it(payload: bytes) -> None:
    for exact, number in ((True, Decimal), (False, float)):
        expected = json.loads(payload, parse_float=number)
        got = p.parse(payload, exact=exact)
        assert got == expected
        assert repr(got) == repr(expected)  # the same types: Decimal or float, int


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"not json", "not UTF-8 JSON: Expecting value"),
        (b'{"a": 1} x', "not UTF-8 JSON: Extra data"),
        (b'{"a": NaN}', "not UTF-8 JSON: NaN is not a JSON number"),
        (b'{"a": "\xff"}', "not UTF-8 JSON: 'utf-8' codec can't decode"),
        (b"[" * 100_000 + b"]" * 100_000, "not UTF-8 JSON: maximum recursion depth"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"a": "\\u0000"}', "a NUL character"),
    ],
)
def test_a_payload_that_is_not_a_json_object_says_why(payload: bytes, reason: str) -> None:
    for exact in (True, False):
        with pytest.raises(p.BadMessage, match="^" + reason.replace("(", r"\(")):
            p.parse(payload, exact=exact)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(Decimal("0.95"), Fraction(19, 20)), (Decimal("-1.000"), Fraction(-1)), (3, Fraction(3)),
     (Decimal("1E+2"), Fraction(100)), (10**18, Fraction(10**18))],
)  # fmt: skip
def test_a_settlement_is_its_decimal_text_exactly(value: object, expected: Fraction) -> None:
    assert p.amount(value, "settlement.bet") == expected


@pytest.mark.parametrize(
    "value", [True, 1.5, "1", None, 10**18 + 1, Decimal("1E+19"), Decimal("1E-19"), Decimal("NaN")]
)
def test_a_settlement_out_of_bounds_or_not_a_number_is_refused(value: object) -> None:
    with pytest.raises(p.BadMessage, match=r"^settlement\.bet: "):
        p.amount(value, "settlement.bet")
