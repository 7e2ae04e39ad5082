import { describe, expect, it } from "vitest";
import { runVitestFixture } from "./helpers/vitest-fixture";

/**
 * vitest 3's worker waited for each answer of its main process with a fixed 60 s timer that no setting
 * changed: a worker that held its event loop that long, or a main process kept from answering that long on a
 * loaded machine, failed the whole run with `Timeout calling "onTaskUpdate"` and every test passed. It failed
 * CI runs of this suite twice after every synchronous command had left the tests. vitest 4 waits without a
 * timer (its worker's channel has no time-out); this run of test/fixtures/sync-tests, one test that holds
 * its worker for 62 s, fails on a vitest that still has one.
 */
describe("vitest's worker channel", () => {
  it("has no time-out: a test that holds its worker past 60 s passes, and the run with it", async () => {
    const run = await runVitestFixture("test/fixtures/sync-tests/vitest.config.mts");
    expect(run.out).toContain("1 passed");
    expect(run.out).not.toContain("Timeout calling");
    expect(run.code, run.out).toBe(0);
  }, 240_000);
});
