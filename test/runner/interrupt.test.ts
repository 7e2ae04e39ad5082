import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_EXIT_CODE, Interrupted, inTerminalForeground, interruptible } from "../../runner/interrupt";

/** Ctrl-C as the runner handles it, with the process, terminal and children stood in for. */
function fakeProcess(opts: { terminal?: boolean; children?: number[] } = {}) {
  const events = new EventEmitter();
  const said: string[] = [];
  const killed: Array<[number, string]> = [];
  const exits: number[] = [];
  return {
    said,
    killed,
    exits,
    press: () => events.emit("SIGINT"),
    listeners: () => events.listenerCount("SIGINT"),
    deps: {
      say: (t: string) => void said.push(t),
      exit: (code: number) => void exits.push(code),
      terminalSentIt: () => !!opts.terminal,
      children: () => opts.children ?? [],
      kill: (pid: number, signal: NodeJS.Signals) => void killed.push([pid, signal]),
      events: events as unknown as Pick<NodeJS.Process, "on" | "off">,
    },
  };
}

const next = (action: string, extra?: string) => `pulumi-remote-browser-run ${action} --stack pr-1${extra ? ` ${extra}` : ""}`;

/** A run that ends the way the Automation API's does when its signal aborts: the CLI cancels and fails. */
const engineRun = (signal: AbortSignal) =>
  new Promise<string>((resolve, reject) => {
    signal.addEventListener("abort", () => setTimeout(() => reject(new Error("error: update canceled")), 5));
    setTimeout(() => resolve("finished"), 2_000);
  });

describe("the first Ctrl-C", () => {
  it("becomes the engine's cancel, and the run ends saying so and what to run next", async () => {
    const p = fakeProcess();
    const run = interruptible("up", next, engineRun, p.deps);
    p.press();
    const err = await run.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Interrupted);
    expect((err as Error).message).toBe(
      "the up was cancelled by Ctrl-C and the engine ended it cleanly: the steps in flight finished and the stack is not locked. " +
        "Run `pulumi-remote-browser-run up --stack pr-1` to carry on from where it stopped.",
    );
    expect(p.said.join("")).toMatch(/Ctrl-C: cancelling the up; .*Press Ctrl-C again to stop at once/);
    expect(p.exits).toEqual([]);
    expect(p.killed).toEqual([]);
    expect(p.listeners(), "the handler is removed after the run").toBe(0);
  });

  it("is not sent again when the terminal sent it to the CLI already (a second SIGINT would stop the CLI at once)", async () => {
    const p = fakeProcess({ terminal: true });
    let aborted = false;
    const run = interruptible(
      "up",
      next,
      async (signal) => {
        signal.addEventListener("abort", () => (aborted = true));
        await new Promise((r) => setTimeout(r, 50));
        throw new Error("error: update canceled");
      },
      p.deps,
    );
    p.press();
    await expect(run).rejects.toBeInstanceOf(Interrupted);
    expect(aborted).toBe(false);
  });

  it("that comes too late leaves the finished run as it is", async () => {
    const p = fakeProcess();
    const run = interruptible(
      "refresh",
      next,
      async () => {
        p.press();
        return "done";
      },
      p.deps,
    );
    await expect(run).resolves.toBe("done");
    expect(p.said.at(-1)).toMatch(/the refresh had finished before the cancel took effect/);
  });

  it("without a Ctrl-C, a failure is the run's own", async () => {
    const p = fakeProcess();
    await expect(interruptible("up", next, async () => Promise.reject(new Error("boom")), p.deps)).rejects.toThrow("boom");
  });
});

describe("a second Ctrl-C", () => {
  it("stops at once: kills the CLI, says what to run next, and exits 130", async () => {
    const p = fakeProcess({ children: [4101, 4102] });
    void interruptible("up", next, engineRun, p.deps).catch(() => undefined);
    p.press();
    p.press();
    expect(p.killed).toEqual([
      [4101, "SIGKILL"],
      [4102, "SIGKILL"],
    ]);
    expect(p.exits).toEqual([INTERRUPTED_EXIT_CODE]);
    expect(p.said.at(-1)).toContain(
      "Run next:\n  pulumi-remote-browser-run cancel --stack pr-1\n  pulumi-remote-browser-run refresh --stack pr-1 --clear-pending-creates\nthen the same command again.",
    );
  });
});

describe("inTerminalForeground", () => {
  const stat = (pgrp: number, tty: number, tpgid: number) => `123 (node (runner)) S 100 ${pgrp} 100 ${tty} ${tpgid} 4194304 1 2 3`;
  it("is true only in the foreground process group of a terminal", () => {
    expect(inTerminalForeground(() => stat(123, 34816, 123))).toBe(true);
    expect(inTerminalForeground(() => stat(123, 34816, 999))).toBe(false); // in the background
    expect(inTerminalForeground(() => stat(123, 0, -1))).toBe(false); // no terminal (CI)
  });
});
