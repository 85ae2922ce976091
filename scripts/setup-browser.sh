#!/usr/bin/env bash
# The browser the console's tests drive: Debian's chromium and chromium-driver (WebDriver), installed with
# apt when missing. Prints the two paths. Without root or apt it says so and exits 0: the browser tests
# then report themselves as skipped, naming this script.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  command -v chromium; command -v chromedriver
  exit 0
fi
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  { apt-get update -q -o DPkg::Lock::Timeout=300 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends -o DPkg::Lock::Timeout=300 chromium chromium-driver; } >/dev/null 2>&1 \
    || { echo "chromium could not be installed: the console's browser tests will be reported as skipped" >&2; exit 0; }
  command -v chromium; command -v chromedriver
else
  echo "chromium and chromium-driver are missing and cannot be installed here (needs root and apt):" \
       "the console's browser tests will be reported as skipped" >&2
fi
