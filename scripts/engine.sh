#!/usr/bin/env bash
# Provides the Pulumi CLI the project runs under, and prints the absolute path of its `pulumi` binary.
#
#   bash scripts/engine.sh            the default pin (engine/go.mod: the CLI every test cell but one uses)
#   bash scripts/engine.sh current    the newest CLI the project is tested with (engine/current/go.mod)
#
#   1. PULUMI_REMOTE_BROWSER_PULUMI=/path/to/pulumi   use exactly that binary
#   2. a `pulumi` on PATH whose version is at least the pinned one
#   3. otherwise the pinned CLI built from the Go module proxy into a cache outside the repository
#      (${XDG_CACHE_HOME:-~/.cache}/pulumi-remote-browser/engine/v<version>/bin/pulumi) and reused afterwards.
#
# The CLI is built rather than downloaded because only package registries are reachable from the machines
# this project is developed and tested on. Each wrapper module's go.sum pins every module, so builds verify
# against it. The version is read from the wrapper's go.mod, so the pin lives in one place.
# Nothing here reads or writes ~/.pulumi.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'engine: %s\n' "$*" >&2; }
case "${1:-default}" in
  default) module=$here/engine ;;
  current) module=$here/engine/current ;;
  *) log "unknown CLI pin '$1' (expected: default or current)"; exit 2 ;;
esac
PINNED=$(sed -nE 's#^[[:space:]]*(require[[:space:]]+)?github.com/pulumi/pulumi/pkg/v3 v([0-9.]+)$#\2#p' "$module/go.mod")
[ -n "$PINNED" ] || { log "$module/go.mod does not require github.com/pulumi/pulumi/pkg/v3"; exit 1; }

# In a throwaway PULUMI_HOME: newer CLIs write a log of every command, `version` included, into its logs/.
version_of() {
  local home
  home=$(mktemp -d)
  PULUMI_HOME=$home "$1" version 2>/dev/null | sed -E 's/^v//; s/[-+].*$//' || true
  rm -rf "$home"
}
source "$here/scripts/go-build.sh"

if [ -n "${PULUMI_REMOTE_BROWSER_PULUMI:-}" ]; then
  [ -x "$PULUMI_REMOTE_BROWSER_PULUMI" ] || { log "PULUMI_REMOTE_BROWSER_PULUMI=$PULUMI_REMOTE_BROWSER_PULUMI is not an executable"; exit 1; }
  echo "$PULUMI_REMOTE_BROWSER_PULUMI"; exit 0
fi

if existing=$(command -v pulumi 2>/dev/null); then
  v=$(version_of "$existing")
  if [ -n "$v" ] && at_least "$v" "$PINNED"; then
    log "using pulumi $v from PATH ($existing)"
    echo "$existing"; exit 0
  fi
  log "ignoring pulumi ${v:-of unknown version} on PATH (need >= $PINNED)"
fi

cache=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-remote-browser/engine/v$PINNED
bin=$cache/bin/pulumi

# The engine looks for its bundled dynamic provider plugin next to its own binary (a full install ships
# it there). Ours lives in @pulumi/pulumi, resolved from the folder the engine runs the program in.
bundle_plugin() {
  cat > "$cache/bin/pulumi-resource-pulumi-nodejs" <<'SHIM'
#!/bin/sh
script=$(node -e "console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))") || exit 1
exec node "$script" "$@"
SHIM
  chmod +x "$cache/bin/pulumi-resource-pulumi-nodejs"
}

if [ -x "$bin" ] && [ "$(version_of "$bin")" = "$PINNED" ]; then
  [ -x "$cache/bin/pulumi-resource-pulumi-nodejs" ] || bundle_plugin
  log "using cached pulumi $PINNED ($bin)"
  echo "$bin"; exit 0
fi

build_pinned pulumi "$PINNED" "$bin" "$module" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi \
  -tags osusergo,grpcnotrace -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PINNED"
bundle_plugin
echo "$bin"
