#!/usr/bin/env bash
# Reproduces RELIABILITY.md: the fault campaign, the bad-input table, secrets under verbose logs,
# crash safety, stacks sharing an account, a wave of WAVE_STACKS (default 12) pull-request stacks on a
# PostgreSQL backend and a running limit of WAVE_LIMIT (default 4), and a soak of RELIABILITY_SOAK_CYCLES
# (default 40) up/destroy cycles of RELIABILITY_SOAK_SESSIONS (default 5) sessions under random faults, all
# under the real engine. `npm test` runs the same tests smaller (a 2-cycle soak, a 6-stack wave on a limit of 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/prepare.sh
export RELIABILITY_SOAK_CYCLES=${RELIABILITY_SOAK_CYCLES:-40}
export RELIABILITY_SOAK_SESSIONS=${RELIABILITY_SOAK_SESSIONS:-5}
export WAVE_STACKS=${WAVE_STACKS:-12} WAVE_LIMIT=${WAVE_LIMIT:-4}
mkdir -p .work/reliability
report=.work/reliability/vitest.json
npx vitest run --project e2e --reporter=default --reporter=json --outputFile.json="$report" \
  test/e2e/faults.test.ts test/e2e/bad-input.test.ts test/e2e/secrets.test.ts test/e2e/crash.test.ts \
  test/e2e/browser-session.test.ts test/e2e/concurrency.test.ts test/e2e/wave.test.ts test/e2e/soak.test.ts
node -e '
  const r = require(process.argv[1] + "/vitest.json");
  const soak = require(process.argv[1] + "/soak.json");
  console.log("\nreliability: %d passed, %d failed", r.numPassedTests, r.numFailedTests);
  console.log("soak:", JSON.stringify(soak, null, 2));
' "$PWD/.work/reliability"
