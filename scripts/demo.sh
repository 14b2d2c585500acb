#!/usr/bin/env bash
# The README's first command: set up, then run a whole table on this machine: the
# virtual shoe, the table service, an MQTT broker (mosquitto), the dealer's display (its URL is
# printed), an automatic dealer and pit, and the results as a backend receives them.
# Flags go on to `table-controller demo` (e.g. --speed 5, --rounds 20, --display 127.0.0.1:8081).
# Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
# The demo's broker, and the fonts of the screens' languages: Latin and Vietnamese, Chinese and
# Korean, Thai.
bash scripts/setup.sh "demo" mosquitto fonts-dejavu-core fonts-noto-cjk fonts-thai-tlwg
exec .venv/bin/table-controller demo "$@"
