# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Supervisor allow-list and signed mode (pure: no broker)."""

from __future__ import annotations

import json

import pytest

from table_controller.contract.commands.message import CommandMessage
from table_controller.contract.errors import CommandErrorCode
from table_controller.ingress.authorisation import (
    AuthorisationPolicy,
    Authorised,
    Refused,
    acl_rules,
    authorise,
    sign,
    signature,
)
from table_controller.ingress.parsing import parse_command

SECRET = b"a-shared-secret-of-32-bytes-long"
POLICY = AuthorisationPolicy(supervisors={"sup-1": frozenset({"pit"})})
SIGNED = AuthorisationPolicy(supervisors={"sup-1": frozenset({"pit"})}, shared_secret=SECRET)


def command(name: str, operator: str = "sup-1", **args: object) -> CommandMessage:
    raw = json.dumps({"id": f"c-{name}", "command": name, "operator": operator, "args": args})
    parsed = parse_command(raw.encode())
    assert isinstance(parsed, CommandMessage), parsed
    return parsed


SUPERVISOR_CASES = [
    command("void_round", round_id="S-1-3"),
    command("void_shoe"),
    command("manual_card", card="QH"),
    command("correct_result", round_id="S-1-3", player=["QH", "4S"], banker=["6C", "KD"]),
    command("acknowledge_alarm", alarm_id="T07-A000001", comment="seen"),
]


@pytest.mark.parametrize("cmd", SUPERVISOR_CASES, ids=lambda c: c.command)
def test_supervisor_commands_need_an_operator_on_the_allow_list(cmd: CommandMessage) -> None:
    assert authorise(cmd, POLICY) == Authorised(command=cmd)
    stranger = cmd.model_copy(update={"operator": "dealer-3"})
    verdict = authorise(stranger, POLICY)
    assert isinstance(verdict, Refused)
    assert verdict.code is CommandErrorCode.NOT_AUTHORISED
    assert verdict.id == cmd.id
    assert "dealer-3" in verdict.message


def test_no_supervisor_configured_refuses_every_supervisor_command() -> None:
    for cmd in SUPERVISOR_CASES:
        assert isinstance(authorise(cmd, AuthorisationPolicy()), Refused)


def test_ordinary_commands_need_no_supervisor() -> None:
    cmd = command("close_betting", operator="backend")
    assert authorise(cmd, POLICY) == Authorised(command=cmd)
    assert authorise(cmd, SIGNED) == Authorised(command=cmd)


def test_signed_mode_accepts_a_correct_signature_only() -> None:
    cmd = command("void_round", round_id="S-1-3")
    signed = sign(cmd, SECRET)
    assert authorise(signed, SIGNED) == Authorised(command=signed)
    unsigned = authorise(cmd, SIGNED)
    assert isinstance(unsigned, Refused)
    assert unsigned.code is CommandErrorCode.BAD_SIGNATURE
    wrong_key = sign(cmd, b"another-secret-of-32-bytes-long!")
    assert isinstance(authorise(wrong_key, SIGNED), Refused)
    # a stolen login cannot move a signature to another round
    moved = signed.model_copy(update={"args": signed.args.model_copy(update={"round_id": "S-1-4"})})
    refused = authorise(moved, SIGNED)
    assert isinstance(refused, Refused)
    assert refused.code is CommandErrorCode.BAD_SIGNATURE


def test_a_signature_survives_the_wire_and_key_order() -> None:
    cmd = command("void_round", round_id="S-1-3")
    digest = signature(cmd, SECRET)
    wire = json.dumps(
        {
            "signature": digest,
            "args": {"round_id": "S-1-3"},
            "operator": "sup-1",
            "command": "void_round",
            "id": "c-void_round",
        },
        indent=2,
    )
    received = parse_command(wire.encode())
    assert isinstance(received, CommandMessage)
    assert isinstance(authorise(received, SIGNED), Authorised)


def test_sign_all_requires_signatures_on_ordinary_commands() -> None:
    policy = AuthorisationPolicy(shared_secret=SECRET, sign_all=True)
    cmd = command("close_betting", operator="backend")
    assert isinstance(authorise(cmd, policy), Refused)
    assert isinstance(authorise(sign(cmd, SECRET), policy), Authorised)


def test_policy_refuses_weak_settings() -> None:
    with pytest.raises(ValueError, match="at least"):
        AuthorisationPolicy(shared_secret=b"short")
    with pytest.raises(ValueError, match="shared secret"):
        AuthorisationPolicy(sign_all=True)


def test_acl_rules_let_only_the_supervisors_logins_publish_commands() -> None:
    policy = AuthorisationPolicy(
        supervisors={"sup-1": frozenset({"pit"}), "sup-2": frozenset({"pit", "pit-b"})}
    )
    text = acl_rules(policy, topic_prefix="baccarat/tables", table_ids=["T07"])
    blocks = text.split("\n\n")
    assert "pattern write baccarat/tables/%u/#" in blocks[0]
    assert "pattern read baccarat/tables/%u/commands" in blocks[0]
    assert blocks[1].splitlines() == [
        "# Supervisor login of sup-1, sup-2.",
        "user pit",
        "topic write baccarat/tables/T07/commands",
        "topic read baccarat/tables/T07/commands/replies",
    ]
    assert blocks[2].splitlines()[1] == "user pit-b"
