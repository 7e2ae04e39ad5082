import { describe, expect, it } from "vitest";
import { startEmulator } from "../../emulator";
import { withStack } from "./harness";
import { peakActive } from "./timeline";

describe.concurrent("stacks that share one account", () => {
  it("queue for running slots with the capacity wait, never exceed the limit and leave nothing behind", async () => {
    const limit = 2;
    const stacks = 5;
    const emulator = await startEmulator({ prepMs: 300, runningLimit: limit });
    const recorded: string[] = [];
    try {
      await Promise.all(
        Array.from({ length: stacks }, (_, i) =>
          withStack(
            "sessions.js",
            async (stack) => {
              // Start a little apart, as pull requests do, so the first ones hold their slots when the rest ask.
              await new Promise((r) => setTimeout(r, i * 400));
              const up = await stack.run("up", { config: { waitForCapacitySeconds: "180", url: `https://example.com/pr/${i}` } });
              recorded.push((up.outputs.vmIds as Record<string, string>).chrome);
              await new Promise((r) => setTimeout(r, 1_000)); // the review
              await stack.run("destroy");
            },
            { sharedEmulator: emulator },
          ),
        ),
      );
      const books = emulator.control.books();
      expect(new Set(recorded).size).toBe(stacks);
      expect(books.started).toBe(stacks); // no duplicates: every session started is one a stack recorded
      // From the sessions' own timelines: never more at once than the limit, and the limit was really reached.
      const peak = peakActive(emulator.control.sessions());
      expect(peak, "most sessions active at once").toBeLessThanOrEqual(limit);
      expect(peak).toBe(limit);
      expect(books.maxRunning, "the service's own peak agrees with the timelines").toBe(peak);
      expect(books.neverEnded).toBe(0);
      // The limit was really contended: some creates were refused with upgrade and then waited.
      expect(emulator.control.requests().filter((r) => r.operation === "create" && r.status === "upgrade").length).toBeGreaterThan(0);
    } finally {
      await emulator.close();
    }
  });

  it("fails with a capacity message and starts nothing when no slot frees up in time", async () => {
    await withStack(
      "sessions.js",
      async (stack) => {
        const blocker = await fetch(`${stack.emulator.apiBaseUrl}/vm/create`, {
          method: "POST",
          headers: { authorization: `Bearer ${stack.emulator.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ browser: "edge" }),
        });
        expect(((await blocker.json()) as { status: string }).status).toBe("ok");
        const failed = await stack.run("up", { config: { waitForCapacitySeconds: "3" } }).catch((e: Error) => e);
        expect(failed).toBeInstanceOf(Error);
        expect(String((failed as Error).message)).toMatch(/no running slot became free within the 3 s capacity wait \(1 of 1 running sessions in use/);
        expect(stack.emulator.control.books().started).toBe(1); // only the blocker
      },
      { emulator: { runningLimit: 1 } },
    );
  });
});
