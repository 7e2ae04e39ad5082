#!/usr/bin/env bash
# Builds dist/ when it is stale: when there is no build stamp, or a source (a JSON file a source imports,
# such as plugin/schema.json, included), the compiler settings or the package manifest is newer than it. The tests (test/) are not built (tsconfig.json leaves them out): an edit
# of one, the most frequent edit between two test runs, cost a whole build of the package every run.
# The one rule for every way in: scripts/prepare.sh (the demo, the tests,
# the benchmarks) and the e2e setup (test/e2e/global-setup.ts, for a test file run on its own).
#
#   bash scripts/build.sh [DIR]     DIR: the project folder; default: the one this script is in
set -euo pipefail
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}"
stamp=dist/.build-stamp
if [ ! -f "$stamp" ] || [ -n "$(find . \( -path ./node_modules -o -path ./dist -o -path ./.work -o -path ./.git -o -path ./test \) -prune -o \
    \( -name '*.ts' -o -name tsconfig.json -o -name package.json -o -path './*/*.json' -a ! -path './examples/*' \) -newer "$stamp" -print -quit)" ]; then
  echo "build: building dist/" >&2
  mkdir -p dist && touch "$stamp.next" # taken before the build: a file saved during it makes the next one stale
  npx tsc -p tsconfig.json
  # The whole schema the plugin serves, committed where a Pulumi Registry listing reads it (its schemaFile):
  # written from the build, so that it cannot lag the code (test/plugin/registry-schema.test.ts).
  # (A project without the plugin, such as the build's own test fixture, has none to write.)
  if [ -f plugin/packageSchema.ts ]; then
    node -e 'process.stdout.write(require("./dist/plugin/packageSchema").registrySchemaText())' > schema.json.next
    mv schema.json.next schema.json
  fi
  # The two pages the registry publishes link to the rest of the manual at the release's tag: a version bump
  # in package.json moves those links with it (scripts/registry-pages.js).
  if [ -f scripts/registry-pages.js ]; then node scripts/registry-pages.js; fi
  mv "$stamp.next" "$stamp"
fi
