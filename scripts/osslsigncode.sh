#!/usr/bin/env bash
# Prints the path of osslsigncode (Authenticode signatures of Windows executables), which the release's
# test reads the Windows executable's signature with. When missing it is installed with apt-get as root
# (Debian's osslsigncode); otherwise the script fails with the command that installs it.
set -euo pipefail
if ! command -v osslsigncode >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "osslsigncode: installing Debian's osslsigncode" >&2
  bash "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh" osslsigncode
fi
command -v osslsigncode || { echo "osslsigncode is missing: install it (Debian: sudo apt-get install -y osslsigncode)" >&2; exit 1; }
