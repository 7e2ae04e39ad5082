#!/usr/bin/env bash
# Prints the path of strace, which the e2e tests that keep secrets off command lines run the runner and the
# repository's scripts under: it records the arguments of every program any of their descendants executes.
# When missing it is installed with apt-get as root (Debian's strace); otherwise the script fails with the
# command that installs it.
set -euo pipefail
if ! command -v strace >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "strace: installing Debian's strace" >&2
  bash "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh" strace
fi
command -v strace || { echo "strace is missing: install it (Debian: sudo apt-get install -y strace)" >&2; exit 1; }
