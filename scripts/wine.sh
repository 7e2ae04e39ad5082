#!/usr/bin/env bash
# Prints the path of a command that runs a Windows executable under Wine, for the test that starts the
# release's Windows plugin (test/e2e/release-signatures.test.ts), as the release workflow's `start` job
# starts it on a Windows runner:
#
#   "$(bash scripts/wine.sh)" pulumi-resource-remote-browser.exe ARGS...
#
# Wine comes from Debian's packages (wine, wine64), installed with apt-get as root when missing
# (scripts/apt-install.sh); otherwise the script fails with the command that installs it. Two workarounds,
# both needed by Wine 8 with Node.js 22:
#   - a new prefix reports Windows 7, which Node.js refuses (exit 216): the prefix is set to Windows 10 once;
#   - Wine cannot hand Node.js a Unix pipe as stdout or stderr (EBADF in createWritableStdioStream): the
#     runner gives it files and relays them to its own stdout and stderr as they grow.
# The prefix is kept in ${XDG_CACHE_HOME:-~/.cache}/pulumi-remote-browser/wine/ and reused afterwards.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log() { printf 'wine: %s\n' "$*" >&2; }
loader() { for l in /usr/lib/wine/wine64 "$(command -v wine64 2>/dev/null || true)"; do [ -n "$l" ] && [ -x "$l" ] && { echo "$l"; return 0; }; done; return 1; }
if ! loader >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  log "installing Debian's wine and wine64"
  bash "$here/apt-install.sh" wine wine64
fi
wine=$(loader) || { log "Wine is missing: install it (Debian: sudo apt-get install -y --no-install-recommends wine wine64)"; exit 1; }
server=$(dirname "$wine")/wineserver
[ -x "$server" ] || server=$(command -v wineserver)

cache=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-remote-browser/wine
prefix=$cache/prefix
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # two runs starting at once make the prefix once
# Wine's own temporary files (its server's among them, from the prefix's creation on) go beside its prefix,
# never into the caller's TMPDIR: a test run's temporary folder must be empty when the run ends.
mkdir -p "$cache/tmp"
if [ ! -f "$cache/.win10" ]; then
  log "making a Wine prefix that reports Windows 10 ($prefix)"
  TMPDIR=$cache/tmp WINEPREFIX=$prefix WINEDEBUG=-all "$wine" winecfg -v win10 >&2
  TMPDIR=$cache/tmp WINEPREFIX=$prefix "$server" -w
  touch "$cache/.win10"
fi
cat > "$cache/run.next" <<RUN
#!/bin/sh
# Written by scripts/wine.sh: runs a Windows executable under Wine with stdout and stderr relayed from files.
exe=\$1; shift
mkdir -p '$cache/tmp'
export TMPDIR='$cache/tmp'
dir=\$(mktemp -d)
# The files exist before the tails below open them: the background job's redirections may come after
# them on a loaded machine, and a tail that finds no file gives up at once, relaying nothing.
: >"\$dir/out"
: >"\$dir/err"
WINEPREFIX='$prefix' WINEDEBUG=-all '$wine' "\$exe" "\$@" >"\$dir/out" 2>"\$dir/err" </dev/null &
pid=\$!
trap 'kill \$pid 2>/dev/null' TERM INT HUP
tail -n +1 -f --pid=\$pid "\$dir/out" &
tail -n +1 -f --pid=\$pid "\$dir/err" >&2 &
code=0
wait \$pid || code=\$?
# A signal ends the wait early: wait for the executable itself, then for Wine's server of the prefix.
while kill -0 \$pid 2>/dev/null; do sleep 0.1; done
wait
WINEPREFIX='$prefix' '$server' -w
rm -rf "\$dir"
exit \$code
RUN
chmod +x "$cache/run.next" && mv "$cache/run.next" "$cache/run"
echo "$cache/run"
