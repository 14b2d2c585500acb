# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The MQTT contract as pydantic models: every payload of mqtt-api.md, in and out.

Edge layer: pure (no I/O, no clock, no randomness), but pydantic lives here and never in a
core. Incoming commands are validated strictly (:func:`parse_command` never raises and turns
any refusal into a :class:`CommandRejection`); published payloads are described field by field
so that the JSON Schemas and the AsyncAPI document (``publishing/asyncapi.py``) say exactly
what a backend receives. The cores build payloads themselves; these models describe them and
the contract tests check that every message the core publishes validates against its model.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, Self, TypeAlias, assert_never

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import ErrorDetails, from_json

from table_controller.procedure.codes import RefusalCode
from table_controller.procedure.events import (
    CloseBetting,
    Command,
    CorrectResult,
    Deal,
    DroppedCard,
    EnterCard,
    Misdeal,
    OpenBetting,
    StartNewShoe,
    VoidRound,
    VoidShoe,
)
from table_controller.rules.bets import BETS
from table_controller.rules.cards import Card, parse_cards

#: The largest command a table accepts, in bytes of UTF-8 JSON (mqtt-api.md "Commands").
MAX_COMMAND_BYTES: Final = 4096
MAX_COMMAND_ID_LENGTH: Final = 128
MAX_OPERATOR_LENGTH: Final = 64
MAX_SHOE_ID_LENGTH: Final = 64
MAX_ROUND_ID_LENGTH: Final = 96

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
]
#: The commands only a supervisor may give (mqtt-api.md "Commands").
SUPERVISOR_COMMANDS: Final = frozenset({"void_round", "void_shoe", "manual_card", "correct_result"})


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


CommandArgs: TypeAlias = (
    NoArgs | NewShoeArgs | VoidRoundArgs | ManualCardArgs | CorrectResultArgs | DroppedCardArgs
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
}
_ARGS_UNION: Final = (
    NoArgs,
    NewShoeArgs,
    VoidRoundArgs,
    ManualCardArgs,
    CorrectResultArgs,
    DroppedCardArgs,
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

    def to_procedure_command(self, *, at: float) -> Command:
        """The table procedure's input for this command, received at monotonic time ``at``."""
        command_id, operator = self.id, self.operator
        args = self.args
        match args:
            case NoArgs():
                no_args_command = _NO_ARGS_COMMANDS[self.command]
                return no_args_command(at=at, command_id=command_id, operator=operator)
            case NewShoeArgs():
                return StartNewShoe(
                    at=at, command_id=command_id, operator=operator, shoe_id=args.shoe_id
                )
            case VoidRoundArgs():
                return VoidRound(
                    at=at, command_id=command_id, operator=operator, round_id=args.round_id
                )
            case ManualCardArgs():
                card = Card.parse(args.card)
                return EnterCard(at=at, command_id=command_id, operator=operator, card=card)
            case CorrectResultArgs():
                return CorrectResult(
                    at=at,
                    command_id=command_id,
                    operator=operator,
                    round_id=args.round_id,
                    player=parse_cards(args.player),
                    banker=parse_cards(args.banker),
                )
            case DroppedCardArgs():
                return DroppedCard(at=at, command_id=command_id, operator=operator, read=args.read)
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
    #: MQTT: a supervisor command from an operator the deployment does not authorise.
    NOT_AUTHORISED = "not_authorised"
    #: MQTT, signed mode: the signature is missing or does not match.
    BAD_SIGNATURE = "bad_signature"
    #: Display: the request comes from another site's page.
    FOREIGN_ORIGIN = "foreign_origin"
    #: Display: the body is not sent as ``application/json``.
    NOT_JSON = "not_json"
    #: Display: no supervisor PIN is configured, so supervisor commands are off.
    SUPERVISOR_DISABLED = "supervisor_disabled"
    #: Display: a supervisor command without the right PIN.
    WRONG_PIN = "wrong_pin"
    #: Display: too many wrong PINs in a row; supervisor commands wait a while.
    PIN_LOCKED = "pin_locked"
    #: Display: the table did not answer in time (the command may still be carried out).
    NO_ANSWER = "no_answer"


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


# --- published payloads -------------------------------------------------------------------

SCHEMA_VERSION: Final = "baccarat-table/1"


def _known_bet_id(value: str) -> str:
    if value not in BETS:
        raise ValueError(f"unknown bet id {value!r}")
    return value


#: A bet id of game-rules.md section 3.
BetId: TypeAlias = Annotated[
    str, AfterValidator(_known_bet_id), WithJsonSchema({"type": "string", "enum": list(BETS)})
]
#: A card as read, or ``null`` for a card that left the shoe unread.
CardOrUnread: TypeAlias = CardCode | None
NonNegative: TypeAlias = Annotated[int, Field(ge=0)]
RoundNo: TypeAlias = Annotated[int, Field(ge=1, description="Rounds of a shoe count from 1.")]
#: The net result per unit staked, or ``"not_offered"`` outside the bet's window.
SettlementValue: TypeAlias = float | Literal["not_offered"]
Settlement: TypeAlias = Annotated[
    dict[BetId, SettlementValue],
    Field(description="Every bet id of the variant: net result per unit staked, or not_offered."),
]
WinnerName: TypeAlias = Literal["player", "banker", "tie"]
HandName: TypeAlias = Literal["player", "banker"]
PhaseName: TypeAlias = Literal[
    "no_shoe",
    "burn_card",
    "burning",
    "between_rounds",
    "betting",
    "dealing",
    "shoe_over",
    "held",
    "faulted",
]
PromptActionName: TypeAlias = Literal[
    "burn",
    "open_betting",
    "deal",
    "player_draws",
    "banker_draws",
    "result",
    "hold",
    "shoe_over",
]
HoldReasonName: TypeAlias = Literal[
    "reader_offline", "misread", "lost_frames", "foreign_card", "procedure_fault"
]
LampName: TypeAlias = Literal["PLAYER", "BANKER", "STAND", "HOLD", "OFF"]
VoidReasonName: TypeAlias = Literal[
    "exposed_card",
    "misdeal",
    "dropped_card",
    "misread",
    "after_last_round",
    "shoe_voided",
    "supervisor",
]
AlarmCodeName: TypeAlias = Literal[
    # mqtt-api.md
    "unnecessary_card",
    "foreign_card",
    "lost_frames",
    "reader_offline",
    "misread",
    "card_after_last_round",
    "edge_positive",
    "shuffle_pattern",
    "shoe_repeated",
    # the table procedure's own
    "impossible_count",
    "exposed_card",
    "card_without_shoe",
    "unexpected_cut_card",
    "procedure_fault",
    "lost_frames_left_over",
]
ReaderStateName: TypeAlias = Literal["connected", "offline", "fault"]
RoadLetter: TypeAlias = Literal["B", "P", "T"]
RoadColourName: TypeAlias = Literal["red", "blue"]


class _Part(BaseModel):
    """A part of a published payload: may carry more fields than those described."""

    model_config = ConfigDict(extra="allow", frozen=True)


#: The envelope's wall time.
WireTime: TypeAlias = Annotated[
    AwareDatetime,
    Field(description="UTC wall time of the input that caused the message (RFC 3339)."),
]


class _Envelope(_Part):
    """The fields every published message starts with (mqtt-api.md "Every payload")."""

    schema_: Annotated[
        Literal["baccarat-table/1"],
        Field(alias="schema", description="The contract's version."),
    ]
    type: str
    table_id: str

    model_config = ConfigDict(populate_by_name=True)


class _Published(_Envelope):
    """A message of the table's stream: every payload but ``status``, numbered by ``seq``."""

    seq: Annotated[
        int,
        Field(
            ge=1,
            description="+1 for every message the table publishes, across restarts; a message "
            "resent keeps its seq.",
        ),
    ]
    ts: WireTime


class _AboutRound(_Published):
    """A message about one round: ``round_id`` is the round's idempotency key."""

    shoe_id: str
    round_no: RoundNo
    round_id: RoundId


class HandResult(_Part):
    """One hand of a result: its cards in dealing order and its total."""

    cards: Annotated[list[CardCode], Field(min_length=2, max_length=3)]
    total: Annotated[int, Field(ge=0, le=9)]


class _ResultFields(_Part):
    """The fields of a result that follow from the cards (``round_result`` and corrections)."""

    player: HandResult
    banker: HandResult
    winner: WinnerName
    natural: bool
    cards_dealt: Annotated[int, Field(ge=4, le=6)]
    player_pair: bool
    banker_pair: bool
    settlement: Settlement


class ShoeStartedEvent(_Published):
    """``events/shoe_started``: a freshly shuffled shoe."""

    type: Literal["shoe_started"]
    shoe_id: str
    variant: str
    decks: Annotated[int, Field(ge=1)]
    burn: Annotated[bool, Field(description="Whether the shoe starts with a burn.")]
    reshuffle: Literal["cut_card", "every_round"]
    betting_phase: bool
    operator: str


class BurnEvent(_Published):
    """``events/burn``: the face-up first card and how many it orders burned; again once done."""

    type: Literal["burn"]
    shoe_id: str
    first_card: CardCode
    count: Annotated[int, Field(ge=1, le=10)]
    done: bool
    cards: Annotated[
        list[CardOrUnread] | SkipJsonSchema[None],
        Field(description="The burned cards, once done (null for one read by nobody)."),
    ] = None


class SuspendedBet(_Part):
    """A bet not offered on a round because the player has the edge on it (dynamic windows)."""

    bet: BetId
    house_edge: Annotated[float, Field(description="The bet's exact house edge that round.")]


class BettingOpenedEvent(_AboutRound):
    """``events/betting_opened``: bets are taken on this round."""

    type: Literal["betting_opened"]
    bets_offered: list[BetId]
    bets_suspended: Annotated[
        list[SuspendedBet],
        Field(description="Side bets of the window left out for their edge (dynamic windows)."),
    ] = []


class BettingClosedEvent(_AboutRound):
    """``events/betting_closed``: no more bets; the round is dealt."""

    type: Literal["betting_closed"]


class CardEvent(_AboutRound):
    """``events/card``: one card placed on a hand."""

    type: Literal["card"]
    card: CardCode
    hand: HandName
    position: Annotated[int, Field(ge=1, le=3)]
    manual: Annotated[bool, Field(description="Entered by a supervisor, not read.")]


class PromptFields(_Part):
    """What the dealer is asked to do: ``count`` for ``burn``, ``reason`` for ``hold``."""

    action: PromptActionName
    count: Annotated[int, Field(ge=1, le=10)] | SkipJsonSchema[None] = None
    reason: HoldReasonName | SkipJsonSchema[None] = None


class PromptEvent(PromptFields, _Published):
    """``events/prompt``: the dealer's next step; round fields when it is about a round."""

    type: Literal["prompt"]
    shoe_id: str | SkipJsonSchema[None] = None
    round_no: RoundNo | SkipJsonSchema[None] = None
    round_id: RoundId | SkipJsonSchema[None] = None


class RoundResultEvent(_ResultFields, _AboutRound):
    """``events/round_result``: a settled round."""

    type: Literal["round_result"]
    last_round: bool
    manual_cards: Annotated[
        list[CardCode], Field(description="Cards of this round entered by hand.")
    ]


class RoundVoidedEvent(_AboutRound):
    """``events/round_voided``: a voided round; every bet on it is returned."""

    type: Literal["round_voided"]
    reason: VoidReasonName
    cards: Annotated[list[CardOrUnread], Field(description="The cards discarded (null: unread).")]
    was_settled: bool
    operator: str | None


class OriginalResult(_ResultFields):
    """A result as it stood before a correction."""

    correction_no: NonNegative


class ResultCorrectedEvent(_ResultFields, _AboutRound):
    """``events/result_corrected``: a settled round's new result; the original is kept."""

    type: Literal["result_corrected"]
    correction_no: Annotated[int, Field(ge=1)]
    original: OriginalResult
    last_round: bool
    operator: str


class LastRoundEvent(_Published):
    """``events/last_round``: the cut card came out; ``round_id`` names the last round."""

    type: Literal["last_round"]
    shoe_id: str
    round_no: RoundNo | None
    round_id: RoundId | None
    cut_card: Literal["during_round", "between_rounds"]


class ShoeEndedEvent(_Published):
    """``events/shoe_ended``: the shoe is over."""

    type: Literal["shoe_ended"]
    shoe_id: str
    reason: Literal["cut_card", "new_shoe"]
    rounds: NonNegative
    cards_seen: NonNegative


class ShoeVoidedEvent(_Published):
    """``events/shoe_voided``: nothing more is dealt from this shoe."""

    type: Literal["shoe_voided"]
    shoe_id: str
    rounds_voided: list[RoundId]
    cards_discarded: list[CardOrUnread]
    operator: str


class AlarmEvent(_Published):
    """``events/alarm``: something for the pit to look at, with a message a person can read."""

    type: Literal["alarm"]
    code: AlarmCodeName
    message: str
    shoe_id: str | SkipJsonSchema[None] = None
    round_no: RoundNo | SkipJsonSchema[None] = None
    round_id: RoundId | SkipJsonSchema[None] = None
    card: (
        Annotated[CardOrUnread, Field(description="The card concerned (null: unread).")]
        | SkipJsonSchema[None]
    ) = None
    seen: Annotated[int, Field(ge=1)] | SkipJsonSchema[None] = None
    count: Annotated[int, Field(ge=1)] | SkipJsonSchema[None] = None
    bet: BetId | SkipJsonSchema[None] = None
    house_edge: float | SkipJsonSchema[None] = None


class BeadPlateEntry(_Part):
    """One round on the bead plate; a pair or a natural only when there was one."""

    winner: RoadLetter
    banker_pair: bool | SkipJsonSchema[None] = None
    player_pair: bool | SkipJsonSchema[None] = None
    natural: bool | SkipJsonSchema[None] = None


class BigRoadCell(_Part):
    """One cell of the Big Road, with the ties recorded on it."""

    winner: Literal["B", "P"]
    ties: NonNegative
    banker_pair: bool
    player_pair: bool


class AskMarks(_Part):
    """The mark each derived road would get after the asked result (null: none yet)."""

    big_eye_boy: RoadColourName | None
    small_road: RoadColourName | None
    cockroach_pig: RoadColourName | None


class ShoeStats(_Part):
    """Results of the shoe so far."""

    banker: NonNegative
    player: NonNegative
    tie: NonNegative
    banker_pair: NonNegative
    player_pair: NonNegative
    natural: NonNegative
    rounds: NonNegative
    cards_left: NonNegative | None


class RoadsMessage(_Published):
    """``roads`` (retained): the scoreboards of the current shoe, as logical columns."""

    type: Literal["roads"]
    shoe_id: str
    bead_plate: list[BeadPlateEntry]
    big_road: list[list[BigRoadCell]]
    big_eye_boy: list[list[RoadColourName]]
    small_road: list[list[RoadColourName]]
    cockroach_pig: list[list[RoadColourName]]
    ask_banker: AskMarks
    ask_player: AskMarks
    stats: ShoeStats


class RoundCardsOnTable(_Part):
    """The cards of the round shown, per hand in dealing order (null: unread)."""

    player: list[CardOrUnread]
    banker: list[CardOrUnread]


class StateMessage(_Published):
    """``state`` (retained): where the table is now."""

    type: Literal["state"]
    variant: str
    betting_phase: bool
    shoe_id: str | None
    round_no: RoundNo | None
    round_id: RoundId | None
    phase: PhaseName
    held_in: Annotated[PhaseName | None, Field(description="The phase a hold stands over.")]
    prompt: PromptFields | None
    lamp: LampName
    cards: RoundCardsOnTable
    last_round: Annotated[bool, Field(description="The cut card is out.")]
    cards_seen: NonNegative
    cards_left: NonNegative | None
    bets_offered: Annotated[list[BetId], Field(description="Bets offered on this round.")]
    hold_reason: HoldReasonName | None
    holds: list[HoldReasonName]
    missing_cards: NonNegative
    unresolved_lost_frames: Annotated[
        NonNegative,
        Field(
            description="Lost frames that the burn or round did not need: until the next round "
            "starts, a card the dealer drew for one can be entered (manual_card).",
        ),
    ]
    queued_inputs: NonNegative


def _no_seq_in_the_schema(schema: dict[str, Any]) -> None:
    schema["not"] = {"required": ["seq"]}


class StatusMessage(_Envelope):
    """``status`` (retained; also the last will): whether the controller and its reader run.

    It carries no ``seq`` of its own but ``last_seq``: the will is registered on connecting,
    before the messages it would follow exist. A status with a ``seq`` is refused, so that
    none passes for a message of the stream.
    """

    model_config = ConfigDict(json_schema_extra=_no_seq_in_the_schema)

    type: Literal["status"]
    ts: Annotated[
        AwareDatetime,
        Field(description="UTC wall time the status was written (for the will: on connecting)."),
    ]
    last_seq: Annotated[
        int,
        Field(
            ge=0,
            description="The highest seq the table had given a message when the status was "
            "written (0 before any): for the will, when it was registered on connecting. "
            "Every message up to it reaches the broker, before or after the status.",
        ),
    ]
    online: bool
    session: Annotated[
        int,
        Field(
            ge=0,
            description="Raised on every connection; an offline status older than the last "
            "online one is a stale will.",
        ),
    ]
    version: Annotated[str, Field(description="The controller's software version.")]
    reader: ReaderStateName | SkipJsonSchema[None] = None

    @model_validator(mode="after")
    def _without_a_seq(self) -> Self:
        if "seq" in (self.model_extra or {}):
            raise ValueError("a status carries no seq of its own, but last_seq")
        return self


class BetOdds(_Part):
    """One bet's exact value for the next round."""

    ev: Annotated[float, Field(description="Expected net result per unit staked.")]
    house_edge: Annotated[float, Field(description="-ev")]
    rtp: Annotated[float, Field(description="1 + ev")]
    probabilities: Annotated[
        dict[str, float], Field(description="Probability of each verdict: a tier, push, lose.")
    ]
    offered: Annotated[
        bool | SkipJsonSchema[None],
        Field(description="Whether the bet is offered on that round (window, dynamic windows)."),
    ] = None


class OddsMessage(_Published):
    """``odds`` (retained): exact probabilities and house edge of every bet, next round."""

    type: Literal["odds"]
    shoe_id: str
    round_no: Annotated[RoundNo, Field(description="The round the odds are for.")]
    cards_left: NonNegative
    bets: dict[BetId, BetOdds]


class CommandReply(_Published):
    """``commands/replies``: the answer to one command (a repeated id is answered again)."""

    type: Literal["command_reply"]
    id: Annotated[str | None, Field(description="The command's id; null if none could be read.")]
    ok: bool
    command: CommandName | None = None
    error: Annotated[
        CommandErrorCode | RefusalCode | None,
        Field(
            description="When refused: why, as a code. Codes of commands refused as read are the "
            "same on every channel; the display's own (foreign_origin, not_json, "
            "supervisor_disabled, wrong_pin, pin_locked, no_answer) come only from its HTTP "
            "endpoint; the others are the table procedure's refusals."
        ),
    ] = None
    message: Annotated[
        str | None, Field(description="When refused: why, in words a person can read.")
    ] = None


#: Every event of ``<root>/events/<type>``, by type, in the order of mqtt-api.md.
EVENT_MODELS: Final[dict[str, type[_Published]]] = {
    "shoe_started": ShoeStartedEvent,
    "burn": BurnEvent,
    "betting_opened": BettingOpenedEvent,
    "betting_closed": BettingClosedEvent,
    "card": CardEvent,
    "prompt": PromptEvent,
    "round_result": RoundResultEvent,
    "round_voided": RoundVoidedEvent,
    "result_corrected": ResultCorrectedEvent,
    "last_round": LastRoundEvent,
    "shoe_ended": ShoeEndedEvent,
    "shoe_voided": ShoeVoidedEvent,
    "alarm": AlarmEvent,
}
#: Every published message by its ``type``.
PUBLISHED_MODELS: Final[dict[str, type[_Envelope]]] = {
    "status": StatusMessage,
    "state": StateMessage,
    **EVENT_MODELS,
    "roads": RoadsMessage,
    "odds": OddsMessage,
    "command_reply": CommandReply,
}
