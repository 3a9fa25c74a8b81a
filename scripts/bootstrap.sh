#!/usr/bin/env bash
# Set up everything on a fresh machine: a virtual environment in .venv with the project
# installed. With --test, also the test and lint tools and the browser the site tests drive
# (Debian's chromium and chromium-driver; nothing is downloaded by a test tool) and Grafana's
# LogQL grammar from npm for the LogQL check.
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
  echo "bootstrap: Python >= 3.10 is required ($python is $("$python" --version 2>&1))" >&2
  exit 2
fi

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
if [ "$want_test" = 1 ]; then
  .venv/bin/python -m pip install --quiet -e '.[dev]'
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      echo "bootstrap: installing chromium, chromium-driver and CJK fonts for the browser tests" >&2
      apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-noto-cjk >/dev/null
    else
      echo "bootstrap: chromium/chromedriver missing and cannot be installed here;" \
           "the browser test will fail. Install Debian's chromium and chromium-driver." >&2
    fi
  fi
  # Grafana's LogQL grammar, which tests/kb/export/test_logql_parses.py parses exports with
  if command -v npm >/dev/null; then
    npm ci --prefix tests/tools/logql --no-audit --no-fund --silent >/dev/null 2>&1 ||
      echo "bootstrap: npm ci in tests/tools/logql failed; the LogQL check will fail" >&2
  else
    echo "bootstrap: npm is missing; the LogQL check will fail. Install Node.js and npm." >&2
  fi
else
  .venv/bin/python -m pip install --quiet -e .
fi
# Byte-compile now: where PYTHONDONTWRITEBYTECODE is set (CI images often set it) every run of
# `kb` would otherwise recompile its modules from source, a third of its start-up time.
.venv/bin/python -m compileall -q kb dsl >/dev/null
