#!/usr/bin/env bash
# The test suite runs the PostgreSQL mode against a throwaway server cluster, so it needs the
# PostgreSQL server binaries (Debian's postgresql package). Installs them when missing and
# this user may; otherwise says what to install. TESSERA_TEST_DATABASE_URL skips the need.
set -euo pipefail
if [ -n "${TESSERA_TEST_DATABASE_URL:-}" ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing PostgreSQL server binaries for the tests (Debian package postgresql)…"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  exit 0
fi
echo "The tests need PostgreSQL server binaries: install Debian's 'postgresql' package" >&2
echo "(sudo apt-get install postgresql), or set TESSERA_TEST_DATABASE_URL to a database to use." >&2
exit 1
