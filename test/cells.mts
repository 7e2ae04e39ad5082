/**
 * Which e2e files `npm test` runs. The rest of test/e2e/ is the e2e cell's (`npm run test:e2e`), which
 * `.ci/run` runs on every change after `npm test`; docs/tested.md names each row's cell, and
 * test/docs/claims.test.ts holds those names to this list and to scripts/cell.sh.
 *
 * `npm test` is the loop a contributor runs on every change, with a goal of 480 s warm on a fresh clone of
 * the slowest 2-core machine of its kind, planned at 300 s on the fastest seen so that one 1.6x slower still
 * meets it. The unit project costs about 180 s of CPU; these files add about 170 s (the suite's own
 * accounting, scripts/test-summary.js, on a loaded run of the whole suite). They were chosen for what a change to any part of the provider can
 * break under the real engine: the dynamic `BrowserSession`'s up, refresh, update in place and destroy on
 * the stacks every earlier release recorded, and the move of their sessions to the native type (upgrade);
 * up, refresh, import and destroy under the service's latitude (latitude); up and destroy cycles under
 * random faults (soak); nothing secret in any state or log (secrets); a killed `up` reconciled (crash) and
 * the runner's recovery and lifecycle after one (engine-loop); native sessions through the plugin under the
 * rate limit (native-rate-limit); settings refused before the engine runs (config-refusals); the committed and the served
 * schema as the CLI reads and writes them, a few seconds (registry-schema). The long
 * scenario chains (browser-session, 90 s of CPU over 420 s of
 * wall; native-yaml, 200 s over 480 s), the cross-language SDK matrix and what needs a release build, about
 * a minute of CPU after any change of the provider's sources (component, generated-sdks, release,
 * release-start, release-signatures), are the e2e cell's.
 */
export const E2E_IN_NPM_TEST: readonly string[] = [
  "test/e2e/engine-loop.test.ts",
  "test/e2e/native-rate-limit.test.ts",
  "test/e2e/upgrade.test.ts",
  "test/e2e/secrets.test.ts",
  "test/e2e/crash.test.ts",
  "test/e2e/config-refusals.test.ts",
  "test/e2e/latitude.test.ts",
  "test/e2e/soak.test.ts",
  "test/e2e/registry-schema.test.ts",
];
