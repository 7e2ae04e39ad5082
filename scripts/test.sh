#!/usr/bin/env bash
# The README's second command: installs what is missing, then runs every test -- unit, emulator, client,
# provider, SDK and the e2e tests under the real Pulumi engine (and the YAML example under the real YAML
# language host) -- and ends with one summary line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PREPARE_LANGUAGE_YAML=1 source scripts/prepare.sh
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
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`\nvitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
  ' "$PWD/$report"
fi
exit $code
