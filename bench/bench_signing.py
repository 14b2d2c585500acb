# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What signing a message costs: ``DeviceKey.sign`` per message, against encoding it.

A benchmark script, not part of the product. The messages are the JSON examples of
docs/mqtt-api.md (every payload type the table publishes, from a card's event to ``roads``).
For each it times, interleaved ``--rounds`` times over ``--repeat`` calls: the signature (the
canonical JSON of the message and an Ed25519 signature, what the outbox adds per message with a
device key), the compact JSON encoding the outbox does anyway, and a verification (what a
consumer such as ``watch --verify`` spends). It prints the median per call.

Run: ``python bench/bench_signing.py [--repeat 2000] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from table_controller.integrity.signing import DeviceKey, public_key_from_text, verify

DOC = Path(__file__).resolve().parents[1] / "docs" / "mqtt-api.md"


def examples() -> dict[str, dict[str, object]]:
    """One example message per type, the largest the page shows."""
    found: dict[str, dict[str, object]] = {}
    for block in re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL):
        try:
            message = json.loads(block)
        except json.JSONDecodeError:
            continue
        if not isinstance(message, dict) or "type" not in message:
            continue
        message = {k: v for k, v in message.items() if k not in {"kid", "sig"}}
        kind = str(message["type"])
        if len(json.dumps(message)) > len(json.dumps(found.get(kind, {}))):
            found[kind] = message
    return found


def per_call_us(work: Callable[[], object], repeat: int, rounds: int) -> float:
    """Median over ``rounds`` of the mean time of one call, in microseconds."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(repeat):
            work()
        times.append((time.perf_counter() - started) / repeat * 1e6)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=2000, help="calls per timing")
    parser.add_argument("--rounds", type=int, default=5, help="timings per figure (median)")
    args = parser.parse_args()
    key = DeviceKey.of(Ed25519PrivateKey.generate())
    public = public_key_from_text(key.public_key)
    print("| message | bytes | sign | JSON encoding | verify |")
    print("|---|---|---|---|---|")
    signs = []
    for kind, message in sorted(examples().items(), key=lambda item: len(json.dumps(item[1]))):
        signed = key.sign(message)
        assert verify(signed, public) is True

        def encode(message: dict[str, object] = message) -> str:
            return json.dumps(message, separators=(",", ":"), ensure_ascii=False)

        def sign(message: dict[str, object] = message) -> object:
            return key.sign(message)

        def check(signed: dict[str, object] = signed) -> object:
            return verify(signed, public)

        sign_us = per_call_us(sign, args.repeat, args.rounds)
        encode_us = per_call_us(encode, args.repeat, args.rounds)
        verify_us = per_call_us(check, args.repeat, args.rounds)
        signs.append(sign_us)
        size = len(encode(signed).encode())
        print(f"| `{kind}` | {size} | {sign_us:.1f} µs | {encode_us:.1f} µs | {verify_us:.1f} µs |")
    print(f"\nmedian signature over the types: {statistics.median(signs):.1f} µs per message")
    print(f"python {sys.version.split()[0]}; command: {' '.join(sys.argv)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
