#!/usr/bin/env bash
# The test suite runs real servers on loopback ports: a throwaway PostgreSQL cluster (the
# PostgreSQL mode and the pipelines' database connector) and redis-server (the Redis Streams
# connector); the chart embed page is tested in headless Chromium. Installs Debian's packages
# when missing and this user may; otherwise says what to install. TESSERA_TEST_DATABASE_URL
# replaces the PostgreSQL cluster, CHROMIUM_PATH the Debian browser.
set -euo pipefail
missing=()
if [ -z "${TESSERA_TEST_DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  missing+=(postgresql)
fi
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ] && [ ! -x /usr/bin/chromium-browser ]; then
  missing+=(chromium)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing test servers (Debian packages: ${missing[*]})…"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "The tests need Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]})." >&2
exit 1
