#!/usr/bin/env bash
# The README's first command: installs what is missing, then runs the demo (see scripts/demo.ts).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# On the Node.js line the tests' default cell runs (the machine's when it is 24 or newer; fetched otherwise):
# the demo runs the package, whose engines range a machine's older Node may be outside.
PATH=$(bash scripts/node.sh 24):$PATH
export PATH
source scripts/prepare.sh
node dist/scripts/demo.js "$@"
