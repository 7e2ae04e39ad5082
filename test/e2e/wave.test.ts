import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator";
import type { Emulator } from "../../emulator";
import { type Postgres, startPostgres } from "../helpers/postgres";
import { RunFailed, until, withStack } from "./harness";
import { peakActive } from "./timeline";

/**
 * Many pull requests at once: each stack is driven from its own OS process (as separate CI jobs are),
 * all share one PostgreSQL backend and one account whose running limit is lower than their demand.
 * Sized by WAVE_STACKS and WAVE_LIMIT: in `npm run test:e2e` 5 stacks on a limit of 2, three rounds of contention (2, 2, 1) at
 * the least engine cost; `npm run reliability` runs 12 on a limit of 4.
 */
const STACKS = Number(process.env.WAVE_STACKS ?? 5);
const LIMIT = Number(process.env.WAVE_LIMIT ?? 2);
// A wave of no stacks, or one that never fills the limit, would pass without testing the queue.
if (!Number.isInteger(STACKS) || !Number.isInteger(LIMIT) || LIMIT < 1 || STACKS <= LIMIT) {
  throw new Error(`WAVE_STACKS=${process.env.WAVE_STACKS ?? ""} and WAVE_LIMIT=${process.env.WAVE_LIMIT ?? ""}: need whole numbers with WAVE_STACKS > WAVE_LIMIT >= 1`);
}

let postgres: Postgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

async function stacksInBackend(): Promise<string[]> {
  // The DIY backend keeps one row per stack checkpoint (history and .bak copies aside).
  return (await postgres.query("select key from pulumi_state")).filter((k) => /\/stacks\/[^/]+\/[^/]+\.json$/.test(k));
}

describe("a wave of pull-request stacks on a shared PostgreSQL backend", () => {
  it(`brings up ${STACKS} stacks on a running limit of ${LIMIT} without exceeding it or leaving anything behind`, async () => {
    const emulator: Emulator = await startEmulator({ prepMs: 500, runningLimit: LIMIT });
    const outcomes: Array<{ stack: string; vmId?: string; error?: string }> = [];
    try {
      await Promise.all(
        Array.from({ length: STACKS }, (_, i) =>
          withStack(
            "sessions.js",
            async (stack) => {
              await new Promise((r) => setTimeout(r, i * 150));
              try {
                const up = await stack.run("up", { config: { waitForCapacitySeconds: "600", url: `https://example.com/pr/${i}` } });
                outcomes.push({ stack: stack.name, vmId: (up.outputs.vmIds as Record<string, string>).chrome });
                await new Promise((r) => setTimeout(r, 1_500)); // the review
              } catch (e) {
                outcomes.push({ stack: stack.name, error: e instanceof RunFailed ? e.stdout + e.stderr : String(e) });
              }
              await stack.run("destroy");
              await stack.run("rm");
            },
            { sharedEmulator: emulator, backendUrl: postgres.url, name: `pr-${i + 1}`, destroy: false },
          ),
        ),
      );
      const books = emulator.control.books();
      for (const o of outcomes) {
        if (o.error) expect(o.error).toMatch(/no running slot became free within the 600 s capacity wait/);
      }
      const recorded = outcomes.filter((o) => o.vmId).map((o) => o.vmId);
      expect(recorded.length).toBe(STACKS); // with a 600 s wait every stack gets its turn
      expect(new Set(recorded).size).toBe(recorded.length);
      expect(books.started).toBe(recorded.length); // no session started twice
      const peak = peakActive(emulator.control.sessions());
      expect(peak, "most sessions active at once, from their timelines").toBeLessThanOrEqual(LIMIT);
      expect(peak, "the wave really contended for the limit").toBe(Math.min(LIMIT, STACKS));
      expect(books.maxRunning).toBe(peak);
      expect(books.neverEnded).toBe(0);
      expect(await stacksInBackend()).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it("lets one of two simultaneous updates of the same pull request through and refuses the other on the lock", async () => {
    await withStack(
      "sessions.js",
      async (stack) => {
        const control = stack.emulator.control;
        control.preparation({ paused: true }); // the first update holds the stack while its session starts
        const first = stack.start("up");
        await until(() => control.sessions()[0], 60_000, "the first update's session");
        const second = await stack.run("up").then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(second).toBeInstanceOf(RunFailed);
        expect((second as RunFailed).stdout + (second as RunFailed).stderr).toMatch(/currently locked/);
        control.preparation({ paused: false });
        const done = await first.done;
        expect(done.code, done.stderr).toBe(0);

        expect(control.books().started).toBe(1);
        await stack.run("preview", { expectNoChanges: true }); // the state is whole
        await stack.run("destroy");
        await stack.run("rm");
        expect(control.books().neverEnded).toBe(0);
      },
      { backendUrl: postgres.url, name: "pr-twice", destroy: false },
    );
    expect(await stacksInBackend()).toEqual([]);
  });
});
