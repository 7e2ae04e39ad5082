#!/usr/bin/env bash
# `npm run test:hosts`: programs run exactly as users run them, with the plain `pulumi` CLI under Pulumi's
# own Node.js, Python and Go language hosts (test/hosts/, vitest.hosts.config.mts; `npm test` does not run
# them). Every Pulumi install ships these hosts beside `pulumi`; the Go module proxy does not serve them.
# Each host is taken from PATH first (as an installed Pulumi CLI provides them), then from
# ~/.cache/pulumi-language-hosts/v<CLI pin>/, where `go build` in each host's folder of a pulumi/pulumi
# checkout builds them (CONTRIBUTING.md, "Pulumi's language hosts", says how). A test file runs only where its hosts are found:
#
#   test/hosts/nodejs.test.ts   pulumi-language-nodejs
#   test/hosts/python.test.ts   pulumi-language-python (and its -exec) and pulumi-language-nodejs (the
#                               plugin from a clone of this repository runs under the Node.js host)
#   test/hosts/python-identity.test.ts  pulumi-language-python (and its -exec)
#   test/hosts/go.test.ts       pulumi-language-go
#   test/hosts/rehearsal.test.ts  all three: a release made by `npm run release`, published by
#                               scripts/publish.sh to local stand-ins of its endpoints and installed from them
#
# With none found it says so and exits 0: nothing was run, and nothing failed. Test files named as arguments
# (`npm run test:hosts -- test/hosts/go.test.ts`) narrow the run to those of them whose hosts are found;
# every other argument goes to vitest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log() { printf 'hosts: %s\n' "$*" >&2; }

pin=$(sed -nE 's#^[[:space:]]*(require[[:space:]]+)?github.com/pulumi/pulumi/pkg/v3 v([0-9.]+)$#\2#p' engine/go.mod)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-language-hosts/v$pin
find_host() { # name -> path, or nothing
  local found
  if found=$(command -v "$1" 2>/dev/null); then echo "$found"; return; fi
  if [ -x "$cache/$1" ]; then echo "$cache/$1"; fi
}

declare -A host
missing=()
for name in nodejs python go; do
  host[$name]=$(find_host "pulumi-language-$name")
  if [ -n "${host[$name]}" ]; then
    log "pulumi-language-$name: ${host[$name]}"
  else
    missing+=("pulumi-language-$name")
  fi
done
files=()
[ -n "${host[nodejs]}" ] && files+=(test/hosts/nodejs.test.ts)
if [ -n "${host[python]}" ] && [ -n "${host[nodejs]}" ]; then
  exec_host=$(dirname "${host[python]}")/pulumi-language-python-exec
  if [ -x "$exec_host" ]; then files+=(test/hosts/python.test.ts test/hosts/python-identity.test.ts); else missing+=("pulumi-language-python-exec (beside ${host[python]})"); fi
fi
[ -n "${host[go]}" ] && files+=(test/hosts/go.test.ts)
# The rehearsal runs a program per SDK, so it needs every host (Python's files were checked above).
if [[ " ${files[*]} " == *" test/hosts/python.test.ts "* ]] && [ -n "${host[go]}" ]; then files+=(test/hosts/rehearsal.test.ts); fi

where="on PATH or in $cache"
named=()
rest=()
for arg in "$@"; do
  case "$arg" in
    test/hosts/*.test.ts) named+=("$arg") ;;
    *) rest+=("$arg") ;;
  esac
done
if [ ${#named[@]} -gt 0 ]; then
  chosen=()
  for f in "${named[@]}"; do
    if [ ! -f "$f" ]; then
      printf 'hosts: no such test file: %s\n' "$f" >&2
      exit 2
    elif [[ " ${files[*]-} " == *" $f "* ]]; then
      chosen+=("$f")
    else
      printf 'hosts: NOT RUN: %s, for want of its language hosts %s\n' "$f" "$where"
    fi
  done
  files=(${chosen[@]+"${chosen[@]}"})
fi
if [ ${#files[@]} = 0 ] && [ ${#named[@]} -gt 0 ]; then exit 0; fi
if [ ${#files[@]} = 0 ]; then
  printf 'hosts: NOT RUN: no Pulumi language host found %s (%s). An installed Pulumi CLI has them beside `pulumi`; see CONTRIBUTING.md (the language hosts).\n' "$where" "${missing[*]}"
  exit 0
fi
export PRB_LANGUAGE_HOST_NODEJS=${host[nodejs]} PRB_LANGUAGE_HOST_PYTHON=${host[python]} PRB_LANGUAGE_HOST_GO=${host[go]}
# The Node.js of the default cell (scripts/test.sh), first on PATH for the hosts, the programs and the plugins.
PATH=$(bash scripts/node.sh 24):$PATH
export PATH PRB_CELL=hosts
code=0
bash scripts/test.sh --config vitest.hosts.config.mts "${files[@]}" ${rest[@]+"${rest[@]}"} || code=$?
printf 'hosts: ran %s\n' "${files[*]}"
[ ${#missing[@]} = 0 ] || printf 'hosts: NOT RUN for want of %s (%s): the other test files\n' "${missing[*]}" "$where"
exit $code
