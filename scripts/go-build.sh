# Sourced by scripts/engine.sh and scripts/language-yaml.sh: building a pinned Go program from its wrapper
# module into the user cache, once, under a lock, so that two runs starting at once build it once. The
# caller defines `log` and `version_of` (how to read the version a binary was built as).

at_least() { # $1 >= $2, both dotted versions
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

# build_pinned WHAT VERSION BIN MODULE PACKAGE [go build flags...]
# Returns once BIN is the pinned build: built here, or by a concurrent run that held the lock first.
# BUILD_RECIPE, when set, names how BIN must have been built beside its version (kept in BIN.recipe):
# a cached build of another recipe is built again.
built_as() { # BIN VERSION: BIN is of VERSION and BUILD_RECIPE
  [ -x "$1" ] && [ "$(version_of "$1")" = "$2" ] && { [ -z "${BUILD_RECIPE:-}" ] || [ "$(cat "$1.recipe" 2>/dev/null)" = "$BUILD_RECIPE" ]; }
}

build_pinned() {
  local what=$1 version=$2 bin=$3 module=$4 package=$5
  shift 5
  command -v go >/dev/null || { log "Go >= 1.25 is needed to build $what $version (or put it on PATH)"; exit 1; }
  local gov
  gov=$(go env GOVERSION | sed 's/^go//')
  at_least "$gov" 1.25 || { log "Go $gov is too old: $what $version needs Go >= 1.25"; exit 1; }
  mkdir -p "$(dirname "$bin")"
  exec 9>"$(dirname "$(dirname "$bin")")/.lock"
  flock 9
  if built_as "$bin" "$version"; then return 0; fi
  log "building $what $version from the Go module proxy (first time only: about 4 to 5 minutes on 2 cores)"
  local start tmp
  start=$(date +%s)
  tmp="$bin.tmp.$$"
  ( cd "$module" && GOFLAGS=-mod=readonly go build -trimpath "$@" -o "$tmp" "$package" ) >&2
  mv "$tmp" "$bin"
  if [ -n "${BUILD_RECIPE:-}" ]; then printf '%s' "$BUILD_RECIPE" > "$bin.recipe"; fi
  log "built $bin in $(( $(date +%s) - start ))s"
}
