# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the edge adds to a message the core does not know: software identity and signature.

Pure. The core's payloads say nothing of the software running them nor of the device key; the
sinks and the MQTT link add them where a payload becomes the bytes that go out:

* :data:`EdgeFields`: fields added to the messages of one ``type`` (``software`` on
  ``shoe_started``; ``software`` and ``public_key`` on ``status``), after the payload's own;
* :data:`Seal`: applied last, to the whole message with its ``seq`` (``kid`` and ``sig``,
  :meth:`table_controller.integrity.signing.DeviceKey.sign`), so the outbox stores the signed
  bytes and a resend sends the same signature.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeAlias

from table_controller.contract.envelope import JsonValue

#: Signs a whole message: returns it with ``kid`` and ``sig``.
Seal: TypeAlias = Callable[[Mapping[str, JsonValue]], Mapping[str, object]]
#: Per message ``type``: the fields the edge adds to its messages.
EdgeFields: TypeAlias = Mapping[str, Mapping[str, JsonValue]]


def with_edge_fields(
    message: dict[str, JsonValue], extra: EdgeFields | None
) -> dict[str, JsonValue]:
    """``message`` with the fields ``extra`` names for its ``type`` (a copy when any)."""
    fields = None if extra is None else extra.get(str(message.get("type")))
    if not fields:
        return message
    return {**message, **fields}


def sealed(message: Mapping[str, JsonValue], seal: Seal | None) -> Mapping[str, object]:
    """``message`` signed by ``seal``, or as it is without one."""
    return message if seal is None else seal(message)
