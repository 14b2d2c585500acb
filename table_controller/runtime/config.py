# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Settings of ``run`` and ``demo``: flags, environment and a TOML file (docs/operations.md).

Edge module (pydantic-settings). Precedence: flags win over ``TABLE_CONTROLLER_<NAME>``
variables, which win over the file named by ``--config``. A wrong setting stops the start with
the key (or the variable, when the environment gave it), the value and why
(:class:`SettingsError`); nothing starts half-configured. A ``TABLE_CONTROLLER_*`` variable
that names no setting is only warned about (:func:`unknown_variables`): the environment holds
variables of other programs and other versions, unlike the file, whose unknown keys are refused.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import (
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)
from pydantic_settings import SettingsError as SourceError

from table_controller.contract import DEFAULT_CURRENCY, DEFAULT_TOPIC_PREFIX, BetLimits
from table_controller.history import RECALLS_PER_MINUTE
from table_controller.procedure import (
    CURRENCY_PATTERN,
    decimal_amount,
    limits_from_data,
    limits_problem,
    stake_amount,
)
from table_controller.rules import VARIANT_NAME_PATTERN, VARIANTS
from table_controller.screens import (
    IDLE_TIMEOUT_S,
    MAX_CONNECTIONS,
    MAX_PER_CLIENT,
    REQUEST_TIMEOUT_S,
    ListenerLimits,
)

ENV_PREFIX = "TABLE_CONTROLLER_"
#: Serial speeds the shoe protocol names (shoe-protocol.md, "Physical layer").
BAUD_RATES = (9600, 19200, 38400, 57600, 115200)
#: A table id becomes one topic level and part of the client id: no '/', '+', '#'.
TABLE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$"
#: Settings that ``run`` and ``demo`` also take as flags (the others: file or environment).
FLAGGED = frozenset(
    {
        "table_id", "variant", "port", "protocol", "baud", "journal", "broker", "topic_prefix",
        "display", "display_pin", "betting_phase", "card_source", "paytable", "events_log",
        "log_format", "log_level", "metrics",
    }
)  # fmt: skip
#: The longest value shown in an error message.
MAX_SHOWN = 80
#: Settings whose values are never echoed in an error message.
SECRET_WORDS = ("pin", "password", "secret", "key")
#: How pydantic-settings names a variable it could not decode (JSON of a dict or list setting).
_UNDECODABLE = re.compile(r'field "(?P<field>\w+)" from source "EnvSettingsSource"')
_HOST_PORT = re.compile(r"^(?P<host>[^:\s]+|\[[0-9a-fA-F:]+\]):(?P<port>\d{1,5})$")
#: A DNS name: dot-separated labels of letters, digits and inner hyphens.
_HOST_NAME = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?"


class SettingsError(ValueError):
    """A setting is wrong; the message names the key, the value and why."""


class Settings(BaseSettings):
    """Everything ``run`` needs to start a table."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="forbid", frozen=True, validate_default=True
    )

    table_id: str = Field(
        pattern=TABLE_ID_PATTERN, description="The table's id, used in topics and the client id."
    )
    variant: str = Field(
        "commission",
        pattern=VARIANT_NAME_PATTERN,
        description="The game variant: a built-in one (game-rules.md section 4) or one the"
        " `paytable` file composes.",
    )
    port: str | None = Field(
        None, description="Shoe reader: a device path or `socket://host:port` (card source reader)."
    )
    protocol: Literal["srp", "beetek"] = Field("srp", description="What the shoe speaks.")
    baud: int = Field(9600, description="Serial speed: 9600, 19200, 38400, 57600 or 115200.")
    journal: Path | None = Field(
        None, description="The durable journal (SQLite); default `./table-<id>.journal`."
    )
    broker: str | None = Field(
        None, description="`mqtt://[user:pass@]host[:port]` or `mqtts://...`; none: no MQTT."
    )
    mqtt_ca_file: Path | None = Field(
        None, description="`mqtts://`: the CA that signed the broker's certificate."
    )
    mqtt_cert_file: Path | None = Field(
        None, description="`mqtts://`: the table's client certificate (PEM)."
    )
    mqtt_key_file: Path | None = Field(None, description="The client certificate's key (PEM).")
    mqtt_protocol: Literal["3.1.1", "5"] = Field("3.1.1", description="MQTT protocol version.")
    mqtt_client_id: str | None = Field(None, description="Default `table-<table_id>`.")
    supervisors: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Operators allowed to give supervisor commands over MQTT, each with the"
        " broker logins they use (the broker's ACL lets only those logins publish commands);"
        ' in the environment as JSON: `{"sup-1": ["pit"]}`.',
    )
    result_confirmers: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Second sources allowed to send `confirm_result` over MQTT (camera"
        " systems), each with its broker logins, as `supervisors`; the display's dealer needs"
        " none.",
    )
    resenders: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Backends allowed to send `resend` (publish messages again from the"
        " outbox), each with its broker logins, as `supervisors`; none: `resend` is refused.",
    )
    resend_requests_per_minute: int = Field(
        6, ge=1, le=600, description="`resend` requests taken per operator in any minute."
    )
    resend_messages_per_second: int = Field(
        200,
        ge=1,
        le=10_000,
        description="Messages a `resend` publishes again per second, behind the live ones.",
    )
    recall_requests_per_minute: int = Field(
        RECALLS_PER_MINUTE,
        ge=1,
        le=600,
        description="`recall` requests answered per operator in any minute over MQTT.",
    )
    command_secret: SecretStr | None = Field(
        None,
        description="Signed mode: supervisor commands must carry an HMAC-SHA256 signature with"
        " this secret (16 bytes or more).",
    )
    sign_all_commands: bool = Field(
        default=False, description="In signed mode, require a signature on every command."
    )
    topic_prefix: str = Field(DEFAULT_TOPIC_PREFIX, description="Topics are `<P>/<table_id>/...`.")
    display: str = Field(
        "127.0.0.1:8080", description="Serve the dealer display at `HOST:PORT`; `off` to disable."
    )
    display_pin: SecretStr | None = Field(
        None,
        description="PIN (4 to 12 digits) the display asks for before a supervisor command;"
        " none: no supervisor commands from the display.",
    )
    display_language: str = Field(
        "en",
        description="Language of the dealer display: `en`, `zh-Hans`, `zh-Hant`, `vi`, `th` or"
        " `ko`; a page's `?lang=` query parameter overrides it.",
    )
    board_language: str = Field(
        "en",
        description="Language of the players' board (same choices as `display_language`); a"
        " page's `?lang=` query parameter overrides it.",
    )
    board_address: str = Field(
        "",
        description="Also serve the players' board alone (no dealer page, no commands) at"
        " `HOST:PORT`; empty: only at `/board` on the display's address.",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the display and the board answer to besides their addresses"
        " (and `localhost` over loopback), as browsers are pointed at them:"
        ' `["table07", "table07.floor.example"]` (in the environment as JSON); a request for'
        " any other name gets 421.",
    )
    http_request_timeout_seconds: float = Field(
        REQUEST_TIMEOUT_S,
        gt=0.0,
        le=300.0,
        description="Seconds a client has to send a whole request (line, headers, body) to the"
        " display, the board or the metrics; a connection that takes longer is closed.",
    )
    http_idle_timeout_seconds: float = Field(
        IDLE_TIMEOUT_S,
        gt=0.0,
        le=3600.0,
        description="Seconds a kept-alive web connection with no request in progress stays"
        " open (a page's event stream is a request in progress).",
    )
    http_max_connections: int = Field(
        MAX_CONNECTIONS,
        ge=1,
        le=10_000,
        description="Connections each web address (display, board, metrics) holds at most;"
        " more are answered 503 and closed. Each address has its own count.",
    )
    http_max_connections_per_client: int = Field(
        MAX_PER_CLIENT,
        ge=1,
        le=10_000,
        description="Connections one client address holds at most on each web address.",
    )
    betting_phase: bool = Field(
        default=True, description="Rounds have a betting period opened and closed by commands."
    )
    staff_register: Path | None = Field(
        None,
        description="The staff register (`table-controller staff`): who may sign in, with"
        " argon2id PIN hashes; reloaded on SIGHUP and when it changes. None: no sign-in.",
    )
    require_dealer: bool = Field(
        default=False,
        description="Refuse to open betting or deal while no dealer is signed in (needs"
        " `staff_register`).",
    )
    confirm_results: bool = Field(
        default=False,
        description="A second source confirms each result (`confirm_result`: the dealer on the"
        " display, or a camera system over MQTT) before it is published.",
    )
    currency: str = Field(
        DEFAULT_CURRENCY,
        description="The table's currency, an ISO 4217 code (three upper-case letters): the"
        " stake limits are in it.",
    )
    limits: dict[str, dict[str, int | float | str]] = Field(
        default_factory=dict,
        description="Stake limits per bet, `{banker = {min = 100, max = 10000}}` (decimal"
        ' amounts of `currency`, at most its minor unit: numbers, or text such as `"0.50"`);'
        " they replace the variant file's for the bets named; in the environment as JSON. A"
        " bet with limits nowhere has none.",
    )
    sign_in_max_failures: int = Field(
        5,
        ge=1,
        le=100,
        description="Wrong PINs in a row for one staff id before that id is locked; a client"
        " (an address on the display, an operator over MQTT) is locked after 4 times as many.",
    )
    sign_in_lockout_seconds: float = Field(
        60.0,
        ge=0.0,
        le=3600.0,
        description="How long a staff id (or a client) stays locked after them.",
    )
    card_source: Literal["reader", "rng"] = Field(
        "reader",
        description="Cards from the shoe reader on `port`, or from the cryptographic RNG"
        " (a virtual table; no reader).",
    )
    paytable: Path | None = Field(
        None,
        description="The operator's variant file: payout and window overrides, and variants"
        ' of its own (docs/configuration.md, "Composed variants").',
    )
    events_log: Path | None = Field(
        None,
        description="A JSON-lines copy of every published message; without a broker, default"
        " `./table-<id>.events.jsonl`.",
    )
    log_format: Literal["json", "console"] = Field(
        "json", description="Logs on stderr: JSON lines, or readable in a terminal."
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="The least severe log level written."
    )
    live_odds: bool = Field(
        default=True,
        description="Between rounds, publish every bet's exact odds for the next round"
        " (`<root>/odds`) and raise `edge_positive`, `shuffle_pattern` and `shoe_repeated`.",
    )
    edge_alarm_below: float = Field(
        0.0,
        ge=-100.0,
        le=100.0,
        description="`edge_positive` when an offered bet's house edge drops below this many"
        " percent (0: the player has the edge).",
    )
    shuffle_false_alarm_rate: float = Field(
        0.001,
        gt=0.0,
        lt=0.5,
        description="Chance that a fairly shuffled shoe raises `shuffle_pattern` at all.",
    )
    repeat_false_alarm_rate: float = Field(
        0.001,
        gt=0.0,
        lt=0.5,
        description="Chance that a fair shoe raises `shoe_repeated` against the last 10 shoes.",
    )
    outbox_retention_days: int = Field(
        7,
        ge=1,
        le=3650,
        description="Acknowledged MQTT messages are deleted from the outbox after this many"
        " days (the journal keeps every input; the newest message always stays).",
    )
    device_key: Path | None = Field(
        None,
        description="The device's Ed25519 key (`table-controller keys init`, mode 0600): with"
        " one, every published payload carries `kid` and `sig`. None: unsigned.",
    )
    software_check: Literal["hold", "refuse"] = Field(
        "hold",
        description="When the installed files differ from those recorded at install: `hold`"
        " the table with alarm `software_modified` until a supervisor acknowledges it, or"
        " `refuse` to start.",
    )
    metrics: str = Field(
        "off",
        description="Serve `/health` and Prometheus `/metrics` at `HOST:PORT` (9108 is usual);"
        " `off` to disable.",
    )

    @field_validator("baud")
    @classmethod
    def _known_baud(cls, value: int) -> int:
        if value not in BAUD_RATES:
            raise ValueError(f"must be one of {', '.join(map(str, BAUD_RATES))}")
        return value

    @field_validator("broker")
    @classmethod
    def _broker_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in {"mqtt", "mqtts"} or not parts.hostname:
            raise ValueError("must be mqtt://[user:pass@]host[:port] or mqtts://...")
        try:
            _ = parts.port
        except ValueError:
            raise ValueError("has a port that is not a number from 1 to 65535") from None
        return value

    @field_validator("topic_prefix")
    @classmethod
    def _topic_prefix(cls, value: str) -> str:
        if not value or value.startswith("/") or value.endswith("/") or set(value) & {"+", "#"}:
            raise ValueError("must be topic levels like 'baccarat/tables' (no '+', '#', edge '/')")
        return value

    @field_validator("display", "metrics")
    @classmethod
    def _display(cls, value: str) -> str:
        if value == "off":
            return value
        match = _HOST_PORT.match(value)
        if match is None or not 0 < int(match["port"]) < 65536:
            raise ValueError("must be HOST:PORT (e.g. 127.0.0.1:8080) or 'off'")
        return value

    @field_validator("board_address")
    @classmethod
    def _board_address(cls, value: str) -> str:
        match = _HOST_PORT.match(value)
        if value and (match is None or not 0 < int(match["port"]) < 65536):
            raise ValueError("must be HOST:PORT (e.g. 0.0.0.0:8081) or empty")
        return value

    @field_validator("allowed_hosts")
    @classmethod
    def _allowed_hosts(cls, value: list[str]) -> list[str]:
        names = []
        for name in value:
            if not re.fullmatch(_HOST_NAME, name) and not _is_address(name):
                raise ValueError(
                    f"{_shown(name)} is not a host name or address (no scheme, port or path)"
                )
            names.append(name.lower())
        return names

    @field_validator("display_language", "board_language")
    @classmethod
    def _language(cls, value: str) -> str:
        from table_controller.screens import LANGUAGES, language_for  # noqa: PLC0415

        language = language_for(value)
        if language is None:
            raise ValueError(f"must be one of {', '.join(each.tag for each in LANGUAGES)}")
        return language.tag

    @field_validator("command_secret")
    @classmethod
    def _secret(cls, value: SecretStr | None) -> SecretStr | None:
        # Imported here: the command contract is heavy and a table without a secret needs none.
        from table_controller.ingress import MIN_SECRET_BYTES  # noqa: PLC0415

        if value is not None and len(value.get_secret_value().encode()) < MIN_SECRET_BYTES:
            raise ValueError(f"must be at least {MIN_SECRET_BYTES} bytes")
        return value

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str) -> str:
        if not re.fullmatch(CURRENCY_PATTERN, value):
            raise ValueError("must be an ISO 4217 code: three upper-case letters (USD, MOP)")
        return value

    @field_validator("limits")
    @classmethod
    def _limits(
        cls, value: dict[str, dict[str, int | float | str]], info: ValidationInfo
    ) -> dict[str, Any]:
        currency = info.data.get("currency")  # absent when refused: that error is the one
        read = decimal_amount if currency is None else partial(stake_amount, currency=currency)
        for bet, pair in limits_from_data(value, "limits", read).items():
            problem = limits_problem(pair)
            if problem is not None:
                raise ValueError(f"{bet}: {problem}")
        return value

    @field_validator("display_pin")
    @classmethod
    def _pin(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not re.fullmatch(r"\d{4,12}", value.get_secret_value()):
            raise ValueError("must be 4 to 12 digits")
        return value

    @model_validator(mode="after")
    def _variant_in_force(self) -> Self:
        """A built-in variant, or one of the variant file's (``paytable``)."""
        if self.variant in VARIANTS:
            return self
        # Imported here: only a table on a variant of its own reads the variant file this early.
        from table_controller.variant_file import (  # noqa: PLC0415
            VariantFileError,
            load_variants,
        )

        refused = f"variant = {self.variant!r}: not a built-in variant ({', '.join(VARIANTS)})"
        if self.paytable is None:
            raise ValueError(f"{refused}, and no paytable (variant file) composes one")
        try:
            variants = load_variants(self.paytable)
        except VariantFileError as error:
            raise ValueError(f"{refused}, and the paytable is refused: {error}") from None
        if self.variant not in variants:
            composed = [name for name in variants if name not in VARIANTS]
            raise ValueError(
                f"{refused}, nor one of {self.paytable}"
                f" ({', '.join(composed) if composed else 'it composes none'})"
            )
        return self

    @model_validator(mode="after")
    def _dealer_needs_register(self) -> Self:
        if self.require_dealer and self.staff_register is None:
            raise ValueError("require_dealer: needs staff_register, to sign dealers in")
        return self

    @model_validator(mode="after")
    def _card_source_needs(self) -> Self:
        if self.card_source == "reader" and not self.port:
            raise ValueError("port: required when card_source is 'reader' (use --port)")
        if self.card_source == "rng" and self.port:
            raise ValueError("port: a virtual table (card_source 'rng') has no reader port")
        if self.sign_all_commands and self.command_secret is None:
            raise ValueError("sign_all_commands: needs command_secret")
        for path in (self.mqtt_ca_file, self.mqtt_cert_file, self.mqtt_key_file):
            if path is not None and not path.is_file():
                raise ValueError(f"{path}: no such file (a TLS setting)")
        return self

    @property
    def bet_limits(self) -> dict[str, BetLimits]:
        """``limits`` as exact amounts (validated when the settings were read)."""
        return limits_from_data(self.limits, "limits")

    @property
    def journal_path(self) -> Path:
        """The journal file, ``./table-<id>.journal`` unless set."""
        return self.journal or Path(f"table-{self.table_id}.journal")

    @property
    def display_address(self) -> tuple[str, int] | None:
        """``(host, port)`` of the dealer display, or None when it is off."""
        if self.display == "off":
            return None
        host, _, port = self.display.rpartition(":")
        return host.strip("[]"), int(port)

    @property
    def board_host_port(self) -> tuple[str, int] | None:
        """``(host, port)`` of the players' board on its own address, or None when it has none."""
        if not self.board_address:
            return None
        host, _, port = self.board_address.rpartition(":")
        return host.strip("[]"), int(port)

    @property
    def web_limits(self) -> ListenerLimits:
        """The caps and timeouts of each web address (display, board, metrics)."""
        return ListenerLimits(
            request_timeout_s=self.http_request_timeout_seconds,
            idle_timeout_s=self.http_idle_timeout_seconds,
            max_connections=self.http_max_connections,
            max_per_client=self.http_max_connections_per_client,
        )

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """``(host, port)`` of the health and metrics endpoints, or None when they are off."""
        if self.metrics == "off":
            return None
        host, _, port = self.metrics.rpartition(":")
        return host.strip("[]"), int(port)


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _with_file(config_file: Path | None) -> type[Settings]:
    """Settings whose lowest-precedence source is the TOML file, if any."""

    class FileSettings(Settings):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            del dotenv_settings, file_secret_settings
            sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
            if config_file is not None:
                sources.append(TomlConfigSettingsSource(settings_cls, toml_file=config_file))
            return tuple(sources)

    return FileSettings


def load_settings(flags: Mapping[str, Any], config_file: Path | None = None) -> Settings:
    """Settings from flags (only those given), the environment and the TOML file."""
    if config_file is not None:
        if config_file.is_dir():
            raise SettingsError(f"config: {config_file}: a directory, not a TOML file")
        if not config_file.is_file():
            raise SettingsError(f"config: {config_file}: no such file")
    given = {k: v for k, v in flags.items() if v is not None}
    try:
        return _with_file(config_file)(**given)
    except ValidationError as error:
        raise SettingsError(describe(error, _environment_names(given, os.environ))) from None
    except SourceError as error:  # a variable whose JSON could not be decoded
        match = _UNDECODABLE.search(str(error))
        if match is None:
            raise SettingsError(f"settings: {error}") from None
        variable = environment_variable(match["field"])
        raise SettingsError(f"{variable}: not valid JSON") from None
    except (OSError, ValueError, RecursionError) as error:  # an unreadable or invalid TOML file
        raise SettingsError(f"config: {config_file}: {type(error).__name__}: {error}") from None


def environment_variable(name: str) -> str:
    """The environment variable of the setting ``name``: ``TABLE_CONTROLLER_<NAME>``."""
    return f"{ENV_PREFIX}{name.upper()}"


def _environment_names(given: Mapping[str, object], environ: Mapping[str, str]) -> dict[str, str]:
    """The variable of each setting the environment gives (a flag overrides it)."""
    present = {variable.upper() for variable in environ}
    return {
        name: environment_variable(name)
        for name in Settings.model_fields
        if name not in given and environment_variable(name) in present
    }


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """A warning for each ``TABLE_CONTROLLER_*`` variable that names no setting.

    Such a variable is ignored; the warning names it and the closest setting's variable, as a
    misspelled key in the file is refused with its name.
    """
    names = sorted(Settings.model_fields)
    known = {environment_variable(name) for name in names}
    warnings = []
    for variable in sorted(environ):
        upper = variable.upper()
        if not upper.startswith(ENV_PREFIX) or upper in known:
            continue
        # Compared without the prefix, which every variable shares and would make all close.
        guessed = upper.removeprefix(ENV_PREFIX).lower()
        closest = difflib.get_close_matches(guessed, names, n=1)
        hint = f" (did you mean {environment_variable(closest[0])}?)" if closest else ""
        warnings.append(f"{variable}: names no setting; ignored{hint}")
    return warnings


def reference_table() -> str:
    """The settings reference (docs/configuration.md's table), from the model itself."""
    rows = [
        "| TOML key | flag | environment variable | default | meaning |",
        "|---|---|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        default = (
            "required" if field.is_required() else field.get_default(call_default_factory=True)
        )
        shown = "none" if default is None else f"`{default}`"
        flag = f"`--{name.replace('_', '-')}`" if name in FLAGGED else "(file or environment)"
        rows.append(
            f"| `{name}` | {flag} | `{ENV_PREFIX}{name.upper()}` | {shown} | {field.description} |"
        )
    return "\n".join(rows) + "\n"


def _shown(value: object) -> str:
    """A value for an error message: its repr, cut short (a huge integer has none)."""
    try:
        text = repr(value)
    except ValueError:
        return "(a value too large to show)"
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def describe(error: ValidationError, names: Mapping[str, str] | None = None) -> str:
    """One line per wrong setting: ``key = value: why``.

    Args:
        error: What pydantic found wrong.
        names: What to call a setting instead of its key: the environment variable that gave
            the value, so the message names what a person has to edit.
    """
    lines = []
    for problem in error.errors():
        parts = [str(part) for part in problem["loc"]]
        if parts and names is not None:
            parts[0] = names.get(parts[0], parts[0])
        key = ".".join(parts) or "settings"
        message = problem["msg"].removeprefix("Value error, ")
        if problem["type"] == "extra_forbidden":
            lines.append(f"{key}: unknown setting")
        elif problem["type"] == "missing":
            lines.append(f"{key}: required")
        elif key == "settings":
            lines.append(message)
        else:
            secret = any(word in key.lower() for word in SECRET_WORDS)
            value = "(hidden)" if secret else _shown(problem.get("input"))
            lines.append(f"{key} = {value}: {message}")
    return "; ".join(lines)
