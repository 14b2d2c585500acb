# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The commands of the MQTT contract as pydantic models, read strictly.

Edge layer: pure (no I/O, no clock, no randomness), but pydantic lives here and never in a
core. Incoming commands are validated strictly (:func:`parse_command` never raises and turns
any refusal into a :class:`CommandRejection`). What the table publishes is described once, by
the core's payload types; ``publishing/schemas.py`` generates their models.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, TypeAlias, assert_never

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import ErrorDetails, from_json

from table_controller.procedure.command_records import MAX_DISPUTED_ROUNDS
from table_controller.procedure.commands import MAX_SHOE_ID_LENGTH
from table_controller.procedure.events import (
    Acknowledge,
    CloseBetting,
    Command,
    ConfirmResult,
    CorrectResult,
    Deal,
    DroppedCard,
    EnterCard,
    Misdeal,
    OpenBetting,
    OpenDispute,
    ResolveDispute,
    SetLimits,
    SignOut,
    StartNewShoe,
    VoidRound,
    VoidShoe,
)
from table_controller.procedure.limits import MAX_LIMITED_BETS, amount
from table_controller.procedure.payload_base import MAX_ROUND_ID_LENGTH
from table_controller.procedure.state_payloads import BetLimits
from table_controller.publishing.recall import DEFAULT_ROUNDS, MAX_ROUNDS
from table_controller.rules.cards import Card, parse_cards

#: The largest command a table accepts, in bytes of UTF-8 JSON (mqtt-api.md "Commands").
MAX_COMMAND_BYTES: Final = 4096
MAX_COMMAND_ID_LENGTH: Final = 128
MAX_OPERATOR_LENGTH: Final = 64
#: Longest free text a command carries (a dispute's reason, its outcome).
MAX_TEXT_LENGTH: Final = 500
#: A staff id: what a badge reader types; one token of letters, digits, ``_ . -``.
STAFF_ID_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$"
#: A PIN: digits only (the display's keypad has no letters).
PIN_PATTERN: Final = r"^[0-9]{4,12}$"

#: A card as the shoe protocol writes it: rank then suit, upper case (``QH``, ``TD``).
CardCode: TypeAlias = Annotated[
    str,
    StringConstraints(pattern=r"^[A2-9TJQK][SHDC]$"),
    Field(description="A card: rank A23456789TJQK then suit SHDC, e.g. QH, TD."),
]
RoundId: TypeAlias = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_ROUND_ID_LENGTH),
    Field(description="<shoe_id>-<round_no>, the round's idempotency key."),
]
ShoeId: TypeAlias = Annotated[str, StringConstraints(min_length=1, max_length=MAX_SHOE_ID_LENGTH)]

CommandName: TypeAlias = Literal[
    "new_shoe",
    "open_betting",
    "close_betting",
    "deal",
    "misdeal",
    "void_round",
    "void_shoe",
    "manual_card",
    "correct_result",
    "dropped_card",
    "sign_in",
    "sign_out",
    "dispute",
    "resolve_dispute",
    "acknowledge",
    "confirm_result",
    "set_limits",
    "recall",
    "resend",
]
#: The commands only a supervisor may give (mqtt-api.md "Commands").
SUPERVISOR_COMMANDS: Final = frozenset({
    "void_round", "void_shoe", "manual_card", "correct_result", "dispute", "resolve_dispute",
    "acknowledge", "set_limits",
})  # fmt: skip
#: The commands the edge answers itself, in any state: they never reach the procedure.
EDGE_COMMANDS: Final = frozenset({"recall", "resend"})
#: The commands taken only over MQTT, from the operators the deployment names (never the display).
MQTT_ONLY_COMMANDS: Final = frozenset({"resend"})


class _Incoming(BaseModel):
    """Strict: JSON types exactly as the contract says, no unknown keys, no coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# --- command arguments --------------------------------------------------------------------


class NoArgs(_Incoming):
    """The arguments of a command that takes none: ``{}``."""


class NewShoeArgs(_Incoming):
    """``new_shoe``: an optional shoe id; without one the table numbers the shoe itself."""

    shoe_id: ShoeId | None = None


class VoidRoundArgs(_Incoming):
    """``void_round``: the round to void, the current one or a settled one of this shoe."""

    round_id: RoundId


class ManualCardArgs(_Incoming):
    """``manual_card``: the card a supervisor enters by hand."""

    card: CardCode


class CorrectResultArgs(_Incoming):
    """``correct_result``: a settled round's right cards, in dealing order per hand."""

    round_id: RoundId
    player: Annotated[list[CardCode], Field(min_length=2, max_length=3)]
    banker: Annotated[list[CardCode], Field(min_length=2, max_length=3)]


class DroppedCardArgs(_Incoming):
    """``dropped_card``: whether the reader saw the card that fell."""

    read: bool


StaffId: TypeAlias = Annotated[
    str,
    StringConstraints(pattern=STAFF_ID_PATTERN),
    Field(description="A staff id of the table's staff register (what a badge reader types)."),
]


class SignInArgs(_Incoming):
    """``sign_in``: a member of staff's id and PIN, checked against the staff register."""

    staff_id: StaffId
    pin: Annotated[
        str,
        StringConstraints(pattern=PIN_PATTERN),
        Field(description="4 to 12 digits; checked at the edge, never journaled or published."),
    ]


class SignOutArgs(_Incoming):
    """``sign_out``: the member of staff who leaves the table."""

    staff_id: StaffId


class DisputeArgs(_Incoming):
    """``dispute``: why, and the rounds in question (their recall goes with the event)."""

    reason: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_LENGTH)]
    rounds: Annotated[list[RoundId], Field(min_length=1, max_length=MAX_DISPUTED_ROUNDS)]


class ResolveDisputeArgs(_Incoming):
    """``resolve_dispute``: the open dispute and how it ended."""

    dispute_id: Annotated[str, StringConstraints(min_length=1, max_length=MAX_ROUND_ID_LENGTH)]
    outcome: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_LENGTH)]


class AcknowledgeArgs(_Incoming):
    """``acknowledge``: the alarm whose hold the supervisor lifts."""

    alarm: Literal["software_modified", "result_not_confirmed"]


class ConfirmResultArgs(_Incoming):
    """``confirm_result``: whether the layout shows the result the shoe read for the round."""

    round_id: RoundId
    agrees: bool


Amount: TypeAlias = Annotated[
    int | float | Annotated[str, StringConstraints(max_length=32)],
    Field(description='An exact amount: a number, or text such as "0.50" or "1/2".'),
]


class BetLimitsArgs(_Incoming):
    """One bet's smallest and largest stake, in the table's currency (``0 < min <= max``)."""

    min: Amount
    max: Amount

    @field_validator("min", "max")
    @classmethod
    def _an_amount(cls, value: float | str) -> float | str:
        amount(value)  # raises ValueError, naming the value
        return value

    def exact(self) -> BetLimits:
        return BetLimits(min=amount(self.min), max=amount(self.max))


class SetLimitsArgs(_Incoming):
    """``set_limits``: new limits for the bets named (between rounds); the others keep theirs."""

    limits: Annotated[
        dict[Annotated[str, StringConstraints(min_length=1, max_length=32)], BetLimitsArgs],
        Field(min_length=1, max_length=MAX_LIMITED_BETS),
    ]


class RecallArgs(_Incoming):
    """``recall``: how many of the last rounds to recall, every step of each."""

    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] = DEFAULT_ROUNDS


class ResendArgs(_Incoming):
    """``resend``: the ``seq`` range to publish again from the outbox, both ends included.

    Whole numbers only; whether the range is one the table takes (``1 <= from_seq <= to_seq``,
    fewer than 10,000 apart) the edge checks, refusing it as ``bad_range``.
    """

    from_seq: int
    to_seq: int


CommandArgs: TypeAlias = (
    NoArgs
    | NewShoeArgs
    | VoidRoundArgs
    | ManualCardArgs
    | CorrectResultArgs
    | DroppedCardArgs
    | SignInArgs
    | SignOutArgs
    | DisputeArgs
    | ResolveDisputeArgs
    | AcknowledgeArgs
    | ConfirmResultArgs
    | SetLimitsArgs
    | RecallArgs
    | ResendArgs
)
#: The arguments model of every command.
ARGS_MODELS: Final[dict[str, type[CommandArgs]]] = {
    "new_shoe": NewShoeArgs,
    "open_betting": NoArgs,
    "close_betting": NoArgs,
    "deal": NoArgs,
    "misdeal": NoArgs,
    "void_round": VoidRoundArgs,
    "void_shoe": NoArgs,
    "manual_card": ManualCardArgs,
    "correct_result": CorrectResultArgs,
    "dropped_card": DroppedCardArgs,
    "sign_in": SignInArgs,
    "sign_out": SignOutArgs,
    "dispute": DisputeArgs,
    "resolve_dispute": ResolveDisputeArgs,
    "acknowledge": AcknowledgeArgs,
    "confirm_result": ConfirmResultArgs,
    "set_limits": SetLimitsArgs,
    "recall": RecallArgs,
    "resend": ResendArgs,
}
_ARGS_UNION: Final = (
    NoArgs,
    NewShoeArgs,
    VoidRoundArgs,
    ManualCardArgs,
    CorrectResultArgs,
    DroppedCardArgs,
    SignInArgs,
    SignOutArgs,
    DisputeArgs,
    ResolveDisputeArgs,
    AcknowledgeArgs,
    ConfirmResultArgs,
    SetLimitsArgs,
    RecallArgs,
    ResendArgs,
)


def _link_args_to_command(schema: dict[str, Any]) -> None:
    """Say in the JSON Schema which ``args`` model goes with which ``command`` (if/then)."""
    choices = schema["properties"]["args"]["anyOf"]
    rules: list[Any] = []
    for name, model in ARGS_MODELS.items():
        then: dict[str, Any] = {"properties": {"args": choices[_ARGS_UNION.index(model)]}}
        if any(field.is_required() for field in model.model_fields.values()):
            then["required"] = ["args"]  # a missing args is {}, which lacks them
        rules.append({"if": {"properties": {"command": {"const": name}}}, "then": then})
    schema["allOf"] = rules


class CommandMessage(_Incoming):
    """A command published to ``<root>/commands`` (mqtt-api.md "Commands").

    ``args`` is checked against the model of ``command`` (:data:`ARGS_MODELS`); a missing
    ``args`` is read as ``{}``, so it is refused for a command that needs arguments.
    """

    model_config = ConfigDict(json_schema_extra=_link_args_to_command)

    id: Annotated[
        str,
        StringConstraints(min_length=1, max_length=MAX_COMMAND_ID_LENGTH),
        Field(description="Chosen by the sender; a repeated id is answered again, not redone."),
    ]
    command: CommandName
    operator: Annotated[
        str,
        StringConstraints(min_length=1, max_length=MAX_OPERATOR_LENGTH),
        Field(description="Who gives the command; supervisor commands need an authorised one."),
    ]
    args: Annotated[
        CommandArgs,
        Field(default_factory=dict, validate_default=True),
    ]
    signature: Annotated[
        str | None,
        StringConstraints(pattern=r"^[0-9a-f]{64}$"),
        Field(
            description=(
                "Signed mode: lowercase hex HMAC-SHA256 of canonical_bytes(), the command "
                "without its signature as compact JSON with sorted keys and no null values."
            )
        ),
    ] = None

    @field_validator("args", mode="before")
    @classmethod
    def _args_of_the_command(cls, value: object, info: ValidationInfo) -> object:
        command = info.data.get("command")
        if command is None:  # the command itself was refused; that error is the one to report
            return value
        return ARGS_MODELS[command].model_validate(value, strict=True)

    @property
    def is_supervisor_command(self) -> bool:
        """Whether only an authorised supervisor may give this command."""
        return self.command in SUPERVISOR_COMMANDS

    def canonical_bytes(self) -> bytes:
        """What a signature covers: the command without ``signature``, as canonical JSON.

        Compact separators, keys sorted at every level, ``null`` values left out, ``args``
        always present (``{}`` when empty), UTF-8 without escaping.
        """
        data = self.model_dump(mode="json", exclude={"signature"}, exclude_none=True)
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode()

    def to_record(self) -> dict[str, object]:
        """The command as the table service takes it: a supervisor command names its supervisor.

        Over MQTT the operator a supervisor command names is the supervisor who authorised it
        (``authorise`` has checked it); the signature stays at the edge.
        """
        record = self.model_dump(mode="json", exclude={"signature"})
        if self.is_supervisor_command:
            record["supervisor"] = self.operator
        return record

    def to_procedure_command(self, *, at: float) -> Command:  # noqa: C901, PLR0911 - a case each
        """The table procedure's input for this command, received at monotonic time ``at``.

        Raises:
            ValueError: for ``sign_in``, whose PIN only the staff desk checks and which becomes
                an input only with the staff member it identified; for ``recall`` and
                ``resend``, which the edge answers.
        """
        command_id, operator = self.id, self.operator
        supervisor = operator if self.is_supervisor_command else None
        args = self.args
        match args:
            case NoArgs():
                no_args_command = _NO_ARGS_COMMANDS[self.command]
                return no_args_command(
                    at=at, command_id=command_id, operator=operator, supervisor=supervisor
                )
            case NewShoeArgs():
                return StartNewShoe(
                    at=at, command_id=command_id, operator=operator, shoe_id=args.shoe_id
                )
            case VoidRoundArgs():
                return VoidRound(
                    at=at,
                    command_id=command_id,
                    operator=operator,
                    supervisor=supervisor,
                    round_id=args.round_id,
                )
            case ManualCardArgs():
                card = Card.parse(args.card)
                return EnterCard(
                    at=at,
                    command_id=command_id,
                    operator=operator,
                    supervisor=supervisor,
                    card=card,
                )
            case CorrectResultArgs():
                return CorrectResult(
                    at=at,
                    command_id=command_id,
                    operator=operator,
                    supervisor=supervisor,
                    round_id=args.round_id,
                    player=parse_cards(args.player),
                    banker=parse_cards(args.banker),
                )
            case DroppedCardArgs():
                return DroppedCard(at=at, command_id=command_id, operator=operator, read=args.read)
            case SignOutArgs():
                return SignOut(
                    at=at, command_id=command_id, operator=operator, staff_id=args.staff_id
                )
            case SignInArgs():
                raise ValueError("sign_in becomes an input only through the staff desk")
            case DisputeArgs() | ResolveDisputeArgs() | AcknowledgeArgs() | ConfirmResultArgs():
                return _oversight_command(args, at=at, command_id=command_id, operator=operator,
                                          supervisor=supervisor)
            case SetLimitsArgs():
                return SetLimits(at=at, command_id=command_id, operator=operator,
                                 supervisor=supervisor,
                                 limits={bet: pair.exact() for bet, pair in args.limits.items()})
            case RecallArgs() | ResendArgs():
                raise ValueError(f"{self.command} is answered at the edge, never by the procedure")
        assert_never(args)


def _oversight_command(
    args: DisputeArgs | ResolveDisputeArgs | AcknowledgeArgs | ConfirmResultArgs,
    *, at: float, command_id: str, operator: str, supervisor: str | None,
) -> Command:
    match args:
        case DisputeArgs():
            return OpenDispute(at=at, command_id=command_id, operator=operator,
                               supervisor=supervisor, reason=args.reason,
                               round_ids=tuple(args.rounds))
        case ResolveDisputeArgs():
            return ResolveDispute(at=at, command_id=command_id, operator=operator,
                                  supervisor=supervisor, dispute_id=args.dispute_id,
                                  outcome=args.outcome)
        case AcknowledgeArgs():
            return Acknowledge(at=at, command_id=command_id, operator=operator,
                               supervisor=supervisor, alarm=args.alarm)
        case ConfirmResultArgs():
            return ConfirmResult(at=at, command_id=command_id, operator=operator,
                                 round_id=args.round_id, agrees=args.agrees)
    assert_never(args)


_NO_ARGS_COMMANDS: Final[
    dict[str, type[OpenBetting | CloseBetting | Deal | Misdeal | VoidShoe]]
] = {
    "open_betting": OpenBetting,
    "close_betting": CloseBetting,
    "deal": Deal,
    "misdeal": Misdeal,
    "void_shoe": VoidShoe,
}


# --- refusing a command -------------------------------------------------------------------


class CommandErrorCode(enum.StrEnum):
    """Why a command was refused before the table procedure saw it: a reply's ``error``.

    One fault gets one code on every channel: ``<root>/commands`` over MQTT and the dealer
    display's ``POST /api/commands``. The table procedure's own refusals (``wrong_phase``,
    ``table_held`` ...) are the codes of ``RefusalCode``.
    """

    #: The payload is larger than the channel reads (:data:`MAX_COMMAND_BYTES`).
    OVERSIZED = "oversized"
    #: Not UTF-8 JSON text, nested deeper than the parser goes, or not a JSON object.
    MALFORMED_JSON = "malformed_json"
    #: A field of the command itself (``id``, ``operator``, ``signature``) is missing or
    #: wrong, or the command has a field the contract does not know.
    INVALID_MESSAGE = "invalid_message"
    #: ``command`` names no command of the contract.
    UNKNOWN_COMMAND = "unknown_command"
    #: ``args`` do not fit the command: missing, unknown, or of the wrong type or form.
    INVALID_ARGS = "invalid_args"
    #: A supervisor command from an operator the deployment does not authorise (MQTT), or
    #: approved on the display by a member of staff who is not a supervisor.
    NOT_AUTHORISED = "not_authorised"
    #: MQTT, signed mode: the signature is missing or does not match.
    BAD_SIGNATURE = "bad_signature"
    #: Display: the request comes from another site's page.
    FOREIGN_ORIGIN = "foreign_origin"
    #: Display: the body is not sent as ``application/json``.
    NOT_JSON = "not_json"
    #: Display: no supervisor PIN is configured, so supervisor commands are off.
    SUPERVISOR_DISABLED = "supervisor_disabled"
    #: A supervisor command on the display without the right PIN, or a sign-in (or a
    #: supervisor's approval) whose staff id or PIN is wrong.
    WRONG_PIN = "wrong_pin"
    #: Too many wrong PINs in a row; supervisor commands or sign-in wait a while.
    PIN_LOCKED = "pin_locked"
    #: ``sign_in`` (or a supervisor's approval by staff id) on a table with no staff register.
    NO_STAFF_REGISTER = "no_staff_register"
    #: Display: the table did not answer in time (the command may still be carried out).
    NO_ANSWER = "no_answer"
    #: ``resend``: the range is not one the table takes (``1 <= from_seq <= to_seq``, fewer
    #: than 10,000 apart).
    BAD_RANGE = "bad_range"
    #: ``resend``: the operator asked more often than the table's limit allows (a minute's
    #: count).
    RATE_LIMITED = "rate_limited"
    #: ``resend``: the outbox could not be read (the message says why); ask again later.
    RESEND_FAILED = "resend_failed"


class CommandRejection(BaseModel):
    """Why a command was refused as read: the ``error`` and ``message`` of the reply.

    ``id`` is the command's id when it has a usable one, so the reply can name it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: CommandErrorCode
    message: str
    id: str | None = None


def parse_command(
    raw: bytes, *, max_bytes: int = MAX_COMMAND_BYTES
) -> CommandMessage | CommandRejection:
    """Read one payload of ``<root>/commands``; any bytes give a command or a rejection.

    Never raises. Oversized payloads are refused before they are parsed; JSON nested deeper
    than the parser's limit, text that is not UTF-8, and every type or key the contract does
    not allow are refused with a message naming the offending field.
    """
    if len(raw) > max_bytes:
        return CommandRejection(
            code=CommandErrorCode.OVERSIZED,
            message=f"the command has {len(raw)} bytes; at most {max_bytes} are accepted",
        )
    try:
        return CommandMessage.model_validate_json(raw, strict=True)
    except ValidationError as error:
        try:
            data = from_json(raw)
        except ValueError:
            data = None
        return _rejection(error, _usable_id(data))


def validate_command(record: Mapping[str, object]) -> CommandMessage | CommandRejection:
    """A command given as data (the display's), read as its JSON text over MQTT would be.

    Never raises: the same fault gets the same code and message on every channel.
    """
    try:
        raw = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    except (TypeError, ValueError, RecursionError):
        return CommandRejection(
            code=CommandErrorCode.MALFORMED_JSON, message="the command is not JSON data"
        )
    return parse_command(raw)


def _usable_id(data: object) -> str | None:
    """The ``id`` of a refused command, if it has a usable one, for the reply."""
    if not isinstance(data, Mapping):
        return None
    command_id = data.get("id")
    if isinstance(command_id, str) and 0 < len(command_id) <= MAX_COMMAND_ID_LENGTH:
        return command_id
    return None


def _json_kind(value: object) -> str:
    """A JSON value as a refusal names it: ``the number 7``, ``an object`` ..."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"a string of {len(value)} characters" if value else "an empty string"
    if value is None:
        return "null"
    return "an object" if isinstance(value, Mapping) else "a list"


def _id_message(detail: ErrorDetails) -> str:
    """Why the ``id`` was refused: ids are strings (the reply carries the id it answers)."""
    length = f"1 to {MAX_COMMAND_ID_LENGTH} characters"
    if detail["type"] == "missing":
        return f"field id: missing; a command needs a string id of {length}"
    return f"field id: must be a string of {length}; got {_json_kind(detail.get('input'))}"


def _field_path(error: ErrorDetails) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(the message)"


def _rejection(error: ValidationError, command_id: str | None) -> CommandRejection:
    """The one error a person should read first, as a rejection code and message."""
    errors = error.errors(include_url=False)
    first = errors[0]
    if first["type"] == "json_invalid":
        return CommandRejection(
            code=CommandErrorCode.MALFORMED_JSON,
            message=f"the command is not UTF-8 JSON text: {first['msg']}",
            id=command_id,
        )
    if first["type"] in {"model_type", "model_attributes_type", "dict_type"} and not first["loc"]:
        return CommandRejection(
            code=CommandErrorCode.MALFORMED_JSON,
            message="the command must be a JSON object",
            id=command_id,
        )
    for detail in errors:
        if detail["loc"] == ("command",) and detail["type"] == "literal_error":
            given = repr(detail["input"])
            given = given if len(given) <= 40 else given[:37] + "..."
            return CommandRejection(
                code=CommandErrorCode.UNKNOWN_COMMAND,
                message=f"unknown command {given}; expected one of {', '.join(ARGS_MODELS)}",
                id=command_id,
            )
    message_errors = [detail for detail in errors if detail["loc"][:1] != ("args",)]
    if message_errors:
        detail = message_errors[0]
        text = (
            _id_message(detail)
            if detail["loc"] == ("id",)
            else f"field {_field_path(detail)}: {detail['msg']}"
        )
        return CommandRejection(code=CommandErrorCode.INVALID_MESSAGE, message=text, id=command_id)
    detail = errors[0]
    return CommandRejection(
        code=CommandErrorCode.INVALID_ARGS,
        message=f"field {_field_path(detail)}: {detail['msg']}",
        id=command_id,
    )
