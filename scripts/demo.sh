#!/usr/bin/env bash
# The README's first command: set up, then run the main job. Until the table demo lands
# (issue 8), the main job is the operator's view of every variant: exact odds and house edge.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "serial,mqtt,web,demo"
for variant in commission super_six lucky mini; do
    .venv/bin/table-controller odds --variant "$variant" "$@"
    echo
done
