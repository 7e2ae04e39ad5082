import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { FaultSpec } from "../../emulator";
import { RunFailed, withStack } from "./harness";
import type { E2EStack } from "./harness";

/**
 * The soak: one pull-request stack brought up and destroyed again and again while random faults hit
 * every operation. Sized by RELIABILITY_SOAK_CYCLES and RELIABILITY_SOAK_SESSIONS (sessions per up);
 * `npm run reliability` runs it at full size and writes its figures to .work/reliability/soak.json.
 */
const CYCLES = Number(process.env.RELIABILITY_SOAK_CYCLES ?? 2);
const SESSIONS = Number(process.env.RELIABILITY_SOAK_SESSIONS ?? 3);
const SEED = Number(process.env.RELIABILITY_SEED ?? 7);

/** Faults a cycle may draw; the transient ones must be ridden out. */
const MENU: Array<{ name: string; spec?: FaultSpec; failPreparation?: boolean; transient: boolean }> = [
  { name: "create error", spec: { operation: "create", kind: "error", count: 1 }, transient: true },
  { name: "create reset", spec: { operation: "create", kind: "reset", count: 1 }, transient: true },
  { name: "create lost answer", spec: { operation: "create", kind: "reset_after", count: 1 }, transient: true },
  { name: "create rate limited", spec: { operation: "create", kind: "rate_limited", count: 2 }, transient: true },
  { name: "status error", spec: { operation: "status", kind: "error", count: 2 }, transient: true },
  { name: "status reset", spec: { operation: "status", kind: "reset", count: 2 }, transient: true },
  { name: "status rate limited", spec: { operation: "status", kind: "rate_limited", count: 1 }, transient: true },
  { name: "image error", spec: { operation: "image", kind: "error", count: 1 }, transient: true },
  { name: "account error", spec: { operation: "account", kind: "error", count: 1 }, transient: true },
  { name: "remove error", spec: { operation: "remove", kind: "error", count: 2 }, transient: true },
  { name: "remove reset", spec: { operation: "remove", kind: "reset", count: 1 }, transient: true },
  { name: "remove lost answer", spec: { operation: "remove", kind: "reset_after", count: 1 }, transient: true },
  { name: "failed preparation", failPreparation: true, transient: false },
];

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function recorded(stack: E2EStack): Promise<string[]> {
  const exported = JSON.parse(await stack.exportState());
  return (exported.deployment.resources ?? []).filter((r: { type: string }) => r.type.endsWith(":BrowserSession")).map((r: { id: string }) => r.id);
}

describe("soak", () => {
  it(`survives ${CYCLES} up/destroy cycles of ${SESSIONS} sessions under random faults with nothing lost`, async () => {
    const random = rng(SEED);
    const started = Date.now();
    const tally = {
      cycles: CYCLES,
      sessionsPerUp: SESSIONS,
      seed: SEED,
      faultsInjected: {} as Record<string, number>,
      upsFailed: 0,
      upFailures: {} as Record<string, number>,
      destroysFailed: 0,
      /** Drawn faults an operation that went through never met: a fault that does not fire tests nothing. */
      faultsNotFired: 0,
      transientFaultsNotRiddenOut: 0,
      sessionsRecorded: 0,
      orphansAfterAnUp: 0,
      sessionsStarted: 0,
      sessionsThatNeverRan: 0,
      sessionsLeftRunning: 0,
      duplicates: 0,
      seconds: 0,
    };
    const everRecorded = new Set<string>();
    await withStack("sessions.js", async (stack) => {
      const control = stack.emulator.control;
      const config = { count: String(SESSIONS), "remote-browser:requestTimeoutSeconds": "2" };
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const drawn = MENU.filter(() => random() < 0.2);
        let permanent = false;
        for (const f of drawn) {
          tally.faultsInjected[f.name] = (tally.faultsInjected[f.name] ?? 0) + 1;
          if (f.failPreparation) control.preparation({ failNext: 1 });
          else if (f.spec!.operation !== "remove") control.fault(f.spec!);
          permanent ||= !f.transient;
        }
        const up = await stack.run("up", { config, extraArgs: ["--quiet"] }).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (up) {
          tally.upsFailed++;
          const text = up instanceof RunFailed ? up.stdout + up.stderr : String(up);
          const cause = /could not start/.test(text) ? "preparation failed (session ended)" : "other";
          tally.upFailures[cause] = (tally.upFailures[cause] ?? 0) + 1;
          if (!permanent) tally.transientFaultsNotRiddenOut++;
          control.clearFaults();
          await stack.run("up", { config, extraArgs: ["--quiet"] }); // the pipeline's retry
        } else tally.faultsNotFired += control.faults().length;
        const ids = await recorded(stack);
        ids.forEach((id) => everRecorded.add(id));
        tally.sessionsRecorded += ids.length;
        // After every up: each session the service is running is one the stack recorded.
        const live = control.sessions().filter((s) => s.status === "running" || s.status === "starting");
        tally.orphansAfterAnUp += live.filter((s) => !ids.includes(s.vmId)).length;

        control.clearFaults();
        for (const f of drawn) if (f.spec?.operation === "remove") control.fault(f.spec);
        const destroyed = await stack.run("destroy", { extraArgs: ["--quiet"] }).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (!destroyed) tally.faultsNotFired += control.faults().length;
        if (destroyed) {
          tally.destroysFailed++;
          control.clearFaults();
          await stack.run("destroy", { extraArgs: ["--quiet"] });
        }
        control.clearFaults();
      }
      const books = control.books();
      tally.sessionsStarted = books.started;
      tally.sessionsLeftRunning = books.neverEnded;
      // Sessions whose preparation failed never ran; the provider ended them and the up failed.
      tally.sessionsThatNeverRan = control.sessions().filter((s) => s.runningAt === null).length;
      // A duplicate is a session that ran without ever being recorded by the stack.
      tally.duplicates = control.sessions().filter((s) => s.runningAt !== null && !everRecorded.has(s.vmId)).length;
    });
    tally.seconds = Math.round((Date.now() - started) / 1000);

    const out = path.resolve(__dirname, "..", "..", ".work", "reliability");
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, "soak.json"), JSON.stringify(tally, null, 2));
    process.stdout.write(`\nsoak: ${JSON.stringify(tally)}\n`);

    expect(tally.sessionsLeftRunning).toBe(0);
    expect(tally.orphansAfterAnUp).toBe(0);
    expect(tally.duplicates).toBe(0);
    expect(tally.transientFaultsNotRiddenOut).toBe(0);
    // Every fault drawn for a destroy is transient: each must be ridden out, never left for a second destroy.
    expect(tally.destroysFailed).toBe(0);
    expect(tally.faultsNotFired).toBe(0);
    // Not vacuous: faults were drawn, for the destroys too.
    expect(Object.keys(tally.faultsInjected).some((name) => name.startsWith("remove"))).toBe(true);
    expect(tally.sessionsRecorded).toBe(CYCLES * SESSIONS);
    expect(tally.sessionsStarted).toBe(everRecorded.size + tally.sessionsThatNeverRan);
  });
});
