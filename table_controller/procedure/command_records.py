# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Reading the record of a command: its name, its arguments, and the command they make.

Pure: no I/O, no clock, no randomness. A record that does not make a command raises
:class:`~table_controller.procedure.record_fields.BadRecord`; the record's own fields (``id``,
``operator``, ``supervisor``, ``at``) are read by :mod:`.records`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from table_controller.contract.codes import StaffRole
from table_controller.procedure import inputs
from table_controller.procedure.inputs import COMMANDS, Command
from table_controller.procedure.record_fields import (
    BadRecord,
    read_card,
    read_cards,
    read_limits,
    read_text,
)

#: The arguments each command takes (name -> required?).
_ARGS: Final[Mapping[str, Mapping[str, bool]]] = {
    "new_shoe": {"shoe_id": False},
    "open_betting": {},
    "close_betting": {},
    "deal": {},
    "misdeal": {},
    "void_round": {"round_id": True},
    "void_shoe": {},
    "manual_card": {"card": True},
    "correct_result": {"round_id": True, "player": True, "banker": True},
    "dropped_card": {"read": True},
    "sign_in": {"staff_id": True, "name": True, "role": True},
    "sign_out": {"staff_id": True},
    "dispute": {"reason": True, "rounds": True},
    "resolve_dispute": {"dispute_id": True, "outcome": True},
    "acknowledge": {"alarm": True},
    "confirm_result": {"round_id": True, "agrees": True},
    "set_limits": {"limits": True},
}


#: Most rounds one dispute may name (the recall's own limit).
MAX_DISPUTED_ROUNDS: Final = 50


def _check_args(name: object, args: object) -> tuple[str, dict[str, object]]:
    if not isinstance(name, str) or name not in COMMANDS:
        raise BadRecord(f"unknown command {name!r} (expected one of {', '.join(COMMANDS)})")
    if not isinstance(args, dict):
        raise BadRecord("'args' must be a JSON object")
    spec = _ARGS[name]
    unknown = sorted(set(args) - set(spec))
    if unknown:
        raise BadRecord(f"command {name!r} takes no argument {unknown[0]!r}")
    missing = [arg for arg, required in spec.items() if required and arg not in args]
    if missing:
        raise BadRecord(f"command {name!r} needs argument {missing[0]!r}")
    return name, args


def command_from_record(  # noqa: C901, PLR0911 - a case per command
    name: object, args: object, at: float, command_id: str, operator: str
) -> Command:
    """The command a record names with its arguments (checked against :data:`_ARGS`)."""
    name, args = _check_args(name, args)
    no_args = inputs.NO_ARGS_COMMANDS.get(name)
    if no_args is not None:
        return no_args(at=at, command_id=command_id, operator=operator)
    match name:
        case "new_shoe":
            shoe_id = args.get("shoe_id")
            return inputs.StartNewShoe(
                at=at,
                command_id=command_id,
                operator=operator,
                shoe_id=None if shoe_id is None else read_text(shoe_id, "shoe_id"),
            )
        case "void_round":
            return inputs.VoidRound(
                at=at,
                command_id=command_id,
                operator=operator,
                round_id=read_text(args["round_id"], "round_id"),
            )
        case "manual_card":
            return inputs.EnterCard(
                at=at,
                command_id=command_id,
                operator=operator,
                card=read_card(args["card"], "card"),
            )
        case "correct_result":
            return inputs.CorrectResult(
                at=at,
                command_id=command_id,
                operator=operator,
                round_id=read_text(args["round_id"], "round_id"),
                player=read_cards(args["player"], "player"),
                banker=read_cards(args["banker"], "banker"),
            )
        case "sign_in":
            role = args["role"]
            if not isinstance(role, str) or role not in frozenset(StaffRole):
                raise BadRecord(f"'role' must be one of {', '.join(StaffRole)}")
            return inputs.SignIn(
                at=at,
                command_id=command_id,
                operator=operator,
                staff_id=read_text(args["staff_id"], "staff_id"),
                name=read_text(args["name"], "name"),
                role=StaffRole(role),
            )
        case "sign_out":
            return inputs.SignOut(
                at=at,
                command_id=command_id,
                operator=operator,
                staff_id=read_text(args["staff_id"], "staff_id"),
            )
        case "dispute" | "resolve_dispute" | "acknowledge" | "confirm_result":
            return _oversight_command(name, args, at, command_id, operator)
        case "set_limits":
            return inputs.SetLimits(
                at=at,
                command_id=command_id,
                operator=operator,
                limits=read_limits(args["limits"], "limits"),
            )
        case _:
            read = args["read"]
            if not isinstance(read, bool):
                raise BadRecord("'read' must be true or false")
            return inputs.DroppedCard(at=at, command_id=command_id, operator=operator, read=read)


def _oversight_command(
    name: str, args: Mapping[str, object], at: float, command_id: str, operator: str
) -> Command:
    """Disputes, acknowledgements and confirmations (the integrity commands)."""
    match name:
        case "dispute":
            rounds = args["rounds"]
            if (
                not isinstance(rounds, list)
                or not 1 <= len(rounds) <= MAX_DISPUTED_ROUNDS
                or len(set(map(str, rounds))) != len(rounds)
            ):
                raise BadRecord(
                    f"'rounds' must list 1 to {MAX_DISPUTED_ROUNDS} different round ids"
                )
            return inputs.OpenDispute(
                at=at,
                command_id=command_id,
                operator=operator,
                reason=read_text(args["reason"], "reason"),
                round_ids=tuple(read_text(item, "rounds") for item in rounds),
            )
        case "resolve_dispute":
            return inputs.ResolveDispute(
                at=at,
                command_id=command_id,
                operator=operator,
                dispute_id=read_text(args["dispute_id"], "dispute_id"),
                outcome=read_text(args["outcome"], "outcome"),
            )
        case "acknowledge":
            return inputs.Acknowledge(
                at=at,
                command_id=command_id,
                operator=operator,
                alarm=read_text(args["alarm"], "alarm"),
            )
        case _:
            agrees = args["agrees"]
            if not isinstance(agrees, bool):
                raise BadRecord("'agrees' must be true or false")
            return inputs.ConfirmResult(
                at=at,
                command_id=command_id,
                operator=operator,
                round_id=read_text(args["round_id"], "round_id"),
                agrees=agrees,
            )
