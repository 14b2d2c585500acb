# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``python -m fuzz TARGET [libFuzzer flags]``: run one atheris harness.

Test tooling, not shipped. Needs ``pip install atheris`` (not a project dependency). Examples::

    python -m fuzz srp -runs=1000000
    python -m fuzz command -max_total_time=600 corpus/command

Targets: srp, textline, command, record, variant_file, settings (see ``fuzz/targets.py``).
A crash is an exception other than the target's own error type, or a broken oracle (an
``AssertionError``); libFuzzer then writes the input to ``crash-*`` and stops.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Pick the target named by the first argument and hand the rest to libFuzzer."""
    import atheris  # type: ignore[import-untyped,import-not-found,unused-ignore]  # noqa: PLC0415

    with atheris.instrument_imports():
        import drivers.srp.codec  # noqa: PLC0415
        import drivers.srp.host  # noqa: PLC0415
        import drivers.textline  # noqa: F401, PLC0415
        import table_controller.ingress.parsing  # noqa: PLC0415
        import table_controller.procedure.records  # noqa: PLC0415
        import table_controller.runtime.config  # noqa: PLC0415
        import table_controller.variant_file  # noqa: F401, PLC0415
    from fuzz.targets import TARGETS  # noqa: PLC0415

    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: python -m fuzz {{{','.join(TARGETS)}}} [libFuzzer flags]")
    target = TARGETS[sys.argv[1]]
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
