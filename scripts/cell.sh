#!/usr/bin/env bash
# Runs the e2e scenarios of one test cell: a Node.js, an @pulumi/pulumi installed into the e2e project
# (the package's users' side of the peer dependency) and a Pulumi CLI. `npm test` is the default cell
# (Node 22 or the newer one on PATH, the @pulumi/pulumi of package-lock.json, the default CLI pin); this script
# runs the others:
#
#   current   Node >= 24 (scripts/node.sh), the newest @pulumi/pulumi, the newest CLI (scripts/engine.sh current)
#   floor     the Node on PATH, the lowest @pulumi/pulumi of peerDependencies, the default CLI pin; the unit
#             tests run on that Node too
#
# Node and the CLI are put first on PATH, so the test runner, the programs, the engine's dynamic provider
# processes and the component plugin all run on the cell's Node. Extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'cell: %s\n' "$*" >&2; }

# The newest @pulumi/pulumi the project is tested with; moved by hand after a run of this cell.
CURRENT_SDK=3.270.0

cell=${1:-}
shift || true
# The cell names its CLI exactly; a binary chosen for other runs must not stand in for it.
unset PULUMI_REMOTE_BROWSER_PULUMI
# scripts/test.sh leaves the cell's Node on PATH (its default cell would put Node 22 first).
export PRB_CELL=$cell
case "$cell" in
  current)
    PATH=$(bash scripts/node.sh 24):$PATH
    export PRB_CLI=current PRB_E2E_PULUMI_SDK=$CURRENT_SDK
    files=(test/e2e/browser-session.test.ts test/e2e/component.test.ts test/e2e/pr-environment.test.ts test/e2e/yaml-cli.test.ts test/e2e/native-yaml.test.ts test/e2e/generated-sdks.test.ts test/e2e/runner-interrupt.test.ts)
    ;;
  floor)
    # The floor is the one peerDependencies states, so the range users are told is the range that runs.
    floor=$(node -p 'require("./package.json").peerDependencies["@pulumi/pulumi"].replace(/^[\^~>= ]+/, "")')
    export PRB_CLI=default PRB_E2E_PULUMI_SDK=$floor
    files=(test/e2e/browser-session.test.ts test/e2e/component.test.ts test/e2e/yaml-cli.test.ts test/e2e/native-yaml.test.ts test/e2e/generated-sdks.test.ts test/e2e/runner-interrupt.test.ts)
    ;;
  *) log "usage: bash scripts/cell.sh current|floor [vitest arguments]"; exit 2 ;;
esac
export PATH
log "$cell: node $(node --version), @pulumi/pulumi $PRB_E2E_PULUMI_SDK, CLI pin '$PRB_CLI'"
if [ "$cell" = floor ]; then
  # The floor's Node is the machine's, the oldest the package supports where that is Node 20: the unit tests
  # run on it as well (the default cell runs them on Node 22).
  unit=0
  bash scripts/test.sh --project unit "$@" || unit=$?
  bash scripts/test.sh --project e2e "${files[@]}" "$@" || exit $?
  exit $unit
fi
exec bash scripts/test.sh --project e2e "${files[@]}" "$@"
