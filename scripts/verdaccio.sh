#!/usr/bin/env bash
# Verdaccio, the npm registry the release rehearsal publishes the npm tarballs to and installs them from
# (test/hosts/rehearsal.test.ts), installed once from the npm registry and reused: it lives in
# ${XDG_CACHE_HOME:-~/.cache}/pulumi-remote-browser/verdaccio/<version>/, outside the repository, and the
# path of its executable is printed on stdout. Run with the Node.js that will run it first on PATH.
#
# 6.8.0 with node-fetch pinned to 2.7.0 is the combination checked to install here: one of its dependencies
# asks for a node-fetch dist-tag "cjs" that the registry does not have (npm fails with ETARGET).
set -euo pipefail
log() { printf 'verdaccio: %s\n' "$*" >&2; }
VERSION=6.8.0
dir=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-remote-browser/verdaccio/$VERSION
mkdir -p "$dir"
exec 9>"$dir.lock"
flock 9 # one install at a time; a parallel caller waits and then reuses it
if [ ! -f "$dir/.complete" ]; then
  log "installing verdaccio $VERSION into $dir"
  find "$dir" -mindepth 1 -delete
  printf '{"name":"prb-verdaccio","private":true,"dependencies":{"verdaccio":"%s"},"overrides":{"node-fetch":"2.7.0"}}\n' "$VERSION" >"$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --prefer-offline --loglevel=error >&2)
  touch "$dir/.complete"
fi
echo "$dir/node_modules/.bin/verdaccio"
