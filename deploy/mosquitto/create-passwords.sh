#!/usr/bin/env bash
# Create or replace broker logins in a mosquitto password file, with new random passwords.
#
#   create-passwords.sh PASSWORD_FILE LOGIN...
#   e.g. create-passwords.sh /etc/mosquitto/passwd T07 T08 backend monitor pit
#
# For each LOGIN (a table's login is its table id) it makes a random 128-bit password, stores
# only its hash (mosquitto_passwd -U: PBKDF2-SHA512), replacing that login's old entry and
# keeping the others, and prints "LOGIN PASSWORD" once on stdout: hand each to its owner
# (a table's goes into its table.env) and do not keep the printout. Passwords never appear
# on a command line. Then `systemctl reload mosquitto`.
set -euo pipefail

usage() { echo "usage: $0 PASSWORD_FILE LOGIN..." >&2; exit 2; }
[ $# -ge 2 ] || usage
passwd_file=$1
shift
command -v mosquitto_passwd >/dev/null || { echo "$0: mosquitto_passwd not found (apt-get install mosquitto)" >&2; exit 1; }

declare -A seen=()
for login in "$@"; do
    # Safe as a topic level (%u in the ACL), in a URL's user part, and in the password file.
    if ! [[ $login =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$ ]]; then
        echo "$0: login '$login': use letters, digits, _ . - (64 at most, not starting with _ . -)" >&2
        exit 2
    fi
    [ -z "${seen[$login]:-}" ] || { echo "$0: login '$login' given twice" >&2; exit 2; }
    seen[$login]=1
done

umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# URL-safe characters only: the password goes into mqtts://login:password@host URLs as is.
new_password() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

: > "$work/plain"
: > "$work/printout"
for login in "$@"; do
    password=$(new_password)
    printf '%s:%s\n' "$login" "$password" >> "$work/plain"
    printf '%s %s\n' "$login" "$password" >> "$work/printout"
done
mosquitto_passwd -U "$work/plain" >/dev/null

# Keep the other logins' entries, drop the replaced ones, then add the new hashes.
: > "$work/merged"
if [ -f "$passwd_file" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
        [ -n "$line" ] || continue
        [ -n "${seen[${line%%:*}]:-}" ] || printf '%s\n' "$line" >> "$work/merged"
    done < "$passwd_file"
fi
cat "$work/plain" >> "$work/merged"

# mosquitto reads the file as user mosquitto: group mosquitto, mode 0640, where it exists.
if [ "$(id -u)" -eq 0 ] && getent group mosquitto >/dev/null; then
    chgrp mosquitto "$work/merged"
    chmod 0640 "$work/merged"
else
    chmod 0600 "$work/merged"
fi
mv -f "$work/merged" "$passwd_file.new"
mv -f "$passwd_file.new" "$passwd_file"
cat "$work/printout"
