import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { childPids, commandOf, until, withStack } from "./harness";

/** The pending operations a file backend's checkpoint holds; 0 while it is missing or being written. */
function pendingCreates(file: string): number {
  try {
    return (JSON.parse(fs.readFileSync(file, "utf8")).checkpoint?.latest?.pending_operations ?? []).length;
  } catch {
    return 0;
  }
}

describe("the real engine runs inline programs through the project's runner", () => {
  // One stack for both: the lifecycle runs on the stack the recovery left, which is what a user goes on with.
  it("recovers from a pulumi up killed with SIGKILL mid-create with cancel and refresh --clear-pending-creates, then runs up, preview with no changes, refresh and destroy of a trivial dynamic resource", async () => {
    await withStack("trivial.js", async (stack) => {
      const run = stack.start("up", { config: { value: "b", delayMs: "60000" } });
      let out = "";
      run.child.stdout!.on("data", (d) => (out += d));
      // A hang guard, not a goal: a machine running two test cells at once took over a minute to get here.
      await until(() => /thing creating/.test(out) || undefined, 240_000, "the create to start");
      // Killed once the checkpoint records the pending create (the create then waits a minute, writing
      // nothing): a kill during a checkpoint write leaves a file backend with a torn checkpoint instead.
      const checkpoint = path.join(stack.workDir, ".pulumi-local", "backend", ".pulumi", "stacks", "e2e", `${stack.name}.json`);
      await until(() => pendingCreates(checkpoint) > 0 || undefined, 60_000, "the pending create in the checkpoint");
      const engine = await until(() => childPids(run.child.pid!).find((pid) => /\bpulumi\b.*\bup\b/.test(commandOf(pid))), 10_000, "the engine process");
      process.kill(engine, "SIGKILL");
      const killed = await run.done;
      expect(killed.code).not.toBe(0);

      // The killed update left a pending create; the next update is refused until it is cleared.
      const blocked = await stack.run("up", { config: { value: "b", delayMs: "0" } }).catch((e: Error) => e);
      expect(blocked).toBeInstanceOf(Error);
      expect(String((blocked as Error).message)).toMatch(/pending|locked|interrupted/i);

      await stack.cli(["cancel", "--yes"]);
      const cleared = await stack.cli(["refresh", "--clear-pending-creates", "--yes"]);
      expect(cleared.code, cleared.stderr + cleared.stdout).toBe(0);

      // The killed update had recorded the stack itself, not the resource.
      const up = await stack.run("up", { config: { value: "b", delayMs: "0" } });
      expect(up.outputs.thingId).toBe("thing-b");
      expect(up.changes).toEqual({ create: 1, same: 1 });

      const preview = await stack.run("preview", { config: { value: "b", delayMs: "0" }, expectNoChanges: true });
      expect(preview.changes.same).toBe(2);

      const refresh = await stack.run("refresh", { expectNoChanges: true });
      expect(refresh.outputs.thingId).toBe("thing-b");

      const destroy = await stack.run("destroy");
      expect(destroy.changes.delete).toBe(2); // the stack and the resource
      const exported = JSON.parse(await stack.exportState());
      const resources = exported.deployment.resources ?? [];
      expect(resources.filter((r: { type: string }) => r.type.startsWith("pulumi-nodejs:dynamic"))).toHaveLength(0);
    });
  });
});
