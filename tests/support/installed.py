# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a test needs installed: skipped on a machine without it, failed in CI, where it must run."""

from __future__ import annotations

from typing import NoReturn

import pytest

from tests.mosquitto import is_ci


def require(missing: str | None, *, in_ci: str = "this test must run in CI") -> None:
    """Skip the test when something it needs is ``missing`` (the reason); in CI, fail it."""
    if missing is not None:
        not_installed(missing, in_ci=in_ci)


def not_installed(reason: str, *, in_ci: str = "this test must run in CI") -> NoReturn:
    """Skip the test, which needs what is not installed (``reason``); in CI, fail it."""
    if is_ci():
        pytest.fail(f"{in_ci}: {reason}")
    pytest.skip(reason)


def unavailable(error: Exception) -> NoReturn:
    """Skip the test because a server it needs would not start (``error``); in CI, raise it."""
    if is_ci():
        raise error
    pytest.skip(str(error))
