#!/usr/bin/env bash
# The README's second command: set up everything the tests need (system packages included),
# then lint, type-check and run the test suite. `--slow` also runs the long suites.
set -euo pipefail
cd "$(dirname "$0")/.."
marker="not slow"
args=()
for arg in "$@"; do
    case "$arg" in
        --slow) marker="" ;;
        *) args+=("$arg") ;;
    esac
done
bash scripts/setup.sh "dev" mosquitto mosquitto-clients socat chromium
. .venv/bin/activate
echo "== ruff" && ruff check .
echo "== mypy" && mypy
echo "== pytest"
if [ -n "$marker" ]; then
    python -m pytest -m "$marker" "${args[@]}"
else
    python -m pytest "${args[@]}"
fi
