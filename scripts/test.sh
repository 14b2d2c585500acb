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
# The fonts the screens' six languages are drawn with (the glyph tests check every character).
fonts=(fonts-dejavu-core fonts-noto-cjk fonts-thai-tlwg)
system=(mosquitto mosquitto-clients socat chromium systemd faketime postgresql "${fonts[@]}")
# npm only where no Node.js brings it already (a NodeSource nodejs conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || system+=(npm)
bash scripts/setup.sh "dev" "${system[@]}"
. .venv/bin/activate
[ -f .cache/asyncapi/node_modules/@asyncapi/specs/package.json ] || npm install --silent --no-save --prefix .cache/asyncapi @asyncapi/specs@6.11.1
echo "== ruff" && ruff check .
echo "== mypy" && mypy
echo "== pytest"
if [ -n "$marker" ]; then
    python -m pytest -m "$marker" "${args[@]}"
else
    python -m pytest "${args[@]}"
fi
