# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The codes of a command refused before the table procedure saw it, the same on every channel.

Pure: stdlib only. The MQTT command ingress, the dealer display, the staff desk, the PIN
lockout and the resend path all answer with these codes; the JSON Schema of a reply lists them.
"""

from __future__ import annotations

import enum


class CommandErrorCode(enum.StrEnum):
    """Why a command was refused before the table procedure saw it: a reply's ``error``.

    One fault gets one code on every channel: ``<root>/commands`` over MQTT and the dealer
    display's ``POST /api/commands``. The table procedure's own refusals (``wrong_phase``,
    ``table_held`` ...) are the codes of ``RefusalCode``.
    """

    #: The payload is larger than the channel reads (``MAX_COMMAND_BYTES`` of
    #: ``ingress/parsing.py``).
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
    #: Too many wrong PINs in a row for a staff id, from a client or for the display's PIN
    #: (or as many checks of the id under way): they wait a while.
    PIN_LOCKED = "pin_locked"
    #: ``sign_in`` (or a supervisor's approval by staff id) on a table with no staff register.
    NO_STAFF_REGISTER = "no_staff_register"
    #: Display: the table did not answer in time (the command may still be carried out).
    NO_ANSWER = "no_answer"
    #: ``resend``: the range is not one the table takes (``1 <= from_seq <= to_seq``, fewer
    #: than 10,000 apart).
    BAD_RANGE = "bad_range"
    #: ``resend``, or ``recall`` over MQTT: the operator asked more often than the table's
    #: limit allows (a minute's count).
    RATE_LIMITED = "rate_limited"
    #: ``resend``: the outbox could not be read (the message says why); ask again later.
    RESEND_FAILED = "resend_failed"
    #: The table's journal refuses writes (a full disk, say): the table is held and takes no
    #: command until it records again (the message says why it cannot record).
    JOURNAL_UNAVAILABLE = "journal_unavailable"
    #: The ``id`` was given before to a command with other content (``command``, ``operator``
    #: or ``args``): nothing is carried out, and the earlier command's reply is not repeated.
    ID_REUSED = "id_reused"
    #: MQTT: more commands wait than the table holds (``MAX_WAITING`` of
    #: ``runtime/command_intake.py``): this one is not carried out; send it again later.
    OVERLOADED = "overloaded"
