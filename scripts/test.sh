#!/usr/bin/env bash
# The README's second command: installs what is missing, then runs every test -- unit, emulator, client,
# provider, SDK and the e2e tests under the real Pulumi engine (and the YAML example under the real YAML
# language host) -- and ends with one summary line.
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
# Every Node process of the run -- the runner of each engine run, the engine's dynamic provider processes,
# the plugins, the test workers, several hundred in all -- loads @pulumi/pulumi, and compiling its modules
# (TypeScript's compiler alone is 9 MB) was about 0.35 s of CPU each. Node's compile cache (Node >= 22.1;
# older ones ignore the variable) keeps the compiled code for the processes after the first. The folder is
# the run's own, cleared first: a code cache is code the processes trust, so it is neither shared with other
# users (as one in /tmp would be) nor carried over from another run.
export NODE_COMPILE_CACHE="$PWD/.work/node-compile-cache"
rm -rf "$NODE_COMPILE_CACHE"
mkdir -p -m 700 "$NODE_COMPILE_CACHE"
# The suite starts the Go programs (the CLI, the YAML host) about a thousand times, each for well under a
# second, and a good part of their CPU went to garbage collection that a process this short never needs.
# The collector stays off until a process's heap reaches 256 MiB. Set after the builds above, which need it.
export GOGC="${GOGC:-off}" GOMEMLIMIT="${GOMEMLIMIT:-256MiB}"
mkdir -p .work
# Each cell keeps its own report and log (the floor cell runs this script twice: unit, then e2e), so a later
# cell does not overwrite what an earlier one found.
name=${PRB_CELL:-default}
case " $* " in *" --project unit "*) name+=-unit ;; *" --project e2e "*) name+=-e2e ;; esac
report=.work/vitest-report-$name.json
log=.work/vitest-$name.log
failures=.work/failures-$name.txt
profile=.work/profile-$name
rm -rf "$report" "$failures" "$profile"
# Each test file writes where its time went (test/profile-setup.ts); the summary prints it for the slowest.
export PRB_PROFILE_DIR="$PWD/$profile"
# vitest's output goes through tee; keep its colours when a person is watching.
[ -t 1 ] && export FORCE_COLOR=1
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" 2>&1 | tee "$log"
code=${PIPESTATUS[0]}
set -e
node scripts/test-summary.js "$report" "$log" "$code" "$failures" "$profile"
exit $code
