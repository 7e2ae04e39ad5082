import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { childPids, commandOf, until, withStack } from "./harness";

/** The resource ids in the stack's checkpoint file, or undefined while it cannot be read whole. */
function checkpointIds(dir: string, stack: string): string[] | undefined {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === `${stack}.json` && path.basename(path.dirname(path.dirname(p))) === "stacks") files.push(p);
    }
  };
  walk(dir);
  if (files.length !== 1) return undefined;
  try {
    const cp = JSON.parse(fs.readFileSync(files[0]!, "utf8"));
    return (cp.checkpoint?.latest?.resources ?? []).map((r: { id?: string }) => r.id).filter(Boolean);
  } catch {
    return undefined;
  }
}

describe("a destroy killed half-way", () => {
  it("is reconciled by refresh and finished by the next destroy, leaving nothing running", async () => {
    await withStack("sessions.js", async (stack) => {
      const control = stack.emulator.control;
      await stack.run("up", { config: { browsers: "chrome,firefox,edge" } });
      expect(control.books().running).toBe(3);

      // One quick end and two held ones, so the destroy is half-way when its engine is killed. The held
      // removes are not carried out while the test looks (the emulator drops them when it closes), so what
      // refresh sees does not depend on how fast a loaded machine gets there.
      control.fault({ operation: "remove", kind: "delay_before", count: 1, delayMs: 200 });
      control.fault({ operation: "remove", kind: "delay_before", count: 2, delayMs: 3_600_000 });
      const run = stack.start("destroy");
      const engine = await until(() => childPids(run.child.pid!).find((pid) => /(^|\/)pulumi destroy\b/.test(commandOf(pid))), 30_000, "the engine process");
      await until(() => control.sessions().some((s) => s.status !== "running") || undefined, 60_000, "a first session to end");
      // All three removes were sent: the two held ones are in flight when the engine dies.
      await until(() => control.books().removeCalls === 3 || undefined, 60_000, "the two held removes");
      expect(control.faults()).toEqual([]);
      // Killed once the engine has written down the first end: a kill during a checkpoint write would
      // leave a file backend with a torn checkpoint, which is not what this test is about.
      const first = control.sessions().find((s) => s.status !== "running")!.vmId;
      await until(
        () => {
          const ids = checkpointIds(path.join(stack.workDir, ".pulumi-local"), stack.name);
          return ids !== undefined && ids.length > 0 && !ids.includes(first);
        },
        60_000,
        "the checkpoint without the ended session",
      );
      process.kill(engine, "SIGKILL");
      await run.done;

      const ended = control
        .sessions()
        .filter((s) => s.status !== "running")
        .map((s) => s.vmId);
      expect(ended).toHaveLength(1);
      await stack.cli(["cancel", "--yes"]);

      // refresh drops the sessions that have ended and keeps the others.
      const refreshed = await stack.cli(["refresh", "--yes", "--clear-pending-creates"]);
      expect(refreshed.code, refreshed.stderr + refreshed.stdout).toBe(0);
      const exported = JSON.parse(await stack.exportState());
      const recorded = (exported.deployment.resources ?? []).filter((r: { type: string }) => r.type.endsWith(":BrowserSession"));
      const stillRunning = control
        .sessions()
        .filter((s) => s.status === "running")
        .map((s) => s.vmId);
      expect(stillRunning).toHaveLength(2);
      expect(recorded.map((r: { id: string }) => r.id).sort()).toEqual(stillRunning.sort());

      await stack.run("destroy");
      expect(control.books().neverEnded).toBe(0);
      expect(control.books().started).toBe(3);
    });
  });
});
