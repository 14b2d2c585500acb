#!/usr/bin/env bash
# Prepares a fresh Debian machine: system packages (as root, or with sudo), then the project's
# virtual environment in .venv with the extras named in $1 (default: the runtime extras).
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-serial,mqtt,web,demo}"
shift || true
packages=("$@")

apt_install() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing system packages: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

if command -v apt-get >/dev/null 2>&1; then
    python3 -m venv --help >/dev/null 2>&1 && python3 -c "import ensurepip" 2>/dev/null || packages+=(python3-venv)
    apt_install "${packages[@]}"
fi

python3 - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"table-controller needs Python 3.11 or newer; this is {sys.version.split()[0]}")
PY

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[${extras}]"
# An editable install compiles none of the project's modules. Compile them once here, so that
# every process started from this tree reads bytecode instead of compiling each module at
# start-up (Python reads bytecode that is there even where PYTHONDONTWRITEBYTECODE is set).
.venv/bin/python -m compileall -q -j 0 table_controller drivers simulators >/dev/null
