"""Shared fixtures: a real mosquitto per test (with a test CA) for every suite that needs one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog
import trustme

from tests.mosquitto import (
    BrokerUnavailableError,
    Mosquitto,
    is_ci,
    mosquitto_missing,
    start_broker,
)


@pytest.fixture(autouse=True, scope="session")
def _logs_through_logging() -> None:
    """Structlog lines go to the standard library's logging, which pytest captures per test.

    Without this, structlog's default prints to stdout and mixes with what a CLI test reads.
    """
    structlog.configure(
        processors=[
            structlog.stdlib.add_log_level,
            structlog.processors.KeyValueRenderer(key_order=["event"]),
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )


@pytest.fixture(scope="session")
def test_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def broker(test_ca: trustme.CA) -> Iterator[Mosquitto]:
    """A fresh mosquitto (plain and TLS listeners, users, ACL) for one test.

    Skipped when mosquitto is not installed, except in CI (``CI`` set), where it fails.
    """
    missing = mosquitto_missing()
    if missing is not None:
        if is_ci():
            pytest.fail(f"the broker tests must run in CI: {missing}")
        pytest.skip(missing)
    try:
        server = start_broker(test_ca)
    except BrokerUnavailableError as error:
        if is_ci():
            raise
        pytest.skip(str(error))
    try:
        yield server
    finally:
        server.close()
