# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""MQTT settings: where the broker is, how to log in, and the table's topics.

Edge: parses ``mqtt://`` and ``mqtts://`` URLs and checks each setting, with a message naming
the one that is not usable. It imports no MQTT library, so the command line can check its
settings without loading one.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Final, Literal, Self, TypeAlias
from urllib.parse import unquote, urlsplit

from drivers.backoff import Backoff
from table_controller.contract import DEFAULT_TOPIC_PREFIX

MQTT_PORT: Final = 1883
MQTTS_PORT: Final = 8883
#: A will arrives 1.5 x keepalive after a silent partition, so 10-15 s.
DEFAULT_KEEPALIVE_S: Final = 12
#: How long the broker keeps an MQTT 5 session of a table that is away (a week).
DEFAULT_SESSION_EXPIRY_S: Final = 7 * 24 * 3600

ProtocolName: TypeAlias = Literal["3.1.1", "5"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerEndpoint:
    """Where the broker is and how to log in: parsed from ``mqtt://`` or ``mqtts://`` URLs."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    protocol: ProtocolName = "3.1.1"
    keepalive_s: int = DEFAULT_KEEPALIVE_S

    @classmethod
    def from_url(  # noqa: PLR0913 - keyword-only settings, each optional
        cls,
        url: str,
        *,
        ca_file: Path | None = None,
        cert_file: Path | None = None,
        key_file: Path | None = None,
        protocol: ProtocolName = "3.1.1",
        keepalive_s: int = DEFAULT_KEEPALIVE_S,
    ) -> Self:
        """Parse ``mqtt://[user:pass@]host[:port]`` or ``mqtts://…`` (credentials URL-quoted).

        Raises:
            ValueError: the URL or a setting is not usable; the message names it.
        """
        parts = urlsplit(url)
        if parts.scheme not in {"mqtt", "mqtts"}:
            raise ValueError(f"broker URL {url!r}: the scheme must be mqtt:// or mqtts://")
        if not parts.hostname:
            raise ValueError(f"broker URL {url!r}: no host")
        if parts.path not in {"", "/"} or parts.query or parts.fragment:
            raise ValueError(f"broker URL {url!r}: only mqtt[s]://[user:pass@]host[:port]")
        try:
            port = parts.port
        except ValueError:
            raise ValueError(f"broker URL {url!r}: the port is not a number 1-65535") from None
        tls = parts.scheme == "mqtts"
        if not tls and (ca_file or cert_file or key_file):
            raise ValueError("a CA or client certificate needs an mqtts:// broker URL")
        if (cert_file is None) != (key_file is None):
            raise ValueError("a client certificate needs its key, and a key its certificate")
        if protocol not in {"3.1.1", "5"}:
            raise ValueError(f"MQTT protocol {protocol!r}: use 3.1.1 or 5")
        if not 5 <= keepalive_s <= 600:
            raise ValueError(f"keepalive {keepalive_s} s: use 5-600 s (10-15 s recommended)")
        return cls(
            host=parts.hostname,
            port=port if port is not None else (MQTTS_PORT if tls else MQTT_PORT),
            tls=tls,
            username=None if parts.username is None else unquote(parts.username),
            password=None if parts.password is None else unquote(parts.password),
            ca_file=ca_file,
            cert_file=cert_file,
            key_file=key_file,
            protocol=protocol,
            keepalive_s=keepalive_s,
        )

    def tls_context(self) -> ssl.SSLContext | None:
        """The client's TLS context (server certificate and host name checked), if TLS."""
        if not self.tls:
            return None
        context = ssl.create_default_context(
            cafile=None if self.ca_file is None else str(self.ca_file)
        )
        if self.cert_file is not None and self.key_file is not None:
            context.load_cert_chain(str(self.cert_file), str(self.key_file))
        return context


def topic_root(prefix: str, table_id: str) -> str:
    """``<prefix>/<table_id>``: the ``<root>`` of mqtt-api.md."""
    return f"{prefix.rstrip('/')}/{table_id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class MqttSettings:
    """Everything :class:`MqttLink` needs; build it with :meth:`from_url`."""

    broker: BrokerEndpoint
    table_id: str
    topic_prefix: str = DEFAULT_TOPIC_PREFIX
    client_id: str | None = None
    session_expiry_s: int = DEFAULT_SESSION_EXPIRY_S
    publish_timeout_s: float = 10.0
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 30.0
    #: How often the drainer looks at the outbox when nobody called ``notify()``.
    poll_interval_s: float = 0.5
    #: QoS 1 publishes awaiting their PUBACK at once (paho's own limit is 20).
    max_inflight: int = 16
    #: Unacknowledged rows held in memory; beyond it they are read back from the outbox file.
    memory_rows: int = 5_000
    #: How long a clean stop keeps draining before it publishes the offline status.
    shutdown_grace_s: float = 2.0
    #: Acknowledged rows older than this leave the outbox (when the link starts, then every
    #: ``prune_interval_s``, connected or not); None keeps them all. The journal keeps every
    #: input whatever this is.
    retention: timedelta | None = None
    #: Seconds between two prunings, connected or not.
    prune_interval_s: float = 3600.0
    #: ``resend``: the most stored rows published again in a second.
    resend_per_second: float = 200.0

    @classmethod
    def from_url(  # noqa: PLR0913 - keyword-only settings, each optional
        cls,
        url: str,
        *,
        table_id: str,
        ca_file: Path | None = None,
        cert_file: Path | None = None,
        key_file: Path | None = None,
        protocol: ProtocolName = "3.1.1",
        keepalive_s: int = DEFAULT_KEEPALIVE_S,
        topic_prefix: str = DEFAULT_TOPIC_PREFIX,
        client_id: str | None = None,
    ) -> Self:
        """Settings from a broker URL and the table's id.

        Raises:
            ValueError: a value is not usable; the message names it.
        """
        if not table_id or any(char in table_id for char in "/+#\0"):
            raise ValueError(f"table id {table_id!r}: must be non-empty, without / + # or NUL")
        if any(char in topic_prefix for char in "+#\0") or not topic_prefix.strip("/"):
            raise ValueError(f"topic prefix {topic_prefix!r}: no wildcards, not empty")
        broker = BrokerEndpoint.from_url(
            url,
            ca_file=ca_file,
            cert_file=cert_file,
            key_file=key_file,
            protocol=protocol,
            keepalive_s=keepalive_s,
        )
        return cls(broker=broker, table_id=table_id, topic_prefix=topic_prefix, client_id=client_id)

    @property
    def identifier(self) -> str:
        return self.client_id or f"table-{self.table_id}"

    @property
    def root(self) -> str:
        return topic_root(self.topic_prefix, self.table_id)

    @property
    def status_topic(self) -> str:
        return f"{self.root}/status"

    @property
    def commands_topic(self) -> str:
        return f"{self.root}/commands"

    @property
    def replies_topic(self) -> str:
        return f"{self.root}/commands/replies"

    @property
    def backoff(self) -> Backoff:
        """The delays between two attempts to reconnect to the broker."""
        return Backoff(initial_s=self.backoff_initial_s, cap_s=self.backoff_max_s)


def with_credentials(endpoint: BrokerEndpoint, username: str, password: str) -> BrokerEndpoint:
    """The same broker with another login."""
    return replace(endpoint, username=username, password=password)
