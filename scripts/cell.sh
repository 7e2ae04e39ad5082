#!/usr/bin/env bash
# Runs the e2e scenarios of one test cell: a Node.js, an @pulumi/pulumi installed into the e2e project
# (the package's users' side of the peer dependency) and a Pulumi CLI. `npm test` is the default cell
# (Node 24, the active LTS, or the newer one on PATH; the @pulumi/pulumi of package-lock.json; the default CLI
# pin), with the e2e files test/cells.mts names; this script runs the others:
#
#   e2e       every other e2e file (vitest project e2e), on the default cell's Node, @pulumi/pulumi and CLI:
#             the long scenario chains, the cross-language SDK matrix, the release builds
#
# and, at the two ends of the support policy (docs/installation-configuration.md, "Supported versions"):
#
#   current   Node >= 26, the current line (scripts/node.sh); the newest @pulumi/pulumi on the npm registry and
#             the newest CLI on the Go module proxy (scripts/engine.sh current), both found when the cell runs
#   floor     the first Node.js release engines allows (22.19.0, of the oldest line still maintained); the
#             lowest @pulumi/pulumi of peerDependencies; the default CLI pin. The unit tests run on that Node too
#
# Node and the CLI are put first on PATH, so the test runner, the programs, the engine's dynamic provider
# processes and the component plugin all run on the cell's Node. Extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'cell: %s\n' "$*" >&2; }

cell=${1:-}
shift || true
# The cell names its CLI exactly; a binary chosen for other runs must not stand in for it.
unset PULUMI_REMOTE_BROWSER_PULUMI
# scripts/test.sh leaves the cell's Node on PATH (its default cell would put Node 24 first).
export PRB_CELL=$cell
case "$cell" in
  e2e)
    PATH=$(bash scripts/node.sh 24):$PATH
    export PRB_CLI=default
    # No list: every file of the e2e project.
    files=()
    ;;
  current)
    PATH=$(bash scripts/node.sh 26):$PATH
    # The newest release, asked of the registry at every run: a new @pulumi/pulumi is tested the first time the
    # cell runs after it is published, and an unreachable registry fails the cell instead of testing an older one.
    newest=$(npm view @pulumi/pulumi version 2>/dev/null) || newest=
    [[ $newest =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { log "current: cannot learn the newest @pulumi/pulumi from the npm registry ($(npm config get registry)): the cell tests the newest release and does not fall back"; exit 1; }
    log "current: newest @pulumi/pulumi on the npm registry: $newest"
    export PRB_CLI=current PRB_E2E_PULUMI_SDK=$newest
    files=(test/e2e/browser-session.test.ts test/e2e/component.test.ts test/e2e/pr-environment.test.ts test/e2e/yaml-cli.test.ts test/e2e/native-yaml.test.ts test/e2e/generated-sdks.test.ts test/e2e/runner-interrupt.test.ts)
    ;;
  floor)
    # The floor is the one peerDependencies states, so the range users are told is the range that runs.
    floor=$(node -p 'require("./package.json").peerDependencies["@pulumi/pulumi"].replace(/^[\^~>= ]+/, "")')
    # And the first Node.js release engines allows, exactly: a newer Node on PATH does not stand in for it.
    release=$(node -p 'require("./package.json").engines.node.replace(/^>=\s*/, "")')
    PATH=$(bash scripts/node.sh "=$release"):$PATH
    export PRB_CLI=default PRB_E2E_PULUMI_SDK=$floor
    files=(test/e2e/browser-session.test.ts test/e2e/component.test.ts test/e2e/yaml-cli.test.ts test/e2e/native-yaml.test.ts test/e2e/generated-sdks.test.ts test/e2e/runner-interrupt.test.ts)
    ;;
  *) log "usage: bash scripts/cell.sh e2e|current|floor [vitest arguments]"; exit 2 ;;
esac
export PATH
log "$cell: node $(node --version), @pulumi/pulumi ${PRB_E2E_PULUMI_SDK:-of package-lock.json}, CLI pin '$PRB_CLI'"
# The cell's e2e files are the e2e project's include (vitest.config.mts), not filters, so that the floor's unit
# tests run in the same invocation, beside the e2e files' waits (one after the other took 417 s, the
# e2e files alone most of it waiting on the engine).
export PRB_E2E_FILES="${files[*]}"
if [ "$cell" = floor ]; then
  # The unit tests run on the floor's Node as well (the default cell runs them on Node 24).
  exec bash scripts/test.sh --project unit --project e2e "$@"
fi
exec bash scripts/test.sh --project e2e "$@"
