#!/usr/bin/env bash
# The README's second command: installs what is missing, then runs every test -- unit, emulator, client,
# provider, SDK and the e2e tests under the real Pulumi engine (and the YAML example under the real YAML
# language host) -- and ends with one summary line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PREPARE_LANGUAGE_YAML=1 source scripts/prepare.sh
# The suite starts the Go programs (the CLI, the YAML host) about a thousand times, each for well under a
# second, and a good part of their CPU went to garbage collection that a process this short never needs.
# The collector stays off until a process's heap reaches 256 MiB. Set after the builds above, which need it.
export GOGC="${GOGC:-off}" GOMEMLIMIT="${GOMEMLIMIT:-256MiB}"
mkdir -p .work
report=.work/vitest-report.json
rm -f "$report"
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@"
code=$?
set -e
if [ -f "$report" ]; then
  node -e '
    const r = require(process.argv[1]);
    const root = process.argv[2] + "/";
    const files = r.testResults
      .map((f) => ({ name: f.name.replace(root, ""), s: (f.endTime - f.startTime) / 1000 }))
      .sort((a, b) => b.s - a.s);
    console.log("\nslowest files (wall time, files run in parallel):");
    for (const f of files.slice(0, 10)) console.log(`  ${f.s.toFixed(1).padStart(7)} s  ${f.name}`);
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`\nvitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
  ' "$PWD/$report" "$PWD"
fi
exit $code
