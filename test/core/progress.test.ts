import { describe, expect, it } from "vitest";
import { type SessionEntry } from "../../client";
import { type WaitProgress, queueText, sessionName, waitText, DEFAULT_POLL_SCHEDULE, waitForRunning } from "../../core/launch";
import { type Diagnostic, engineDiagnostics } from "../../engine-conventions/diagnostics";
import { useEmulator, virtualClock } from "../helpers/emulator";

/** A clock that moves only when the code under test sleeps. */
function fakeClock() {
  let t = 0;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    sleeps,
  };
}

function entry(status: SessionEntry["status"]): SessionEntry {
  return { id: "vm-1", status, name: "Google Chrome", created: "2026-11-23T00:00:00.000Z" };
}

/** Reports must come about once a second: never two within a second of each other. */
function expectPaced(times: number[]) {
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
}

describe("progress of the wait for running", () => {
  it("tells the time waited and the state about once a second, through long pauses too", async () => {
    const clock = fakeClock();
    const reports: Array<WaitProgress & { at: number }> = [];
    const outcome = await waitForRunning({
      client: { session: async () => entry(clock.now() >= 12_000 ? "running" : "starting") },
      vmId: "vm-1",
      timeoutMs: 60_000,
      waiting: { clock },
      onProgress: (p) => {
        reports.push({ ...p, at: clock.now() });
      },
    });
    expect(outcome.kind).toBe("running");
    // The last report is the outcome, so that the row does not keep saying "starting".
    const last = reports.pop()!;
    expect(last).toMatchObject({ state: "running", done: true });
    expect(last.waitedMs).toBeGreaterThanOrEqual(12_000);
    expect(waitText(last)).toBe(`running after ${Math.floor(last.waitedMs / 1000)}s`);
    expectPaced(reports.map((r) => r.at));
    // Polls about 2 s apart by then, yet a report at most 2 s after the previous one through the 12 s
    // (a report waits for the next 1 s slice of a sleep that started mid-second).
    const gaps = reports.map((r, i) => r.at - (i === 0 ? 0 : reports[i - 1]!.at));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(2_000);
    expect(reports.length).toBeGreaterThanOrEqual(8);
    expect(reports.at(-1)!.waitedMs).toBeGreaterThanOrEqual(11_000);
    expect(reports.every((r) => r.state === "starting" && r.waitedMs === r.at && !r.done)).toBe(true);
    expect(waitText(reports[3]!)).toBe(`starting: ${Math.floor(reports[3]!.waitedMs / 1000)}s waited (state starting)`);
    expect(waitText({ waitedMs: 7_900, state: "error", done: true })).toBe("state error after 7s");
  });

  it("polls on the same schedule with or without a progress callback", async () => {
    const polls = async (withProgress: boolean) => {
      const clock = fakeClock();
      const at: number[] = [];
      await waitForRunning({
        client: {
          session: async () => {
            at.push(clock.now());
            return entry(clock.now() >= 20_000 ? "running" : "starting");
          },
        },
        vmId: "vm-1",
        timeoutMs: 60_000,
        looks: { schedule: DEFAULT_POLL_SCHEDULE },
        waiting: { clock },
        onProgress: withProgress ? () => undefined : undefined,
      });
      return { at, sleeps: clock.sleeps };
    };
    const plain = await polls(false);
    const told = await polls(true);
    expect(told.at).toEqual(plain.at);
    expect(plain.sleeps.some((ms) => ms > 1000)).toBe(true);
    expect(told.sleeps.every((ms) => ms <= 1000)).toBe(true);
  });

  it("delivers the outcome's line before it returns, and survives its failure", async () => {
    const clock = fakeClock();
    const order: string[] = [];
    const outcome = await waitForRunning({
      client: { session: async () => entry(clock.now() >= 2_500 ? "running" : "starting") },
      vmId: "vm-1",
      timeoutMs: 60_000,
      waiting: { clock },
      onProgress: async (p) => {
        if (!p.done) return;
        await new Promise((r) => setTimeout(r, 50));
        order.push("delivered");
        throw new Error("engine gone");
      },
    });
    order.push("returned");
    expect(outcome.kind).toBe("running");
    expect(order).toEqual(["delivered", "returned"]);
  });

  it("keeps waiting when the progress callback throws", async () => {
    const clock = fakeClock();
    const outcome = await waitForRunning({
      client: { session: async () => entry(clock.now() >= 3_000 ? "running" : "starting") },
      vmId: "vm-1",
      timeoutMs: 60_000,
      waiting: { clock },
      onProgress: () => {
        throw new Error("display broken");
      },
    });
    expect(outcome.kind).toBe("running");
  });
});

describe("progress of the capacity wait", () => {
  const t = useEmulator({ runningLimit: 4 });
  const QUEUED = /^queued for capacity: (\d+)\/(\d+) slots in use, (\d+)s queued$/;

  it("tells slots in use, the limit and the time queued about once a second until a slot is free", async () => {
    const blockers: string[] = [];
    for (let i = 0; i < 4; i++) blockers.push((await t.client().createSession({ browser: "edge" })).vmId);
    const clock = virtualClock();
    const start = clock.now();
    // A slot frees once 12 s have passed on the provider's clock.
    const sleep = async (ms: number) => {
      await clock.sleep(ms);
      if (clock.now() - start >= 12_000 && t.emu.control.sessions().find((s) => s.vmId === blockers[0])!.status === "running") t.emu.control.endSession(blockers[0]!);
    };
    const reports: Array<{ queuedS: number; runningUsed: number; runningLimit: number; at: number }> = [];
    const diagnostics = {
      warning: async () => undefined,
      status: async (_urn: string | undefined, message: string) => {
        const m = QUEUED.exec(message);
        if (m) reports.push({ runningUsed: Number(m[1]), runningLimit: Number(m[2]), queuedS: Number(m[3]), at: clock.now() });
      },
    };
    const { id, outs } = await t.provider({ deps: { clock: { ...clock, sleep }, diagnostics } }).create({ browser: "chrome", waitForCapacitySeconds: 60, __seed: "review/pr-7/pr-7-chrome" });
    expect(outs).toMatchObject({ vmId: id, status: "running" });
    expect(blockers).not.toContain(id);
    expectPaced(reports.map((r) => r.at));
    expect(reports.length).toBeGreaterThanOrEqual(9);
    expect(reports.every((r) => r.runningUsed === 4 && r.runningLimit === 4)).toBe(true);
    // Whole seconds in the line: 10 s or more queued.
    expect(reports.at(-1)!.queuedS).toBeGreaterThanOrEqual(10);
    expect(queueText({ queuedMs: 12_400, runningUsed: 4, runningLimit: 4 })).toBe("queued for capacity: 4/4 slots in use, 12s queued");
  });
});

describe("progress on the session's own row (provider against the emulator)", () => {
  const t = useEmulator();
  const URN = "urn:pulumi:pr-7::review::pulumi-nodejs:dynamic/remote-browser:BrowserSession::pr-7-chrome";

  /** What reaches the engine's Log channel: the provider reports through the engine's diagnostics. */
  function recording() {
    const seen: Diagnostic[] = [];
    return { seen, diagnostics: engineDiagnostics({ channel: async (d) => void seen.push(d) }) };
  }

  /**
   * The provider's own time, moved by its sleeps; `at` runs once when that time has passed `ms` (an event
   * of the emulator: preparation released, a slot freed), before the provider looks again.
   */
  function providerClock(at: { ms: number; run: () => unknown }) {
    const clock = virtualClock();
    const start = clock.now();
    let done = false;
    const sleep = async (ms: number) => {
      await clock.sleep(ms);
      if (!done && clock.now() - start >= at.ms) {
        done = true;
        await at.run();
      }
    };
    return { ...clock, sleep };
  }

  it("sends status lines on the URN it was given while preparation runs", async () => {
    t.emu.control.preparation({ paused: true });
    const clock = providerClock({ ms: 2_800, run: () => t.emu.control.preparation({ paused: false }) });
    const { seen, diagnostics } = recording();
    await t.provider({ deps: { clock, diagnostics } }).create({ browser: "chrome", __seed: "review/pr-7/pr-7-chrome", __urn: URN });
    expect(seen.every((d) => d.urn === URN && d.ephemeral && d.severity === "info")).toBe(true);
    expect(seen.map((d) => d.message)).toEqual(["starting: 1s waited (state starting)", "starting: 2s waited (state starting)", "running after 2s"]);
  });

  it("sends none without a URN (a program of an earlier release)", async () => {
    t.emu.control.preparation({ paused: true });
    const clock = providerClock({ ms: 1_300, run: () => t.emu.control.preparation({ paused: false }) });
    const { seen, diagnostics } = recording();
    await t.provider({ deps: { clock, diagnostics } }).create({ browser: "chrome", __seed: "review/pr-7/old" });
    // Long enough for a status line, had there been a URN to put it on.
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1_300);
    expect(seen).toEqual([]);
  });

  it("puts the capacity warning, naming the session, and the queue's status lines on the waiting session", async () => {
    t.emu.control.settings({ runningLimit: 1, prepMs: 0 });
    const blocker = await t.client().createSession({ browser: "edge" });
    const clock = providerClock({ ms: 2_600, run: () => t.emu.control.endSession(blocker.vmId) });
    const { seen, diagnostics } = recording();
    await t.provider({ deps: { clock, diagnostics } }).create({ browser: "chrome", __seed: "review/pr-7/pr-7-chrome", __urn: URN, waitForCapacitySeconds: 30 });
    const warnings = seen.filter((d) => !d.ephemeral);
    expect(warnings).toEqual([
      {
        severity: "warning",
        urn: URN,
        ephemeral: false,
        message: `BrowserSession "pr-7-chrome": the account's running limit is reached (1 of 1); waiting up to 30 s for a free slot`,
      },
    ]);
    const queued = seen.filter((d) => d.ephemeral && d.message.startsWith("queued")).map((d) => d.message);
    expect(queued).toEqual(["queued for capacity: 1/1 slots in use, 1s queued", "queued for capacity: 1/1 slots in use, 2s queued"]);
    expect(seen.every((d) => d.urn === URN)).toBe(true);
    expect(sessionName(undefined)).toBe("BrowserSession");
  });
});
