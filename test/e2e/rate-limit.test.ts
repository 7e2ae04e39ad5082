import { describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator";
import type { Emulator } from "../../emulator";
import { withStack } from "./harness";

/**
 * Under the service's per-key rate limit, `up` and `destroy` pace their calls instead of failing: the
 * emulator allows 5 requests per second per key, far below what 30 sessions (or four stacks at once)
 * ask for unpaced. Short preparation keeps the runs cheap; the limit, not preparation, sets their length.
 */
const RATE = 5;

function sessionsOf(emulator: Emulator) {
  return emulator.control.sessions();
}

describe.concurrent(`sessions under a rate limit of ${RATE} requests per second per key`, () => {
  it("an up of 30 sessions in one stack succeeds at the first try with none started twice, and destroy ends them all", async () => {
    const emulator = await startEmulator({ prepMs: 300, prepJitterMs: 0, rateLimit: RATE, runningLimit: 40 });
    try {
      await withStack(
        "sessions.js",
        async (stack) => {
          const up = await stack.run("up", { config: { count: "30" } });
          const vmIds = Object.values(up.outputs.vmIds as Record<string, string>);
          expect(new Set(vmIds).size).toBe(30);
          const books = emulator.control.books();
          expect(books.started, "one session per resource: none started twice").toBe(30);
          // The limit was really reached: without pacing and retries the run would have failed.
          expect(books.rateLimited).toBeGreaterThan(0);
          expect(sessionsOf(emulator).filter((s) => s.status === "running")).toHaveLength(30);

          emulator.control.clearRequests();
          await stack.run("destroy");
          expect(sessionsOf(emulator).filter((s) => s.status === "running" || s.status === "starting")).toHaveLength(0);
          expect(emulator.control.books().neverEnded).toBe(0);
          // Each session ended by one accepted remove: the retries were of refusals only.
          const removes = emulator.control.requests().filter((r) => r.operation === "remove" && r.status === "ok");
          expect(removes).toHaveLength(30);
        },
        { sharedEmulator: emulator },
      );
    } finally {
      await emulator.close();
    }
  });

  it("four stacks of 6 sessions brought up at once on one key all succeed at the first try, and so do their destroys", async () => {
    const emulator = await startEmulator({ prepMs: 300, prepJitterMs: 0, rateLimit: RATE, runningLimit: 40 });
    const recorded: string[] = [];
    try {
      await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          withStack(
            "sessions.js",
            async (stack) => {
              const up = await stack.run("up", { config: { count: "6", url: `https://example.com/pr/${i}` } });
              recorded.push(...Object.values(up.outputs.vmIds as Record<string, string>));
              await stack.run("destroy");
            },
            { sharedEmulator: emulator, name: `pr-${i + 1}` },
          ),
        ),
      );
      expect(new Set(recorded).size).toBe(24);
      const books = emulator.control.books();
      expect(books.started, "one session per resource: none started twice").toBe(24);
      expect(books.rateLimited).toBeGreaterThan(0);
      expect(books.neverEnded).toBe(0);
    } finally {
      await emulator.close();
    }
  });
});
