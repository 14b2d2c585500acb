# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The published messages as pydantic models, generated from the core's payload types.

Edge layer, pure: no I/O, no clock, no randomness. The core describes each payload once, as a
frozen dataclass of ``contract/payloads/``, listed by ``type`` in :data:`PAYLOAD_TYPES`; this
module reads those types and writes the models the JSON
Schemas, the AsyncAPI document and the contract tests use, so a field added to a payload is
described and validated with no edit here. The reading:

* the envelope (``schema``, ``type``, ``table_id``, ``seq``, ``ts``) comes first; ``status``
  has no ``seq`` (its ``last_seq`` is a field of its payload), and one with a ``seq`` is
  refused; a ``command_reply`` has none when the table could not record it (its journal
  refused writes: :data:`UNRECORDED_TYPES`);
* a card is its code (the pattern of
  :data:`~table_controller.contract.commands.args.CardCode`), a ``Fraction`` a number, an
  enum its values, a tuple or ``Sequence`` an array, a ``Mapping`` an object, a part (a
  dataclass or ``TypedDict``) a model of its own;
* a field whose value may be :data:`~table_controller.contract.payloads.base.ABSENT` is not
  required, and never ``null`` unless its type says so;
* a field with ``FLATTEN`` metadata is spliced into its parent: a part's fields, or for an open
  mapping the keys its ``TypedDict`` metadata names (more keys are allowed);
* ``annotated_types`` bounds are kept; :class:`~table_controller.contract.payloads.base.OneOf`
  becomes an enumeration; the ``#:`` comment above a field is its description;
* what only the edge knows is added from :data:`EDGE_FIELDS`: a reply's refusal codes include
  those of commands refused as read; and from :data:`EDGE_ADDED`: the software identity and
  the public key the edge puts on some messages (``contract/sealing.py``), and on every
  message the signature (``kid``, ``sig``) when the table has a device key.

Every model allows fields it does not describe (payloads may grow); ``model_extra`` shows
them, which is how the contract tests find an undescribed field.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re
import types
import typing
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from typing import Annotated, Any, Final, Literal, NotRequired, Required, Union

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic.fields import FieldInfo

from table_controller.contract.codes import EventType, RefusalCode
from table_controller.contract.commands.args import CardCode
from table_controller.contract.commands.table import CommandName
from table_controller.contract.envelope import SCHEMA, to_wire
from table_controller.contract.errors import CommandErrorCode
from table_controller.contract.payloads import board as board_payloads
from table_controller.contract.payloads import controller as controller_payloads
from table_controller.contract.payloads import pit as pit_payloads
from table_controller.contract.payloads import round as round_payloads
from table_controller.contract.payloads import shoe as shoe_payloads
from table_controller.contract.payloads import state as state_payloads
from table_controller.contract.payloads.base import Absent, OneOf, Payload
from table_controller.contract.payloads.controller import CommandReply
from table_controller.contract.payloads.replies import EdgeReply
from table_controller.rules import Card

#: Every payload type by the ``type`` it is published with.
PAYLOAD_TYPES: Final[Mapping[EventType, type[Payload]]] = {
    cls.TYPE: cls
    for cls in (
        shoe_payloads.ShoeStarted,
        shoe_payloads.BurnAnnounced,
        round_payloads.BettingOpened,
        round_payloads.BettingClosed,
        round_payloads.CardPlaced,
        round_payloads.PromptShown,
        round_payloads.RoundSettled,
        round_payloads.RoundVoided,
        round_payloads.ResultCorrected,
        shoe_payloads.LastRound,
        shoe_payloads.ShoeEnded,
        shoe_payloads.ShoeVoided,
        pit_payloads.AlarmRaised,
        pit_payloads.AlarmAcknowledged,
        pit_payloads.StaffChanged,
        pit_payloads.DisputeOpened,
        pit_payloads.DisputeResolved,
        board_payloads.Roads,
        board_payloads.Odds,
        state_payloads.TableState,
        board_payloads.Stats,
        state_payloads.TableLimits,
        controller_payloads.Status,
        controller_payloads.CommandReply,
    )
}

#: Fields whose type the edge widens or narrows: (payload type, field) -> the field's type.
EDGE_FIELDS: Final[Mapping[tuple[type, str], object]] = {
    (CommandReply, "command"): CommandName,
    (CommandReply, "error"): CommandErrorCode | RefusalCode,
}
#: Payloads the edge publishes in place of the core's: a reply may carry a recall or a
#: resend's counts.
EDGE_PAYLOADS: Final[Mapping[EventType, type[Payload]]] = {EventType.COMMAND_REPLY: EdgeReply}
_OPEN: Final = ConfigDict(extra="allow", frozen=True)


class Software(BaseModel):
    """The running software's identity, as ``table-controller verify-install`` computes it."""

    model_config = _OPEN

    version: str = Field(description="The distribution's version.")
    sha256: str = Field(
        pattern=r"^[0-9a-f]{64}$",
        description="SHA-256 over the installed package files (docs/operations.md).",
    )


_SOFTWARE: Final = (
    Software,
    Field(default=None, description="The software identity of the table's running install."),
)
# Each is left out when not there (never null), as a payload's ABSENT fields are.
#: Fields the edge adds to the messages of one type, after the payload's own.
EDGE_ADDED: Final[Mapping[EventType, Mapping[str, object]]] = {
    EventType.STATUS: {
        "software": _SOFTWARE,
        "public_key": (
            str,
            Field(
                default=None,
                pattern=r"^[A-Za-z0-9+/]{43}=$",
                description="With a device key: its Ed25519 public key, base64 of the raw "
                "32 bytes, against which every payload's sig is checked.",
            ),
        ),
    },
    EventType.SHOE_STARTED: {"software": _SOFTWARE},
}
#: The signature every payload carries when the table has a device key (mqtt-api.md).
SIGNATURE_FIELDS: Final[Mapping[str, object]] = {
    "kid": (
        str,
        Field(
            default=None,
            pattern=r"^[0-9a-f]{16}$",
            description="The device key's id: the first 16 hex digits of SHA-256 over the raw "
            "public key.",
        ),
    ),
    "sig": (
        str,
        Field(
            default=None,
            pattern=r"^[A-Za-z0-9+/]{86}==$",
            description="Base64 Ed25519 signature over the payload's canonical JSON without "
            "sig (keys sorted, separators , and :, UTF-8, non-ASCII unescaped).",
        ),
    ),
}
#: The messages the table may publish unrecorded, without a ``seq``, while its journal refuses
#: writes (``runtime/service.py``): the replies to the commands it gets meanwhile.
UNRECORDED_TYPES: Final = frozenset({EventType.COMMAND_REPLY})
#: A field as ``create_model`` takes it: its annotation and its ``FieldInfo``.
_FieldSpec = tuple[object, Any]


class UnsupportedPayloadTypeError(TypeError):
    """A payload field has a type this module cannot describe (a bug in the payload's type)."""


# --- the messages ---------------------------------------------------------------------------


def _without_a_seq(model: BaseModel) -> BaseModel:
    if "seq" in (model.model_extra or {}):
        raise ValueError("a status carries no seq of its own, but last_seq")
    return model


def _no_seq_in_the_schema(schema: dict[str, Any]) -> None:
    schema["not"] = {"required": ["seq"]}


def message_model(payload_type: type[Payload]) -> type[BaseModel]:
    """The whole message of one payload type: the envelope, then the payload's fields."""
    numbered = payload_type.TYPE is not EventType.STATUS
    envelope: dict[str, _FieldSpec] = {
        "schema_": (Literal[SCHEMA], Field(alias="schema", description="The contract's version.")),
        "type": (Literal[payload_type.TYPE.value], Field()),
        "table_id": (str, Field(description="The table's id.")),
    }
    if numbered:
        unrecorded = payload_type.TYPE in UNRECORDED_TYPES
        description = (
            "+1 for every message the table publishes, across restarts; a message resent keeps"
            " its seq."
        )
        if unrecorded:
            description += (
                " Absent only on a reply the table could not record (its journal refused"
                " writes): published once, never resent."
            )
        envelope["seq"] = (
            int,
            Field(default=None if unrecorded else ..., ge=1, description=description),
        )
    envelope["ts"] = (
        AwareDatetime,
        Field(description="UTC wall time of what caused the message (RFC 3339)."),
    )
    fields = _fields_of(payload_type)
    config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)
    validators: dict[str, Any] = {}
    if not numbered:
        config["json_schema_extra"] = _no_seq_in_the_schema
        validators["_without_a_seq"] = model_validator(mode="after")(_without_a_seq)
    added = EDGE_ADDED.get(payload_type.TYPE, {})
    definitions: dict[str, Any] = {**envelope, **fields, **added, **SIGNATURE_FIELDS}
    return create_model(
        payload_type.__name__,
        __config__=config,
        __doc__=payload_type.__doc__,
        __module__=__name__,
        __validators__=validators,
        **definitions,
    )


# --- fields ---------------------------------------------------------------------------------


def _fields_of(cls: type) -> dict[str, _FieldSpec]:
    """A dataclass's fields as pydantic fields, the flattened ones spliced in."""
    hints = typing.get_type_hints(cls, include_extras=True)
    bases = [base for base in reversed(cls.__mro__) if dataclasses.is_dataclass(base)]
    notes = {name: note for base in bases for name, note in _field_comments(base).items()}
    fields: dict[str, _FieldSpec] = {}
    for item in dataclasses.fields(cls):
        hint = hints[item.name]
        if item.metadata.get("flatten"):
            fields.update(_flattened(hint, where=f"{cls.__name__}.{item.name}"))
            continue
        edge = [EDGE_FIELDS[base, item.name] for base in bases if (base, item.name) in EDGE_FIELDS]
        annotation = edge[-1] if edge else hint
        optional = _may_be_absent(hint)
        if item.default is not dataclasses.MISSING and item.default is not Absent.ABSENT:
            default: object = to_wire(item.default)
        else:
            default = None if optional else ...
        fields[item.name] = (
            _translate(annotation, where=f"{cls.__name__}.{item.name}"),
            Field(default=default, description=notes.get(item.name)),
        )
    return fields


def _flattened(hint: object, *, where: str) -> dict[str, _FieldSpec]:
    """The fields a ``FLATTEN`` field splices into its parent (an open mapping: those named)."""
    base, metadata = _unannotated(hint)
    if dataclasses.is_dataclass(base) and isinstance(base, type):
        return _fields_of(base)
    if typing.get_origin(base) in {Mapping, dict}:
        named = [item for item in metadata if isinstance(item, type) and typing.is_typeddict(item)]
        fields: dict[str, _FieldSpec] = {}
        for typed in named:
            for name, (annotation, info) in _typed_dict_fields(typed).items():
                optional: FieldInfo = info
                optional.default = None  # an open mapping's keys are never required
                fields[name] = (annotation, optional)
        return fields
    raise UnsupportedPayloadTypeError(f"{where}: cannot splice a {hint!r} into its parent")


def _typed_dict_fields(typed: type) -> dict[str, _FieldSpec]:
    hints = typing.get_type_hints(typed, include_extras=True)
    notes = _field_comments(typed)
    total: bool = getattr(typed, "__total__", True)
    fields: dict[str, _FieldSpec] = {}
    for name, declared in hints.items():
        # read from the annotation: ``__required_keys__`` misses a postponed ``NotRequired``
        required = {NotRequired: False, Required: True}.get(typing.get_origin(declared), total)
        hint = declared
        while typing.get_origin(hint) in {NotRequired, Required}:
            (hint,) = typing.get_args(hint)
        fields[name] = (
            _translate(hint, where=f"{typed.__name__}.{name}"),
            Field(default=... if required else None, description=notes.get(name)),
        )
    return fields


_COMMENTED_FIELD: Final = re.compile(r"^\s*(\w+)\s*:")


def _field_comments(cls: type) -> dict[str, str]:
    """The ``#:`` comment above each field of a class, as one line of text, by field."""
    try:
        lines, _ = inspect.getsourcelines(cls)
    except (OSError, TypeError):  # no source shipped: the schema goes without descriptions
        return {}
    notes: dict[str, str] = {}
    pending: list[str] = []
    for line in lines:
        text = line.strip()
        if text.startswith("#:"):
            pending.append(text[2:].strip())
            continue
        found = _COMMENTED_FIELD.match(line)
        if found and pending:
            notes[found.group(1)] = " ".join(pending)
        pending = []
    return notes


# --- types ----------------------------------------------------------------------------------


def _unannotated(hint: object) -> tuple[object, tuple[object, ...]]:
    if typing.get_origin(hint) is Annotated:
        base, *metadata = typing.get_args(hint)
        return base, tuple(metadata)
    return hint, ()


def _may_be_absent(hint: object) -> bool:
    base, _ = _unannotated(hint)
    return typing.get_origin(base) in {Union, types.UnionType} and Absent in typing.get_args(base)


def _translate(hint: object, *, where: str) -> object:
    """A core type as the type pydantic describes on the wire."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Annotated:
        base, *metadata = args
        chosen = [item for item in metadata if isinstance(item, OneOf)]
        kept = [item for item in metadata if not isinstance(item, OneOf)]
        wire = Literal[chosen[0].values] if chosen else _translate(base, where=where)
        return Annotated[(wire, *kept)] if kept else wire
    if origin in {Union, types.UnionType}:
        members = [_translate(arg, where=where) for arg in args if arg is not Absent]
        return members[0] if len(members) == 1 else Union[tuple(members)]  # noqa: UP007
    if origin in {tuple, Sequence, list}:
        if origin is tuple and (len(args) != 2 or args[1] is not Ellipsis):
            raise UnsupportedPayloadTypeError(f"{where}: a fixed-length tuple {hint!r}")
        return list[_translate(args[0], where=where)]  # type: ignore[misc]
    if origin in {Mapping, dict}:
        key, value = args
        return dict[_translate(key, where=where), _translate(value, where=where)]  # type: ignore[misc]
    return _translate_leaf(hint, where=where)


def _translate_leaf(hint: object, *, where: str) -> object:  # noqa: PLR0911 - one case per kind
    """A type that contains no other: a JSON scalar, a card, an enum, a part of a payload."""
    if typing.get_origin(hint) is Literal or hint in {str, int, bool, float, type(None)}:
        return hint
    if hint is Card:
        return CardCode
    if hint is Fraction:
        return float
    if hint is object:
        return Any
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _part_model(hint)
    if isinstance(hint, type) and typing.is_typeddict(hint):
        return _typed_dict_model(hint)
    raise UnsupportedPayloadTypeError(f"{where}: cannot describe {hint!r}")


@cache
def _part_model(cls: type) -> type[BaseModel]:
    fields: dict[str, Any] = _fields_of(cls)
    return create_model(
        cls.__name__, __config__=_OPEN, __doc__=cls.__doc__, __module__=__name__, **fields
    )


@cache
def _typed_dict_model(typed: type) -> type[BaseModel]:
    fields: dict[str, Any] = _typed_dict_fields(typed)
    return create_model(
        typed.__name__, __config__=_OPEN, __doc__=typed.__doc__, __module__=__name__, **fields
    )


#: Every published message's model, by its ``type``, in the order of mqtt-api.md's events.
MESSAGE_MODELS: Final[Mapping[str, type[BaseModel]]] = {
    event_type.value: message_model(EDGE_PAYLOADS.get(event_type, payload_type))
    for event_type, payload_type in PAYLOAD_TYPES.items()
}
#: The messages of ``<root>/events/<type>``: the ones neither retained nor replies.
EVENT_MODELS: Final[Mapping[str, type[BaseModel]]] = {
    event_type.value: MESSAGE_MODELS[event_type.value]
    for event_type, payload_type in PAYLOAD_TYPES.items()
    if not payload_type.RETAINED and event_type is not EventType.COMMAND_REPLY
}
