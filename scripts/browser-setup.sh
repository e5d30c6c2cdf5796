#!/usr/bin/env bash
# Installs what the browser test needs: Debian's chromium, and playwright-core (the driver
# library only, no browser download) in tests/browser/node_modules. Idempotent: quick when
# both are there already. Any failure is an error: the browser test must not pass without a
# browser.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

if ! [ -x "$CHROMIUM" ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
"$CHROMIUM" --version >/dev/null 2>&1 || { echo "browser-setup: $CHROMIUM does not run" >&2; exit 1; }

cd "$ROOT/tests/browser"
if ! [ -f node_modules/playwright-core/package.json ]; then
  # package-lock.json pins the version; playwright-core never downloads a browser.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent
fi
echo "browser-setup: $("$CHROMIUM" --version 2>/dev/null), playwright-core $(node -p 'require("playwright-core/package.json").version')"
