# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fuzzing the variant file: any document gives the variants or ``VariantFileError``.

Documents are overrides built from the file's documented format (payouts as 9, 0.95 or
"19/20"; windows as ``[first, last]`` or ``"every_round"``, never on a main bet; a three-card 7
paid as any Banker win following the win's new payout) over the real variants, bets and
tiers, with unknown names, wrong types, negative, infinite and not-a-number payouts, and
out-of-range windows mixed in, plus arbitrary values. Oracles:

* ``parse_variant_overrides`` returns a dict of variants or raises ``VariantFileError``,
  nothing else (known bugs aside, see ``fuzz_support.KNOWN_BUGS``);
* what it returns is exactly the built-in variants with the overrides applied, as an
  independent reading of the format computes them; nothing is half-applied;
* the same documents written as TOML text and read by ``load_variants`` give the same
  outcome, and any text (cut, flipped) gives variants or ``VariantFileError``.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.rules.bets import BETS
from table_controller.rules.variants import VARIANTS, Variant
from table_controller.variant_file import (
    VariantFileError,
    load_variants,
    parse_variant_overrides,
)
from tests.fuzz import fuzz_support as fuzz
from tests.fuzz.toml_text import toml_document

#: Fraction("1e999999999") takes forever: the fuzzers never send exponents this large
#: (reported to the lead as a hang, not tolerated as a known exception).
_HUGE_EXPONENT: Final = re.compile(r"[eE][+]?0*\d{6,}")

Offers = dict[str, tuple[dict[str, Fraction], tuple[int, int] | None]]

#: The payout texts the file's format documents: 9, 0.95 or "19/20" (no signs, exponents or
#: "inf"), at most nine digits a part; and the largest payout a file may set.
_PAYOUT_FORMS: Final = re.compile(r"\d{1,9}(\.\d{1,9})?|\d{1,9}/\d{1,9}")
_LARGEST_PAYOUT: Final = 1_000_000


class Invalid(Exception):  # noqa: N818 - the checker's verdict, never leaves this module
    pass


def _offers(variant: Variant) -> Offers:
    return {
        offer.bet_id: (
            dict(offer.payouts),
            None if offer.window is None else (offer.window.first, offer.window.last),
        )
        for offer in variant.bets
    }


def _payout(value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise Invalid
    if isinstance(value, str) and not _PAYOUT_FORMS.fullmatch(value.strip()):
        raise Invalid
    if isinstance(value, float) and not math.isfinite(value):
        raise Invalid
    try:
        payout = Fraction(value) if isinstance(value, int) else Fraction(str(value))
    except (ValueError, ZeroDivisionError) as error:
        raise Invalid from error
    if not 0 <= payout <= _LARGEST_PAYOUT:
        raise Invalid
    return payout


#: The bets offered on every round, which take no window.
_MAIN_BETS: Final = ("player", "banker", "tie")


def _window(
    value: object, current: tuple[int, int] | None, *, main: bool
) -> tuple[int, int] | None:
    if value == "every_round":
        return None
    if value is None:
        return current
    if main:
        raise Invalid
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in value)
    ):
        raise Invalid
    first, last = value
    if not 1 <= first <= last <= 200:
        raise Invalid
    return (first, last)


def _new_payouts(bet_id: str, payouts: dict[str, Fraction], given: object) -> dict[str, Fraction]:
    if not isinstance(given, dict):
        raise Invalid
    new_payouts = dict(payouts)
    for tier, value in given.items():
        if tier not in new_payouts:
            raise Invalid
        new_payouts[tier] = _payout(value)
    # The Banker's three-card 7 win, paid as any other win, follows the win's new payout.
    follows = bet_id == "banker" and payouts["three_card_7"] == payouts["win"]
    if follows and "three_card_7" not in given:
        new_payouts["three_card_7"] = new_payouts["win"]
    return new_payouts


def _apply(offers: Offers, raw: object) -> Offers:
    if not isinstance(raw, dict) or not set(raw) <= {"bets"}:
        raise Invalid
    bets = raw.get("bets", {})
    if not isinstance(bets, dict):
        raise Invalid
    for bet_id, override in bets.items():
        if not isinstance(override, dict) or not set(override) <= {"payouts", "window"}:
            raise Invalid
        if bet_id not in offers:
            raise Invalid
        payouts, window = offers[bet_id]
        new_payouts = _new_payouts(bet_id, payouts, override.get("payouts", {}))
        window_given = override.get("window")
        offers[bet_id] = (new_payouts, _window(window_given, window, main=bet_id in _MAIN_BETS))
    return offers


def reference_variants(document: Mapping[str, object]) -> dict[str, Offers]:
    """The variants' offers once the document is applied; raises ``Invalid``."""
    result = {name: _offers(variant) for name, variant in VARIANTS.items()}
    for name, raw in document.items():
        if name not in result:
            raise Invalid
        result[name] = _apply(result[name], raw)
    return result


def infinite_payout(document: object) -> bool:
    """The known bug ``variant-infinite-payout``: a float payout of +inf or -inf."""
    if isinstance(document, float):
        return math.isinf(document)
    if isinstance(document, dict):
        return any(infinite_payout(value) for value in document.values())
    return False


_TOML_INFINITY: Final = re.compile(r"= [+-]?inf\b")


# --- documents ------------------------------------------------------------------------------

short_text = st.text(max_size=8)
tiers = sorted({tier for rule in BETS.values() for tier in rule.tiers})
payouts = st.one_of(
    st.integers(-3, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=0, max_value=100).map(lambda x: round(x, 2)),
    st.sampled_from(
        ["19/20", "0.95", "9", " 7 ", "1/0", "-1", "abc", "1e3", "1e400", "nan", "inf", ""]
    ),
    st.booleans(),
    short_text,
)
windows = st.one_of(
    st.tuples(st.integers(-1, 202), st.integers(-1, 202)).map(list),
    st.just("every_round"),
    st.lists(st.integers(0, 60), max_size=3),
    st.sampled_from(["always", 5, [1.0, 2.0], [True, 3]]),
)
any_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | short_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(short_text, inner, max_size=3),
    max_leaves=8,
)


good_payouts = st.one_of(
    st.integers(0, 1000),
    st.floats(min_value=0, max_value=100).map(lambda x: round(x, 2)),
    st.sampled_from(["19/20", "0.95", "9", "3/2"]),
)


@st.composite
def bet_overrides(draw: st.DrawFn, bet_id: str) -> dict[str, Any]:
    override: dict[str, Any] = {}
    known_tiers = BETS[bet_id].tiers if bet_id in BETS else ("win",)
    if draw(st.booleans()):
        chosen = draw(st.lists(fuzz.rarely(st.sampled_from(known_tiers), short_text), max_size=3))
        override["payouts"] = {tier: draw(fuzz.rarely(good_payouts, payouts)) for tier in chosen}
    if draw(st.booleans()):
        good_window = st.integers(1, 200).flatmap(
            lambda a: st.tuples(st.just(a), st.integers(a, 200))
        )
        override["window"] = draw(fuzz.rarely(good_window.map(list), windows))
    if draw(fuzz.one_in(20)):
        override[draw(short_text)] = draw(any_value)
    return override


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(fuzz.rarely(st.sampled_from(sorted(VARIANTS)), short_text), max_size=3))
    document: dict[str, Any] = {}
    for name in names:
        offered = VARIANTS[name].bet_ids if name in VARIANTS else ("tie",)
        bet_ids = draw(
            st.lists(
                fuzz.rarely(st.sampled_from(offered), st.sampled_from(sorted(BETS)) | short_text),
                max_size=3,
            )
        )
        variant: dict[str, Any] = {"bets": {bet: draw(bet_overrides(bet)) for bet in bet_ids}}
        if draw(fuzz.one_in(20)):
            variant = draw(st.sampled_from([{"bet": {}}, {"bets": []}, {"bets": {"tie": 9}}]))
        document[name] = variant
    if draw(fuzz.one_in(20)):
        document[draw(short_text)] = draw(any_value)
    return document


def outcome(document: Mapping[str, object]) -> dict[str, Offers] | None:
    """What ``parse_variant_overrides`` gives, as offers, or None for ``VariantFileError``."""
    try:
        variants = parse_variant_overrides(document)
    except VariantFileError:
        return None
    assert set(variants) == set(VARIANTS)
    return {name: _offers(variant) for name, variant in variants.items()}


def check_documents(batch: list[dict[str, Any]]) -> None:
    accepted = sum(check_document(document) for document in batch)
    fuzz.count_example("parse_variant_overrides", len(batch), accepted=accepted)


def check_document(document: dict[str, Any]) -> bool:
    """Check one document against the oracle; returns whether it was accepted."""
    try:
        got = outcome(document)
    except OverflowError:
        if not infinite_payout(document):
            raise
        fuzz.count_known_bug("parse_variant_overrides", "variant-infinite-payout")
        return False
    try:
        expected: dict[str, Offers] | None = reference_variants(document)
    except Invalid:
        expected = None
    assert got == expected, document
    return got is not None


@st.composite
def variant_texts(draw: st.DrawFn) -> str:
    text = toml_document(draw(documents()))
    match draw(fuzz.rarely(st.just("intact"), st.sampled_from(["cut", "insert"]), n=3)):
        case "cut":
            return text[: draw(st.integers(0, len(text)))]
        case "insert":
            at = draw(st.integers(0, len(text)))
            return text[:at] + draw(st.text(max_size=3)) + text[at:]
        case _:
            return text


def check_variant_text(text: str, directory: Path) -> None:
    if _HUGE_EXPONENT.search(text):
        return
    path = directory / "variants.toml"
    path.write_text(text, encoding="utf-8")
    try:
        got = outcome_of_file(path)
    except OverflowError:
        if not _TOML_INFINITY.search(text):
            raise
        fuzz.count_known_bug("load_variants", "variant-infinite-payout")
    else:
        # The reference reads the text with tomllib: the TOML parser is not what is fuzzed.
        # load_variants reads the file in text mode, whose universal newlines turn a bare CR
        # into LF (so a file TOML would refuse for its bare CRs loads): the reference does too.
        universal = text.replace("\r\n", "\n").replace("\r", "\n")
        try:
            expected: dict[str, Offers] | None = reference_variants(tomllib.loads(universal))
        except (tomllib.TOMLDecodeError, Invalid):
            expected = None
        assert got == expected, text
    fuzz.count_example("load_variants", 1, bytes=len(text.encode("utf-8")))


def outcome_of_file(path: Path) -> dict[str, Offers] | None:
    try:
        variants = load_variants(path)
    except VariantFileError:
        return None
    return {name: _offers(variant) for name, variant in variants.items()}


@fuzz.fast_settings(1)
@given(st.lists(documents(), min_size=4, max_size=12))
def test_variant_documents_give_variants_or_an_error(batch: list[dict[str, Any]]) -> None:
    check_documents(batch)


@fuzz.fast_settings(1)
@given(variant_texts())
def test_variant_files_give_variants_or_an_error(text: str) -> None:
    fuzz.in_a_scratch_directory(check_variant_text)(text)


#: Long-profile weights (examples per unit of ``FUZZ_EXAMPLES``).
DOCUMENT_WEIGHT, FILE_WEIGHT = 0.4, 0.1


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(DOCUMENT_WEIGHT))
def test_long_variant_documents(round_no: int) -> None:
    fuzz.run_long_round(
        "parse_variant_overrides",
        check_documents,
        st.lists(documents(), min_size=4, max_size=12),
        DOCUMENT_WEIGHT,
        round_no,
    )


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(FILE_WEIGHT))
def test_long_variant_files(round_no: int) -> None:
    fuzz.run_long_round(
        "load_variants",
        fuzz.in_a_scratch_directory(check_variant_text),
        variant_texts(),
        FILE_WEIGHT,
        round_no,
    )
