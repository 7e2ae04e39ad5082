import { describe, expect, it } from "vitest";
import config from "../vitest.config";
import { runVitestFixture } from "./helpers/vitest-fixture";

/** A run of test/fixtures/sync-tests: 66 s of synchronous tests in one file. */
const fixtureRun = (yieldBetweenTests: boolean) =>
  runVitestFixture("test/fixtures/sync-tests/vitest.config.ts", { PRB_FIXTURE_NO_YIELD: yieldBetweenTests ? "" : "1" });

describe("a file of synchronous tests longer than vitest's 60 s message timer", () => {
  it("fails its run without a turn of the event loop between tests, and passes with the suite's setup file", async () => {
    const [without, withYield] = await Promise.all([fixtureRun(false), fixtureRun(true)]);
    // The breakage is real: every test passes, and the run fails on the worker's message.
    expect(without.out).toContain("33 passed");
    expect(without.out).toContain('Timeout calling "onTaskUpdate"');
    expect(without.code).toBe(1);

    expect(withYield.out).toContain("33 passed");
    expect(withYield.out).not.toContain("Timeout calling");
    expect(withYield.code, withYield.out).toBe(0);
  }, 240_000);

  it("the setup file is in every project of the suite", () => {
    const projects = config.test!.projects as Array<{ test: { name: string; setupFiles?: string[] } }>;
    expect(projects.length).toBeGreaterThan(1);
    for (const p of projects) expect(p.test.setupFiles, p.test.name).toContain("test/yield-setup.ts");
  });
});
