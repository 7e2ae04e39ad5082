#!/usr/bin/env bash
# Provides the Pulumi CLI the project runs under, and prints the absolute path of its `pulumi` binary.
#
#   bash scripts/engine.sh            the default pin (engine/go.mod: the CLI every test cell but one uses)
#   bash scripts/engine.sh current    the newest CLI the Go module proxy serves, found when this runs: printed,
#                                     and built from engine/current/go.mod moved to that version (a failure to
#                                     learn or fetch it fails the run: the cell exists to test the newest)
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
pin=${1:-default}
case "$pin" in
  default) module=$here/engine ;;
  current) module=$here/engine/current ;;
  *) log "unknown CLI pin '$pin' (expected: default or current)"; exit 2 ;;
esac
PINNED=$(sed -nE 's#^[[:space:]]*(require[[:space:]]+)?github.com/pulumi/pulumi/pkg/v3 v([0-9.]+)$#\2#p' "$module/go.mod")
[ -n "$PINNED" ] || { log "$module/go.mod does not require github.com/pulumi/pulumi/pkg/v3"; exit 1; }
if [ "$pin" = current ]; then
  # The newest release on the proxy, not the version last committed: a new Pulumi release is tested the first
  # time the cell runs after it. Pre-releases are skipped (the proxy lists them; users are not on them).
  proxy=$(GOFLAGS=-mod=mod go env GOPROXY 2>/dev/null | cut -d, -f1)
  newest=$(cd "$module" && GOFLAGS=-mod=mod go list -m -versions github.com/pulumi/pulumi/pkg/v3 2>/dev/null \
    | tr ' ' '\n' | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sed 's/^v//' | sort -V | tail -n1) || true
  [ -n "$newest" ] || { log "cannot learn the newest Pulumi CLI from the Go module proxy (${proxy:-unset}): the current cell tests the newest release and does not fall back to $PINNED"; exit 1; }
  log "newest Pulumi CLI on the Go module proxy: $newest (engine/current/go.mod records $PINNED)"
  PINNED=$newest
fi

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

# The CLI is the module proxy's sources of the release, built with its password-strength dictionaries
# loaded at first use rather than at every start (scripts/lazy-dictionaries.js says why and what changes).
BUILD_RECIPE="lazy-dictionaries $(cksum < "$here/scripts/lazy-dictionaries.js" | cut -d' ' -f1)"
if built_as "$bin" "$PINNED"; then
  [ -x "$cache/bin/pulumi-resource-pulumi-nodejs" ] || bundle_plugin
  log "using cached pulumi $PINNED ($bin)"
  echo "$bin"; exit 0
fi

# What the build needs beside the cache and no longer after it: a moved copy of the wrapper (below) and the
# lazily loading dictionary modules.
mkdir -p "$cache"
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "$pin" = current ] && ! grep -qE "github.com/pulumi/pulumi/pkg/v3 v$PINNED\$" "$module/go.mod"; then
  # The committed wrapper moved to the newest release in a copy beside the cache; the checksum database does
  # not answer for these versions here, so that copy's go.sum is written from what the proxy served.
  copy=$work/module
  mkdir "$copy"
  cp "$module/go.mod" "$module/go.sum" "$module/tools.go" "$copy/"
  ( cd "$copy" && GOFLAGS=-mod=mod GOSUMDB=off go get "github.com/pulumi/pulumi/pkg/v3@v$PINNED" "github.com/pulumi/pulumi/sdk/v3@v$PINNED" >&2 \
    && GOFLAGS=-mod=mod GOSUMDB=off go mod tidy >&2 ) \
    || { log "cannot fetch Pulumi $PINNED from the Go module proxy (${proxy:-unset}): the current cell does not fall back to an older CLI"; exit 1; }
  module=$copy
fi
modfile=$(node "$here/scripts/lazy-dictionaries.js" "$module" "$work/lazy") || { log "cannot prepare the CLI's sources (scripts/lazy-dictionaries.js)"; exit 1; }
build_pinned pulumi "$PINNED" "$bin" "$module" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi ${modfile:+-modfile="$modfile"} \
  -tags osusergo,grpcnotrace -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PINNED"
bundle_plugin
echo "$bin"
