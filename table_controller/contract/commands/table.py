# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table of commands: one row per command of the MQTT contract, and all that names them.

Edge layer: pure (no I/O, no clock, no randomness). A row says what a command is called on the
wire, what arguments it takes (its model in ``args.py``), what procedure input it becomes (or
that the edge answers it), who may give it and whether it is signed, what its reply carries,
and where the dealer display offers it. The command message (``message.py``), parsing and
authorisation (``ingress/``), the command intake (``runtime/command_intake.py``), the display
(``screens/dealer/``) and the schema read these rows; mqtt-api.md "Commands" is checked
against them (``tests/docs/test_mqtt_api_doc.py``). The procedure names each of its inputs'
command itself (``COMMAND``, ``procedure/inputs.py``), which a row must match.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final, Literal, TypeAlias

from table_controller.contract.commands import args
from table_controller.contract.commands.args import CommandArgs
from table_controller.contract.payloads.controller import CommandReply
from table_controller.contract.payloads.replies import EdgeReply, RecallReply
from table_controller.procedure import inputs


class Giver(StrEnum):
    """Who may give a command (mqtt-api.md "Commands", ``ingress/authorisation.py``)."""

    #: Any operator over MQTT; the dealer on the display.
    ANYONE = "anyone"
    #: An authorised supervisor: over MQTT an operator of ``supervisors``; on the display a
    #: supervisor of the staff register, or the display's supervisor PIN.
    SUPERVISOR = "supervisor"
    #: A second source of results: over MQTT an operator of ``result_confirmers``; on the
    #: display the dealer.
    CONFIRMER = "confirmer"
    #: A backend asking for messages again: an operator of ``resenders``, over MQTT only.
    RESENDER = "resender"

    @property
    def on_the_display(self) -> bool:
        """Whether the display takes the command at all (else over MQTT only)."""
        return self is not Giver.RESENDER


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandSpec:
    """One command of the contract: everything the edge needs to know of it."""

    #: The ``command`` on the wire.
    name: str
    #: The model its ``args`` are checked against.
    args: type[CommandArgs]
    #: The procedure input it becomes; None: the edge answers it, in any state.
    input: type[inputs.Command] | None
    giver: Giver
    #: In signed mode, it must carry a ``signature`` (every command does with ``sign_all``).
    signed: bool = False
    #: Its PIN is checked by the staff desk, which puts the staff member in the PIN's place
    #: (the input is made from that, never from the wire's arguments).
    staff_desk: bool = False
    #: The ``commands/replies`` payload of its ``ok`` reply (a refusal is a plain reply).
    reply: type[CommandReply] = CommandReply
    #: The place of its button among the dealer display's, shown while the table takes the
    #: command (``screens/dealer/view.py``); None: no such button.
    button: int | None = None
    #: A staff button of the display, shown in every phase on a table with a staff register.
    staff_button: bool = False

    def __post_init__(self) -> None:
        if self.input is not None and self.name != self.input.COMMAND:
            raise ValueError(f"{self.name}: its input {self.input.__name__} is another command")

    @property
    def at_the_edge(self) -> bool:
        """Whether the edge answers it (it never reaches the procedure)."""
        return self.input is None


#: Every command, in the contract's order (the schema's, and the order refusals list them in).
COMMAND_TABLE: Final[tuple[CommandSpec, ...]] = (
    CommandSpec(name="new_shoe", args=args.NewShoeArgs, input=inputs.StartNewShoe,
                giver=Giver.ANYONE, button=1),
    CommandSpec(name="open_betting", args=args.NoArgs, input=inputs.OpenBetting,
                giver=Giver.ANYONE, button=2),
    CommandSpec(name="close_betting", args=args.NoArgs, input=inputs.CloseBetting,
                giver=Giver.ANYONE, button=3),
    CommandSpec(name="deal", args=args.NoArgs, input=inputs.Deal,
                giver=Giver.ANYONE, button=4),
    CommandSpec(name="misdeal", args=args.NoArgs, input=inputs.Misdeal,
                giver=Giver.ANYONE, button=5),
    CommandSpec(name="void_round", args=args.VoidRoundArgs, input=inputs.VoidRound,
                giver=Giver.SUPERVISOR, signed=True, button=7),
    CommandSpec(name="void_shoe", args=args.NoArgs, input=inputs.VoidShoe,
                giver=Giver.SUPERVISOR, signed=True, button=8),
    CommandSpec(name="manual_card", args=args.ManualCardArgs, input=inputs.EnterCard,
                giver=Giver.SUPERVISOR, signed=True, button=9),
    CommandSpec(name="correct_result", args=args.CorrectResultArgs, input=inputs.CorrectResult,
                giver=Giver.SUPERVISOR, signed=True, button=10),
    CommandSpec(name="dropped_card", args=args.DroppedCardArgs, input=inputs.DroppedCard,
                giver=Giver.ANYONE, button=6),
    CommandSpec(name="sign_in", args=args.SignInArgs, input=inputs.SignIn,
                giver=Giver.ANYONE, staff_desk=True, staff_button=True),
    CommandSpec(name="sign_out", args=args.SignOutArgs, input=inputs.SignOut,
                giver=Giver.ANYONE, staff_button=True),
    CommandSpec(name="dispute", args=args.DisputeArgs, input=inputs.OpenDispute,
                giver=Giver.SUPERVISOR, signed=True, button=12),
    CommandSpec(name="resolve_dispute", args=args.ResolveDisputeArgs,
                input=inputs.ResolveDispute, giver=Giver.SUPERVISOR, signed=True,
                button=13),
    CommandSpec(name="acknowledge", args=args.AcknowledgeArgs, input=inputs.Acknowledge,
                giver=Giver.SUPERVISOR, signed=True, button=14),
    CommandSpec(name="acknowledge_alarm", args=args.AcknowledgeAlarmArgs,
                input=inputs.AcknowledgeAlarm, giver=Giver.SUPERVISOR, signed=True, button=16),
    CommandSpec(name="call_supervisor", args=args.NoArgs, input=inputs.CallSupervisor,
                giver=Giver.ANYONE, button=17),
    CommandSpec(name="confirm_result", args=args.ConfirmResultArgs, input=inputs.ConfirmResult,
                giver=Giver.CONFIRMER, button=11),
    CommandSpec(name="set_limits", args=args.SetLimitsArgs, input=inputs.SetLimits,
                giver=Giver.SUPERVISOR, signed=True, button=15),
    CommandSpec(name="recall", args=args.RecallArgs, input=None,
                giver=Giver.ANYONE, reply=RecallReply),
    CommandSpec(name="resend", args=args.ResendArgs, input=None,
                giver=Giver.RESENDER, reply=EdgeReply),
)  # fmt: skip

#: Each command's row, by its name.
COMMANDS_BY_NAME: Final[Mapping[str, CommandSpec]] = {spec.name: spec for spec in COMMAND_TABLE}
if len(COMMANDS_BY_NAME) != len(COMMAND_TABLE):
    raise ValueError("a command has two rows in the command table")
#: Every command's name, in the contract's order.
COMMAND_NAMES: Final = tuple(COMMANDS_BY_NAME)
if TYPE_CHECKING:
    CommandName: TypeAlias = str
else:
    #: A command's name, as the wire may give it (a ``Literal`` of :data:`COMMAND_NAMES`).
    CommandName = Literal[COMMAND_NAMES]
#: Each command's arguments model, by its name.
ARGS_MODELS: Final[Mapping[str, type[CommandArgs]]] = {
    spec.name: spec.args for spec in COMMAND_TABLE
}
#: The procedure's command inputs (each has a ``command_id``).
PROCEDURE_INPUTS: Final[tuple[type[inputs.Command], ...]] = tuple(
    spec.input for spec in COMMAND_TABLE if spec.input is not None
)
#: The commands the display has a button for, in the order it shows them.
BUTTON_COMMANDS: Final = tuple(
    spec.name
    for spec in sorted(COMMAND_TABLE, key=lambda spec: spec.button or 0)
    if spec.button is not None
)
if len({COMMANDS_BY_NAME[name].button for name in BUTTON_COMMANDS}) != len(BUTTON_COMMANDS):
    raise ValueError("two commands have their button in the same place")
#: The staff's commands: on a table with a staff register, shown in every phase.
STAFF_COMMANDS: Final = tuple(spec.name for spec in COMMAND_TABLE if spec.staff_button)


def command_spec(name: object) -> CommandSpec | None:
    """The row of the command ``name``; None: no command is called that."""
    return COMMANDS_BY_NAME.get(name) if isinstance(name, str) else None
