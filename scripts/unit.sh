#!/usr/bin/env bash
# `npm run test:unit`, the edit-test loop: the unit project alone (vitest.config.mts: every test under test/
# but the e2e and hosts ones) with no engine, after installing the npm packages and building dist/ when they
# are stale. Extra arguments go to vitest: a file (`npm run test:unit -- test/core/diff.test.ts`), `-t NAME`.
# `npm test` runs these too, beside the engine scenarios and after the lint, format and type checks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# vitest 5 needs Node >= 22.12; scripts/node.sh fetches Node 24, the active LTS, when the machine's is older.
PATH=$(bash scripts/node.sh 22):$PATH
export PATH
PREPARE_NO_ENGINE=1 source scripts/prepare.sh
exec npx vitest run --project unit "$@"
