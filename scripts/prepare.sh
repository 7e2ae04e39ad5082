# Sourced by the demo and test scripts: npm packages, the build, the Pulumi CLI and the YAML language host,
# each only when missing or stale, so a fresh clone needs nothing else.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "prepare: installing npm packages (npm ci)" >&2
  # The lockfile pins every package and its integrity: a package in npm's cache is taken from there without
  # asking the registry whether its metadata changed (a few seconds of a fresh clone's first command).
  npm ci --no-audit --no-fund --prefer-offline >&2
fi
bash scripts/build.sh
# The unit tests (`npm run test:unit`, scripts/unit.sh) need no engine: PREPARE_NO_ENGINE=1 stops here.
if [ -n "${PREPARE_NO_ENGINE:-}" ]; then return 0; fi
# PRB_CLI picks the CLI pin of a test cell (see scripts/engine.sh); the default one otherwise.
PULUMI_REMOTE_BROWSER_PULUMI=$(bash scripts/engine.sh "${PRB_CLI:-default}")
export PULUMI_REMOTE_BROWSER_PULUMI
# The YAML language host only where it is run (the tests ask with PREPARE_LANGUAGE_YAML=1): the demo and the
# benchmarks do not need its first build.
if [ -n "${PREPARE_LANGUAGE_YAML:-}" ]; then
  PULUMI_REMOTE_BROWSER_LANGUAGE_YAML=$(bash scripts/language-yaml.sh)
  export PULUMI_REMOTE_BROWSER_LANGUAGE_YAML
fi
