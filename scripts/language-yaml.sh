#!/usr/bin/env bash
# Provides the Pulumi YAML language host (pulumi-language-yaml) that the YAML example runs under, and prints
# the absolute path of its binary. The engine finds a language host on PATH, so callers put its folder there.
#
#   1. PULUMI_REMOTE_BROWSER_LANGUAGE_YAML=/path/to/pulumi-language-yaml   use exactly that binary
#   2. a `pulumi-language-yaml` on PATH built as the pinned version
#   3. otherwise the pinned host built from the Go module proxy into a cache outside the repository
#      (${XDG_CACHE_HOME:-~/.cache}/pulumi-remote-browser/language-yaml/v<version>/bin/pulumi-language-yaml)
#      and reused afterwards.
#
# It is built from its own module (language-yaml/), not beside the CLI in engine/: pulumi-yaml pins its own
# Pulumi SDK and does not compile against the CLI's. language-yaml/go.sum pins every module, so later builds
# verify against it. Nothing here reads or writes ~/.pulumi.
set -euo pipefail

PINNED=1.32.0
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'language-yaml: %s\n' "$*" >&2; }

# The host has no --version flag (run bare, it starts serving). Go writes the version of the module it was
# built from into the binary's build information, as plain text (what `go version -m` prints).
version_of() {
  LC_ALL=C grep -aoE $'mod\tgithub\\.com/pulumi/pulumi-yaml\tv[0-9]+\\.[0-9]+\\.[0-9]+[^[:space:]]*' "$1" 2>/dev/null |
    head -n1 | sed -E 's/.*\tv//; s/[-+].*$//' || true
}

if [ -n "${PULUMI_REMOTE_BROWSER_LANGUAGE_YAML:-}" ]; then
  [ -x "$PULUMI_REMOTE_BROWSER_LANGUAGE_YAML" ] || { log "PULUMI_REMOTE_BROWSER_LANGUAGE_YAML=$PULUMI_REMOTE_BROWSER_LANGUAGE_YAML is not an executable"; exit 1; }
  echo "$PULUMI_REMOTE_BROWSER_LANGUAGE_YAML"; exit 0
fi

if existing=$(command -v pulumi-language-yaml 2>/dev/null); then
  v=$(version_of "$existing")
  if [ "$v" = "$PINNED" ]; then
    log "using pulumi-language-yaml $v from PATH ($existing)"
    echo "$existing"; exit 0
  fi
  log "ignoring pulumi-language-yaml ${v:-of unknown version} on PATH (need $PINNED)"
fi

cache=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-remote-browser/language-yaml/v$PINNED
bin=$cache/bin/pulumi-language-yaml

if [ -x "$bin" ] && [ "$(version_of "$bin")" = "$PINNED" ]; then
  log "using cached pulumi-language-yaml $PINNED ($bin)"
  echo "$bin"; exit 0
fi

source "$here/scripts/go-build.sh"
# The same version stamp as the project's release builds (.goreleaser.yml): the engine reads it back
# through GetPluginInfo.
build_pinned pulumi-language-yaml "$PINNED" "$bin" "$here/language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml \
  -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$PINNED"
echo "$bin"
