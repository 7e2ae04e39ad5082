import { describe, expect, it } from "vitest";
import { childPids, commandOf, until, withStack } from "./harness";
import type { E2EStack } from "./harness";
import { isRunning } from "../helpers/processes";

/**
 * Ctrl-C in the runner, under the real engine: the runner alone gets SIGINT, as a CI job's `kill -INT` or a
 * runner started in the background gets it (a terminal also sends it to the CLI, which the runner then
 * leaves alone; test/runner/interrupt.test.ts covers that choice).
 */
const running = (stack: E2EStack) => stack.emulator.control.sessions().filter((s) => s.status === "running" || s.status === "starting");

/** Every process the runner started, and theirs, until all have ended. */
async function allEnded(pids: number[]): Promise<void> {
  for (const pid of pids) await until(() => !isRunning(pid) || undefined, 60_000, `process ${pid} to end`);
}

/** An up whose session is starting (preparation paused), with the engine and its dynamic provider process. */
async function upWhileStarting(stack: E2EStack, project?: string | null) {
  stack.emulator.control.preparation({ paused: true });
  const up = stack.start("up", { config: { readyTimeoutSeconds: "120" }, project });
  const session = await until(() => stack.emulator.control.sessions()[0], 120_000, "the session to be created");
  const engine = await until(() => childPids(up.child.pid!).find((pid) => /\bpulumi\b.*\bup\b/.test(commandOf(pid))), 10_000, "the engine process");
  const provider = childPids(engine).filter((pid) => /[\\/]cmd[\\/]dynamic-provider[\\/]/.test(commandOf(pid)));
  expect(provider).toHaveLength(1);
  return { up, session, processes: [engine, ...provider] };
}

describe("Ctrl-C in the runner", () => {
  it("the first cancels as the engine does: the starting session is recorded, the stack is not locked, and the next up is clean", async () => {
    await withStack("sessions.js", async (stack) => {
      const { up, session, processes } = await upWhileStarting(stack);
      up.child.kill("SIGINT");
      // The engine lets the step in flight end: the session becomes running and is recorded.
      await new Promise((r) => setTimeout(r, 1_000));
      stack.emulator.control.preparation({ paused: false });
      const result = await up.done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toMatch(/runner: Ctrl-C: cancelling the up; the engine finishes the steps in flight/);
      expect(result.stderr).toMatch(
        /runner: the up was cancelled by Ctrl-C and the engine ended it cleanly: the steps in flight finished and the stack is not locked\. Run `pulumi-remote-browser-run up --program \S+ --stack \S+ --project e2e --work-dir \S+` to carry on/,
      );
      await allEnded(processes);

      // Not locked, nothing pending: the next up runs without `cancel` and keeps the one session.
      const again = await stack.run("up", { config: { readyTimeoutSeconds: "120" } });
      expect(again.stderr + again.stdout).not.toMatch(/pending|locked|cancel/i);
      expect((again.outputs.vmIds as Record<string, string>).chrome).toBe(session.vmId);
      expect(stack.emulator.control.books().started).toBe(1);
      await stack.run("destroy");
      expect(running(stack)).toEqual([]);
    });
  });

  it("a second stops at once, says to run cancel and refresh --clear-pending-creates, leaves nothing running, and the next up is clean", async () => {
    // Without --project: the runner names the project after the program's folder (`programs`), and the
    // commands it prints must name it too, or they look for the stack in another project and fail.
    await withStack("sessions.js", async (stack) => {
      const { up, session, processes } = await upWhileStarting(stack, null);
      up.child.kill("SIGINT");
      await new Promise((r) => setTimeout(r, 500));
      const pressed = Date.now();
      up.child.kill("SIGINT");
      const result = await up.done;
      expect(Date.now() - pressed, "stopped at once").toBeLessThan(5_000);
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toMatch(/runner: Ctrl-C again: stopped at once, without waiting for the engine/);
      expect(result.stderr).toMatch(
        /Run next:\n {2}pulumi-remote-browser-run cancel --stack \S+ --project programs --work-dir \S+\n {2}pulumi-remote-browser-run refresh --stack \S+ --project programs --work-dir \S+ --clear-pending-creates\n/,
      );
      // The CLI was killed; its plugins see their engine gone and exit by themselves.
      await allEnded(processes);

      // What the runner said to run, then the up again: it adopts the session the stopped up had started.
      await stack.run("cancel", { project: "programs" });
      await stack.run("refresh", { extraArgs: ["--clear-pending-creates"], project: "programs" });
      stack.emulator.control.preparation({ paused: false });
      const again = await stack.run("up", { config: { readyTimeoutSeconds: "120" }, project: "programs" });
      expect((again.outputs.vmIds as Record<string, string>).chrome).toBe(session.vmId);
      expect(stack.emulator.control.books().started).toBe(1);
      await stack.run("refresh", { expectNoChanges: true, project: "programs" });
      await stack.run("destroy", { project: "programs" });
      expect(running(stack)).toEqual([]);
    });
  });
});
