#!/usr/bin/env bash
# `npm run bench`: installs what is missing, builds, provides the engine, then runs the benchmarks
# (see bench/run.ts; PERFORMANCE.md has the results and what they mean).
#   npm run bench -- --quick | --only overhead|scale|memory|ratelimit | --candidate min,growth,max | --help
#   npm run bench -- wave [--stacks 12] [--limit 4]   many pull-request stacks at once (bench/wave.ts)
#   npm run bench -- audit [--stacks 20] [--sessions 200]   the account audit at scale (bench/audit.ts)
#   npm run bench -- status-board [--listed 60000] [--waiting 400]   one shared poll tick's cost (bench/status-board.ts)
#   npm run bench -- release [--release DIR] [--runs 7] [--stacks 8]   archive sizes, plugin start and memory
#                                              beside a Go plugin (needs Go) and Node.js's floor (bench/release.ts)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/prepare.sh
# The chart needs matplotlib; install it only when it is missing.
if ! python3 -c "import matplotlib" >/dev/null 2>&1; then
  echo "bench: installing matplotlib for the chart (pip install --quiet matplotlib)" >&2
  python3 -m pip install --quiet matplotlib >&2 || echo "bench: matplotlib could not be installed; the chart will be skipped" >&2
fi
if [ "${1:-}" = wave ]; then
  shift
  node dist/bench/wave.js "$@"
elif [ "${1:-}" = audit ]; then
  shift
  node dist/bench/audit.js "$@"
elif [ "${1:-}" = status-board ]; then
  shift
  node dist/bench/status-board.js "$@"
elif [ "${1:-}" = plugin-exit ]; then
  shift
  node dist/bench/plugin-exit.js "$@"
elif [ "${1:-}" = release ]; then
  shift
  node dist/bench/release.js "$@"
else
  node dist/bench/run.js "$@"
fi
