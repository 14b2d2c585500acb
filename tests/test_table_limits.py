# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The configured stake limits: the settings over the variant file, and when they are journaled."""

from __future__ import annotations

from fractions import Fraction

import pytest

from table_controller.contract.payloads.state import BetLimits, TableLimits
from table_controller.procedure.inputs import LimitsConfigured
from table_controller.rules.variants import VARIANTS
from table_controller.table_limits import LimitsError, configured_limits, to_journal


def bet(low: int, high: int) -> BetLimits:
    return BetLimits(min=Fraction(low), max=Fraction(high))


def test_the_settings_replace_the_variant_files_limits_bet_by_bet() -> None:
    limits = configured_limits(
        VARIANTS["commission"], currency="MOP",
        from_variant_file={"tie": bet(10, 1000), "banker": bet(50, 5000)},
        from_settings={"banker": bet(100, 10000), "player": bet(100, 10000)},
    )
    assert limits == TableLimits(currency="MOP", limits={
        "player": bet(100, 10000), "banker": bet(100, 10000), "tie": bet(10, 1000)})
    assert list(limits.limits) == ["player", "banker", "tie"]  # the variant's order


def test_a_bet_the_variant_does_not_offer_is_named() -> None:
    with pytest.raises(LimitsError, match=r"limits\.lucky_6: the 'commission' variant does not"):
        configured_limits(VARIANTS["commission"], currency="USD", from_variant_file={},
                          from_settings={"lucky_6": bet(1, 2)})


def test_the_configuration_is_journaled_only_when_it_is_new() -> None:
    configured = TableLimits(currency="MOP", limits={"tie": bet(10, 1000)})
    first = to_journal(None, configured, at=3.0)
    assert first == LimitsConfigured(at=3.0, currency="MOP", limits={"tie": bet(10, 1000)})
    assert to_journal(configured, configured, at=4.0) is None  # a restart, nothing changed
    edited = TableLimits(currency="MOP", limits={"tie": bet(20, 1000)})
    assert to_journal(configured, edited, at=5.0) is not None
    assert to_journal(None, TableLimits(), at=6.0) is None  # no limits configured, ever
    assert to_journal(configured, TableLimits(), at=7.0) == LimitsConfigured(
        at=7.0, currency="USD", limits={})  # the limits were taken out of the configuration
