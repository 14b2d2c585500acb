# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The vocabulary of the MQTT contract's commands and their arguments, as strict pydantic models.

Edge layer: pure (no I/O, no clock, no randomness), but pydantic lives here and never in a
core. Here are the field types and patterns the contract shares (a card's code, a round id, a
staff id and PIN) and the arguments models; which command takes which, and who may give it, is
the table of commands (``contract/commands/table.py``). The command around them is
``contract/commands/message.py``; reading one from bytes is ``ingress/parsing.py``.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, TypeAlias

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)

from table_controller.contract.payloads.base import MAX_ROUND_ID_LENGTH
from table_controller.contract.payloads.state import DEFAULT_CURRENCY, BetLimits
from table_controller.procedure import (
    MAX_DISPUTED_ROUNDS,
    MAX_LIMITED_BETS,
    MAX_SHOE_ID_LENGTH,
    STAKE_TEXT_PATTERN,
    amount,
    stake_amount,
)

#: Longest free text a command carries (a dispute's reason, its outcome, a comment).
MAX_TEXT_LENGTH: Final = 500
#: Text without control characters: no C0 control (U+0000 to U+001F), no DEL (U+007F) and no
#: C1 control (U+0080 to U+009F). An ``id`` or ``operator`` is echoed in replies and stored by
#: backends (PostgreSQL takes no NUL in text), so neither may hold one; nor may a comment the
#: table publishes. The same pattern in Python, in pydantic's regular expressions and in JSON
#: Schema's (ECMA-262).
NO_CONTROL_CHARACTERS: Final = r"^[^\u0000-\u001f\u007f-\u009f]*$"
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
#: An id the table made and a command names back (a round's, a dispute's, an alarm's).
TableMadeId: TypeAlias = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=MAX_ROUND_ID_LENGTH, pattern=NO_CONTROL_CHARACTERS
    ),
]
RoundId: TypeAlias = Annotated[
    TableMadeId, Field(description="<shoe_id>-<round_no>, the round's idempotency key.")
]
ShoeId: TypeAlias = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_SHOE_ID_LENGTH, pattern=NO_CONTROL_CHARACTERS),
]
#: Free text a command carries, which the table publishes (a dispute's reason, its outcome, a
#: comment): what a supervisor types, in any script, on one line.
Text: TypeAlias = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_TEXT_LENGTH, pattern=NO_CONTROL_CHARACTERS),
]

#: The most rounds a ``recall`` returns (and a table's recall book keeps).
MAX_ROUNDS: Final = 50
#: The rounds a ``recall`` without ``rounds`` returns.
DEFAULT_ROUNDS: Final = 10


class IncomingModel(BaseModel):
    """Strict: JSON types exactly as the contract says, no unknown keys, no coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# --- command arguments --------------------------------------------------------------------


class NoArgs(IncomingModel):
    """The arguments of a command that takes none: ``{}``."""


class NewShoeArgs(IncomingModel):
    """``new_shoe``: an optional shoe id; without one the table numbers the shoe itself."""

    shoe_id: ShoeId | None = None


class VoidRoundArgs(IncomingModel):
    """``void_round``: the round to void, the current one or a settled one of this shoe."""

    round_id: RoundId


class ManualCardArgs(IncomingModel):
    """``manual_card``: the card a supervisor enters by hand."""

    card: CardCode


class CorrectResultArgs(IncomingModel):
    """``correct_result``: a settled round's right cards, in dealing order per hand."""

    round_id: RoundId
    player: Annotated[list[CardCode], Field(min_length=2, max_length=3)]
    banker: Annotated[list[CardCode], Field(min_length=2, max_length=3)]


class DroppedCardArgs(IncomingModel):
    """``dropped_card``: whether the reader saw the card that fell."""

    read: bool


StaffId: TypeAlias = Annotated[
    str,
    StringConstraints(pattern=STAFF_ID_PATTERN),
    Field(description="A staff id of the table's staff register (what a badge reader types)."),
]


class SignInArgs(IncomingModel):
    """``sign_in``: a member of staff's id and PIN, checked against the staff register."""

    staff_id: StaffId
    pin: Annotated[
        str,
        StringConstraints(pattern=PIN_PATTERN),
        Field(description="4 to 12 digits; checked at the edge, never journaled or published."),
    ]


class SignOutArgs(IncomingModel):
    """``sign_out``: the member of staff who leaves the table."""

    staff_id: StaffId


class DisputeArgs(IncomingModel):
    """``dispute``: why, and the rounds in question (their recall goes with the event)."""

    reason: Text
    rounds: Annotated[
        list[RoundId],
        Field(
            min_length=1, max_length=MAX_DISPUTED_ROUNDS, json_schema_extra={"uniqueItems": True}
        ),
    ]

    @field_validator("rounds")
    @classmethod
    def _different(cls, rounds: list[str]) -> list[str]:
        if len(set(rounds)) != len(rounds):
            raise ValueError("the rounds in question must be different round ids")
        return rounds


class ResolveDisputeArgs(IncomingModel):
    """``resolve_dispute``: the open dispute and how it ended."""

    dispute_id: TableMadeId
    outcome: Text


class AcknowledgeArgs(IncomingModel):
    """``acknowledge``: the alarm whose hold the supervisor lifts."""

    alarm: Literal["software_modified", "result_not_confirmed"]


class AcknowledgeAlarmArgs(IncomingModel):
    """``acknowledge_alarm``: the open alarm the supervisor has seen, and a comment if any."""

    alarm_id: Annotated[
        TableMadeId,
        Field(description="The alarm's alarm_id, as its alarm event and state name it."),
    ]
    comment: Annotated[
        Text | None,
        Field(description="What the supervisor adds: published with the acknowledgement."),
    ] = None


class ConfirmResultArgs(IncomingModel):
    """``confirm_result``: whether the layout shows the result the shoe read for the round."""

    round_id: RoundId
    agrees: bool


#: The key of the validation context that names the table's currency (``parse_command``'s).
CURRENCY_CONTEXT: Final = "currency"

Amount: TypeAlias = Annotated[
    int
    | float
    | Annotated[
        str,
        StringConstraints(max_length=32),
        WithJsonSchema({"type": "string", "pattern": STAKE_TEXT_PATTERN, "maxLength": 32}),
    ],
    Field(
        description="A decimal amount of the table's currency, in its minor unit at most"
        " (ISO 4217: 2 decimals for USD, none for JPY, 3 for KWD): a number, or text such as"
        ' "0.50"; a fraction ("1/3") or a finer amount ("0.001" of a dollar) is refused.'
    ),
]


class BetLimitsArgs(IncomingModel):
    """One bet's smallest and largest stake, in the table's currency (``0 < min <= max``)."""

    min: Amount
    max: Amount

    @field_validator("min", "max")
    @classmethod
    def _an_amount(cls, value: float | str, info: ValidationInfo) -> float | str:
        # In the currency the validation context names (the default one without a context).
        stake_amount(value, _currency(info))  # raises ValueError, naming the value
        return value

    def exact(self) -> BetLimits:
        return BetLimits(min=amount(self.min), max=amount(self.max))


def _currency(info: ValidationInfo) -> str:
    context = info.context
    currency = context.get(CURRENCY_CONTEXT) if isinstance(context, dict) else None
    return currency if isinstance(currency, str) else DEFAULT_CURRENCY


class SetLimitsArgs(IncomingModel):
    """``set_limits``: new limits for the bets named (between rounds); the others keep theirs."""

    limits: Annotated[
        dict[
            Annotated[
                str, StringConstraints(min_length=1, max_length=32, pattern=NO_CONTROL_CHARACTERS)
            ],
            BetLimitsArgs,
        ],
        Field(min_length=1, max_length=MAX_LIMITED_BETS),
    ]


def _whole(value: object) -> object:
    """A JSON number with no fraction as the integer it is (``10.0`` is ``10``); else as given."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


#: A whole number as JSON Schema's ``integer`` has it: ``10`` or ``10.0``, never ``10.5`` or
#: ``"10"``. A sender's JSON library may write any number with a fraction (Python's does).
#: Put after a field's bounds, so that the schema still says them as JSON Schema does.
WHOLE_NUMBER: Final = BeforeValidator(_whole)


class RecallArgs(IncomingModel):
    """``recall``: how many of the last rounds to recall, every step of each."""

    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS), WHOLE_NUMBER] = DEFAULT_ROUNDS


class ResendArgs(IncomingModel):
    """``resend``: the ``seq`` range to publish again from the outbox, both ends included.

    Whole numbers only; whether the range is one the table takes (``1 <= from_seq <= to_seq``,
    fewer than 10,000 apart) the edge checks, refusing it as ``bad_range``.
    """

    from_seq: Annotated[int, WHOLE_NUMBER]
    to_seq: Annotated[int, WHOLE_NUMBER]


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
    | AcknowledgeAlarmArgs
    | ConfirmResultArgs
    | SetLimitsArgs
    | RecallArgs
    | ResendArgs
)
