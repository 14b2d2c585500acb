#!/usr/bin/env bash
# The README's second command: set up everything the tests need (system packages included),
# then lint, type-check and run the test suite. `--slow` also runs the long suites; `--quick`
# runs only the tests that need no service (pytest marker `quick`, given in tests/conftest.py)
# and installs nothing but a missing .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
marker="not slow"
quick=""
# The default suite runs in three pytest-xdist processes, one more than a small machine's two
# cores: much of a test's time is spent waiting on the real brokers, browsers and table
# processes it started. The quick tier only computes, so it runs in two. The long suites
# measure under load of their own, so they run one test at a time. TEST_WORKERS overrides each.
workers=3
args=()
for arg in "$@"; do
    case "$arg" in
        --slow) marker="" workers=1 ;;
        --quick) marker="quick" quick=1 workers=2 ;;
        *) args+=("$arg") ;;
    esac
done
workers="${TEST_WORKERS:-$workers}"
parallel=()
[ "$workers" -gt 1 ] && parallel=(-n "$workers")
# The fonts the screens' six languages are drawn with (the glyph tests check every character).
fonts=(fonts-dejavu-core fonts-noto-cjk fonts-thai-tlwg)
system=(mosquitto mosquitto-clients socat chromium systemd faketime postgresql "${fonts[@]}")
# npm only where no Node.js brings it already (a NodeSource nodejs conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || system+=(npm)
if [ -n "$quick" ]; then
    [ -x .venv/bin/python ] || bash scripts/setup.sh "dev"
else
    bash scripts/setup.sh "dev" "${system[@]}"
fi
. .venv/bin/activate
[ -n "$quick" ] || [ -f .cache/asyncapi/node_modules/@asyncapi/specs/package.json ] || npm install --silent --no-save --prefix .cache/asyncapi @asyncapi/specs@6.11.1
# The suite starts hundreds of Python processes (tables, workers, command lines): each reads
# the project's and the tests' bytecode rather than compiling them again (see scripts/setup.sh).
python -m compileall -q -j 0 table_controller drivers simulators tests bench >/dev/null
if [ -n "$quick" ]; then
    # Unless the arguments name tests, collect only the quick tier's folders (QUICK_PATHS in
    # tests/conftest.py): importing every other test module costs each worker seconds.
    named=""
    for arg in "${args[@]}"; do [ -e "${arg%%::*}" ] && named=1; done
    if [ -z "$named" ]; then
        mapfile -t folders < <(python -c 'from tests.conftest import QUICK_PATHS
print("\n".join(f"tests/{path}" for path in QUICK_PATHS))')
        args=("${folders[@]}" "${args[@]}")
    fi
fi
# pytest rewrites the asserts of every test module it imports, and caches the result as
# bytecode only where Python may write it: otherwise each worker rewrites them all again at
# every run, about ten seconds of CPU. One collection, on the core mypy leaves idle, caches them.
unset PYTHONDONTWRITEBYTECODE
python -m pytest --collect-only -q "${args[@]}" >/dev/null 2>&1 &
collecting=$!
echo "== ruff" && ruff check .
echo "== mypy" && mypy
wait "$collecting" || true  # a module that does not import fails the run below, with its error
echo "== pytest"
if [ -n "$marker" ]; then
    python -m pytest "${parallel[@]}" -m "$marker" "${args[@]}"
else
    python -m pytest "${parallel[@]}" "${args[@]}"
fi
