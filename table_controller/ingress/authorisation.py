# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who may give which command: the supervisor allow-list and the optional signed mode.

Pure: no I/O, no clock, no randomness. Given a command that ``parse_command`` accepted and the
deployment's :class:`AuthorisationPolicy`, :func:`authorise` says allowed or refused, by who
may give the command and whether it is signed (its row of ``contract/commands/table.py``); a
refusal is a value (``not_authorised``, ``bad_signature``) that becomes the command's reply.

How a deployment binds operators to broker logins. MQTT does not tell a subscriber who
published a message, so the table cannot check the login itself; the broker's ACL does that
part, and this module the rest:

1. ``supervisors`` maps each operator id allowed to give supervisor commands (``void_round``,
   ``void_shoe``, ``manual_card``, ``correct_result``) to the broker user names that operator
   publishes with. A supervisor command naming any other operator is refused.
2. The broker's ACL lets only those user names (and the backend, for ordinary commands)
   write to the tables' ``commands`` topics. :func:`acl_rules` writes those rules for a
   mosquitto ``acl_file``: one ``user`` block per login with ``topic write
   <prefix>/<table>/commands`` (``+`` for every table) and ``topic read`` of the replies.
   Table logins get only ``pattern write <prefix>/%u/#`` and ``pattern read
   <prefix>/%u/commands``, so a table cannot command another.
3. ``confirmers`` does the same for ``confirm_result`` (the second source of a result): the
   operators of the camera systems allowed to confirm results over MQTT, with their logins.
   The dealer's confirmation comes from the display, not over MQTT.
4. ``resenders`` does the same for ``resend`` (a backend asking for missing messages
   again): the operators allowed to, with their logins; anyone else is refused.
5. Signed mode (``shared_secret`` set): every supervisor command (or every command, with
   ``sign_all``) must carry ``signature`` = lowercase hex HMAC-SHA256 over
   ``CommandMessage.canonical_bytes()`` with the shared secret, compared in constant time.
   A stolen backend login can then publish commands but cannot forge a supervisor's
   ``void_round``. Replaying a signed command is harmless: the same ``id`` is answered again,
   not executed twice. Use one secret per table, so a command signed for one table cannot be
   replayed on another's topic.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias

from table_controller.contract import CommandErrorCode
from table_controller.contract.commands import COMMANDS_BY_NAME, CommandMessage, Giver

RefusalCode: TypeAlias = Literal[CommandErrorCode.NOT_AUTHORISED, CommandErrorCode.BAD_SIGNATURE]
#: The minimum length of a shared secret, in bytes (HMAC-SHA256's block is 64).
MIN_SECRET_BYTES: Final = 16


@dataclass(frozen=True, slots=True, kw_only=True)
class AuthorisationPolicy:
    """The deployment's rules: who is a supervisor, and whether commands must be signed."""

    #: operator id -> the broker user names that operator publishes commands with.
    supervisors: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    #: operator id -> broker logins of the second sources allowed to send ``confirm_result``.
    confirmers: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    #: operator id -> broker logins of the backends allowed to send ``resend``.
    resenders: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    #: The HMAC key of signed mode; ``None``: commands are not signed.
    shared_secret: bytes | None = field(default=None, repr=False)
    #: In signed mode, require a signature on every command, not only supervisor ones.
    sign_all: bool = False

    def __post_init__(self) -> None:
        if self.shared_secret is not None and len(self.shared_secret) < MIN_SECRET_BYTES:
            raise ValueError(f"the shared secret needs at least {MIN_SECRET_BYTES} bytes")
        if self.sign_all and self.shared_secret is None:
            raise ValueError("sign_all needs a shared secret")

    @property
    def signed_mode(self) -> bool:
        return self.shared_secret is not None

    def broker_users(self) -> frozenset[str]:
        """Every login of a supervisor, a confirmer or a resender: the ACL lets these publish."""
        logins = (*self.supervisors.values(), *self.confirmers.values(), *self.resenders.values())
        return frozenset(user for users in logins for user in users)


@dataclass(frozen=True, slots=True, kw_only=True)
class Authorised:
    """The command may be carried out."""

    command: CommandMessage


@dataclass(frozen=True, slots=True, kw_only=True)
class Refused:
    """The command is refused: the reply's ``error`` code and a message a person can read."""

    id: str
    code: RefusalCode
    message: str


def signature(command: CommandMessage, secret: bytes) -> str:
    """The hex HMAC-SHA256 a sender puts in ``signature`` (tools and tests use it too)."""
    return hmac.new(secret, command.canonical_bytes(), hashlib.sha256).hexdigest()


def sign(command: CommandMessage, secret: bytes) -> CommandMessage:
    """The same command carrying its signature."""
    return command.model_copy(update={"signature": signature(command, secret)})


def _operator_refusal(
    command: CommandMessage, policy: AuthorisationPolicy, giver: Giver
) -> str | None:
    """Why the command's operator may not give it under the policy, or None if it may."""
    operator = command.operator
    if giver is Giver.SUPERVISOR and operator not in policy.supervisors:
        return (
            f"{command.command} is a supervisor command and operator "
            f"{operator!r} is not an authorised supervisor"
        )
    if giver is Giver.CONFIRMER and operator not in policy.confirmers:
        return (
            f"operator {operator!r} is not a second source allowed to confirm "
            "results (result_confirmers)"
        )
    if giver is Giver.RESENDER and operator not in policy.resenders:
        return f"operator {operator!r} is not allowed to ask for messages again (resenders)"
    return None


def authorise(command: CommandMessage, policy: AuthorisationPolicy) -> Authorised | Refused:
    """Allow or refuse one parsed command under the deployment's policy (its table row's rules)."""
    spec = COMMANDS_BY_NAME[command.command]
    refusal = _operator_refusal(command, policy, spec.giver)
    if refusal is not None:
        return Refused(id=command.id, code=CommandErrorCode.NOT_AUTHORISED, message=refusal)
    if policy.shared_secret is not None and (spec.signed or policy.sign_all):
        if command.signature is None:
            return Refused(
                id=command.id,
                code=CommandErrorCode.BAD_SIGNATURE,
                message=f"{command.command} must be signed (field signature) in this deployment",
            )
        expected = signature(command, policy.shared_secret)
        if not hmac.compare_digest(expected, command.signature):
            return Refused(
                id=command.id,
                code=CommandErrorCode.BAD_SIGNATURE,
                message="the signature does not match the command and the shared secret",
            )
    return Authorised(command=command)


def acl_rules(
    policy: AuthorisationPolicy, *, topic_prefix: str, table_ids: Iterable[str] = ("+",)
) -> str:
    """The mosquitto ACL block that lets the supervisors' logins publish commands.

    Paste it into (or include it in) the broker's ``acl_file`` next to the backend's and the
    tables' rules; logins not listed there cannot publish to any ``commands`` topic.
    """
    prefix = topic_prefix.rstrip("/")
    tables = list(table_ids)
    lines = [
        "# Tables: each publishes under its own root and reads only its own commands.",
        f"pattern write {prefix}/%u/#",
        f"pattern read {prefix}/%u/commands",
    ]
    for user in sorted(policy.broker_users()):
        supervisors = sorted(op for op, users in policy.supervisors.items() if user in users)
        confirmers = sorted(op for op, users in policy.confirmers.items() if user in users)
        resenders = sorted(op for op, users in policy.resenders.items() if user in users)
        said = [f"Supervisor login of {', '.join(supervisors)}"] if supervisors else []
        if confirmers:
            said.append(f"result confirmer login of {', '.join(confirmers)}")
        if resenders:
            said.append(f"resend login of {', '.join(resenders)}")
        lines.extend(["", f"# {'; '.join(said)}.", f"user {user}"])
        for table in tables:
            lines.append(f"topic write {prefix}/{table}/commands")
            lines.append(f"topic read {prefix}/{table}/commands/replies")
    return "\n".join(lines) + "\n"
