#!/usr/bin/env bash
# `npm run release -- --version <semver> [--plugin-download-url <url>] --out <dir>`: installs what is
# missing, builds, provides the Pulumi CLI (which asks the built plugin for its schema), then writes the
# release (release/cli.ts).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/prepare.sh
exec node dist/release/cli.js "$@"
