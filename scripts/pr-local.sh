#!/usr/bin/env bash
# `npm run pr:local`: the pull-request workflow run locally against the emulator (see scripts/pr-local.ts).
# Installs what is missing first, like the demo.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/prepare.sh
node dist/scripts/pr-local.js "$@"
