import { spawn } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import config from "../vitest.config";

const root = path.resolve(__dirname, "..");

/** A run of test/fixtures/sync-tests: 66 s of synchronous tests in one file. */
async function fixtureRun(yieldBetweenTests: boolean): Promise<{ code: number | null; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PRB_FIXTURE_NO_YIELD: yieldBetweenTests ? "" : "1" };
  const child = spawn(process.execPath, [path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--config", "test/fixtures/sync-tests/vitest.config.ts"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((r) => child.once("close", r));
  return { code, out };
}

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
