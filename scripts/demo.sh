#!/usr/bin/env bash
# The README's first command: installs what is missing, then runs the demo (see scripts/demo.ts).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/prepare.sh
node dist/scripts/demo.js "$@"
