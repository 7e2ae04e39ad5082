#!/usr/bin/env bash
# A Python virtualenv with the given pip requirements, built once and reused: it lives in
# ${XDG_CACHE_HOME:-~/.cache}/pulumi-remote-browser/python/<hash of the interpreter and the requirements>,
# outside the repository, and its path is printed on stdout.
#
#   scripts/python-venv.sh 'pulumi==3.248.0' parver semver
#
# When the interpreter has no venv module (Debian's python3 without python3-venv), the package is installed
# with apt-get as root; otherwise the script fails with the command that installs it.
set -euo pipefail
log() { printf 'python-venv: %s\n' "$*" >&2; }
[ $# -gt 0 ] || { echo "usage: scripts/python-venv.sh REQUIREMENT..." >&2; exit 2; }

command -v python3 >/dev/null 2>&1 || {
  log "python3 is missing: install it (Debian: apt-get install -y python3 python3-venv)"; exit 1; }
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  pkg="python3-venv"
  minor=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian's $pkg (python3 has no venv module)"
    apt=$(dirname "${BASH_SOURCE[0]}")/apt-install.sh
    bash "$apt" "$pkg" || bash "$apt" "python$minor-venv"
  fi
  python3 -c 'import venv, ensurepip' 2>/dev/null || {
    log "python3 ($(command -v python3)) has no venv module: install it (Debian: sudo apt-get install -y $pkg, or python$minor-venv)"
    exit 1
  }
fi

key=$( { python3 -c 'import sys; print(sys.version)'; printf '%s\n' "$@" | sort; } | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-remote-browser/python
venv=$cache/venv-$key
mkdir -p "$cache"
exec 9>"$cache/.lock-$key"
flock 9 # one build at a time; a parallel caller waits and then reuses it
# A venv names its own folder in its scripts, so it is built in place; the marker says the build finished.
if [ ! -f "$venv/.complete" ]; then
  log "building $venv ($*)"
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >&2 || { rm -rf "$venv"; exit 1; }
  touch "$venv/.complete"
fi
echo "$venv"
