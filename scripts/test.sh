#!/usr/bin/env bash
# `npm test`, the contributor's loop: installs what is missing, then runs the unit project (unit, emulator,
# client, provider, SDK, docs, architecture) and the e2e files test/cells.mts names, under the real Pulumi
# engine, and ends with one summary line. The other e2e files are the e2e cell's (scripts/cell.sh e2e);
# `.ci/run` runs every cell. A cell passes its own `--project` (and files); without one this runs npm test's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The default cell runs on Node.js 24, the active LTS line, where most users are (the machine's own Node may
# be older; scripts/node.sh fetches 24 then). A test cell (scripts/cell.sh) has put its own Node first on
# PATH already: the current line (26) and the oldest supported one (22).
if [ -z "${PRB_CELL:-}" ]; then
  PATH=$(bash scripts/node.sh 24):$PATH
  export PATH
fi
PREPARE_LANGUAGE_YAML=1 source scripts/prepare.sh
# The static checks before any test, when `npm test` runs whole (CI's default cell): the lint
# (eslint.config.mjs), the format (Prettier) and the type check of the tests, their configs, the benchmarks
# and the scripts (tsconfig.test.json; the build checked the package). Not for a file named on the command
# line, the loop of one test, nor in the other cells, which run the same tree after this one in CI.
if [ -z "${PRB_CELL:-}" ] && [ $# -eq 0 ]; then
  npm run -s check
fi
# Every Node process of the run -- the runner of each engine run, the engine's dynamic provider processes,
# the plugins, the test workers, several hundred in all -- loads @pulumi/pulumi, and compiling its modules
# (TypeScript's compiler alone is 9 MB) was about 0.35 s of CPU each. Node's compile cache (Node >= 22.1;
# older ones ignore the variable) keeps the compiled code for the processes after the first. The folder is
# the run's own, cleared first: a code cache is code the processes trust, so it is neither shared with other
# users (as one in /tmp would be) nor carried over from another run.
# Each cell has its own (.ci/run runs two at once), as it has its own report, log and profile below, so that
# one cell does not clear or overwrite what another has.
name=${PRB_CELL:-default}
export NODE_COMPILE_CACHE="$PWD/.work/node-compile-cache-$name"
rm -rf "$NODE_COMPILE_CACHE"
mkdir -p -m 700 "$NODE_COMPILE_CACHE"
# The suite starts the Go programs (the CLI, the YAML host) about a thousand times, each for well under a
# second, and a good part of their CPU went to garbage collection that a process this short never needs.
# The collector stays off until a process's heap reaches 256 MiB. Set after the builds above, which need it.
export GOGC="${GOGC:-off}" GOMEMLIMIT="${GOMEMLIMIT:-256MiB}"
mkdir -p .work
report=.work/vitest-report-$name.json
log=.work/vitest-$name.log
failures=.work/failures-$name.txt
profile=.work/profile-$name
rm -rf "$report" "$failures" "$profile"
# Each test file writes where its time went (test/profile-setup.ts); the summary prints it for the slowest.
export PRB_PROFILE_DIR="$PWD/$profile"
# vitest's output goes through tee; keep its colours when a person is watching.
[ -t 1 ] && export FORCE_COLOR=1
# npm test's projects, unless the caller names its own (a cell) or another config (the hosts cell).
[[ " $* " == *" --project "* || " $* " == *" --config "* ]] || set -- --project unit --project e2e-core "$@"
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" 2>&1 | tee "$log"
code=${PIPESTATUS[0]}
set -e
node scripts/test-summary.js "$report" "$log" "$code" "$failures" "$profile"
exit $code
