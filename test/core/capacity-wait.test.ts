import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RemoteBrowserError, type QuotaAnswer } from "../../client";
import { DEFAULT_RETRY_POLICY, retryDecision } from "../../client/transport";
import { capacityStep, capacityWait, endingMakesRoom, generationKey, keyAfter, DEFAULT_POLL_SCHEDULE, nextPollDelay, waitForRunning } from "../../core/launch";
import { eventually, thrown, useEmulator, virtualClock } from "../helpers/emulator";

/**
 * The capacity wait, the status wait's deadline, the idempotency keys and the delete path, against the
 * emulator with a virtual clock: what the service sees (calls, keys, sessions) is the behaviour checked.
 */
const t = useEmulator({ runningLimit: 1 });

const creates = () => t.requests("create");

async function blocker(): Promise<string> {
  const a = await t.client().createSession({ browser: "edge" });
  return a.vmId;
}

/**
 * A create that waits for capacity on a virtual clock (createV8's attempts under one key); `over` names
 * what a test changes: the inputs, the account's key, the signs to stop, and what happens after each of
 * the provider's sleeps (the capacity wait's pauses, and the poll's once a session started).
 */
function waiter(over: { inputs?: Record<string, unknown>; apiKey?: string; engineAlive?: () => boolean; afterSleep?: (ms: number) => unknown } = {}) {
  const clock = virtualClock();
  const sleep = async (ms: number) => {
    await clock.sleep(ms);
    await over.afterSleep?.(ms);
  };
  const provider = t.provider({ apiKey: over.apiKey, deps: { clock: { ...clock, sleep }, engineAlive: over.engineAlive ?? (() => true) } });
  const inputs = { browser: "chrome", idempotencyKey: "pr-7-chrome", waitForCapacitySeconds: 60, ...over.inputs };
  return { clock, provider, create: () => provider.create(inputs) };
}

const WAITING_60 = `BrowserSession: the account's running limit is reached (1 of 1); waiting up to 60 s for a free slot`;

describe("the capacity wait (createV8's attempts under one key)", () => {
  it("waits for a free running slot and then starts one session under the same key", async () => {
    const held = await blocker();
    let pauses = 0;
    const { clock, create } = waiter({
      afterSleep: () => {
        expect(t.warnings, "the notice comes before the first pause").toHaveLength(1);
        if (++pauses === 2) t.emu.control.endSession(held);
      },
    });
    const { outs } = await create();
    expect(outs.status).toBe("running");
    // Refused twice at the limit, then let through: three creates, each under the one key.
    expect(creates().map((r) => r.status)).toEqual(["ok", "upgrade", "upgrade", "ok"]);
    expect(t.requests("quota")).toHaveLength(2);
    const mine = t.emu.control.sessions().filter((s) => s.browser === "chrome");
    expect(mine).toHaveLength(1);
    expect(mine[0]!.idempotencyKey).toBe("pr-7-chrome");
    // Told once, with the meter that showed the account full.
    expect(t.warnings).toEqual([WAITING_60]);
    // Growing, jittered pauses: 500 ms then 750 ms at the middle of the jitter (then the poll's sleeps).
    expect(clock.slept.slice(0, 2)).toEqual([375, 563]);
  });

  it("fails at once on the limit without a wait, and never reads the meter", async () => {
    await blocker();
    const { create } = waiter({ inputs: { waitForCapacitySeconds: 0 } });
    const err = await thrown(create);
    expect(err).toMatchObject({ code: "upgrade" });
    expect(t.requests("quota")).toHaveLength(0);
    expect(creates()).toHaveLength(2);
  });

  it("passes any other failure on without waiting", async () => {
    const { create, clock } = waiter({ inputs: { browser: "netscape", idempotencyKey: "k-1" } });
    const err = await thrown(create);
    expect(err).toBeInstanceOf(RemoteBrowserError);
    expect((err as RemoteBrowserError).code).not.toBe("upgrade");
    expect(t.requests("quota")).toHaveLength(0);
    expect(clock.slept).toEqual([]);
  });

  it("does not wait for a cycle limit that is used up: that refusal is final", async () => {
    t.emu.control.settings({ runningLimit: 5, cycleLimit: 1 });
    await blocker();
    const { create, clock } = waiter();
    const err = await thrown(create);
    expect(err).toMatchObject({ code: "upgrade" });
    expect(t.requests("quota")).toHaveLength(1);
    expect(clock.slept).toEqual([]);
  });

  it("gives up on an upgrade refused twice while slots are free: it is another limit", async () => {
    t.emu.control.addAccount({ apiKey: "rb_test_no_residential_0000", residentialMb: null });
    const { create, clock } = waiter({
      apiKey: "rb_test_no_residential_0000",
      inputs: { browser: "chrome", egress: "residential", country: "us", idempotencyKey: "k-2" },
    });
    const err = await thrown(create);
    expect(err).toMatchObject({ code: "upgrade" });
    expect(t.requests("create")).toHaveLength(2);
    expect(t.requests("quota")).toHaveLength(2);
    expect(clock.slept).toEqual([]);
  });

  it("gives up when no slot frees within the wait, saying how full the account is", async () => {
    await blocker();
    const { create, clock } = waiter({ inputs: { waitForCapacitySeconds: 3 } });
    const err = await thrown(create);
    expect(err).toMatchObject({ code: "upgrade" });
    expect((err as Error).message).toContain("no running slot became free within the 3 s capacity wait (1 of 1 running sessions in use; waitForCapacitySeconds)");
    const waited = clock.slept.reduce((a, b) => a + b, 0);
    expect(waited).toBeLessThanOrEqual(3_000);
    expect(clock.slept.length).toBeGreaterThan(2);
    // Each pause is the growing step, jittered to between half and all of it, and at most 5 s.
    clock.slept.forEach((ms, i) => {
      const step = Math.min(5_000, 500 * 1.5 ** i);
      expect(ms).toBe(Math.round(step * 0.75));
    });
  });

  it("stops waiting when the engine goes away, starting nothing", async () => {
    await blocker();
    let alive = true;
    const { create } = waiter({ engineAlive: () => alive, afterSleep: () => void (alive = false) });
    const err = await thrown(create);
    expect((err as Error).message).toBe("the engine went away while waiting for a free running slot; no session was started");
    expect((err as { code?: string }).code).toBe("engine_gone");
    expect(creates()).toHaveLength(2);
    expect(t.emu.control.books().started).toBe(1);
  });

  it("stops waiting when the update is cancelled, starting nothing", async () => {
    await blocker();
    const { create, provider } = waiter({ afterSleep: () => provider.ctx.cancel() });
    const err = await thrown(create);
    expect((err as Error).message).toBe("the update was cancelled while waiting for a free running slot; no session was started");
    expect((err as { code?: string }).code).toBe("cancelled");
    expect(creates()).toHaveLength(2);
    expect(t.emu.control.books().started).toBe(1);
  });
});

describe("what an upgrade refusal means (capacityStep, endingMakesRoom)", () => {
  const refusal = new RemoteBrowserError("upgrade", "running session limit reached (4 of 4)", { operation: "create session", serverMessage: "limit" });
  const meter = (over: Partial<QuotaAnswer> = {}): QuotaAnswer =>
    ({
      status: "ok",
      running_session_limit: 4,
      running_sessions_used: 4,
      running_sessions_remaining: 0,
      cycle_session_limit: null,
      cycle_sessions_used: 10,
      cycle_sessions_remaining: null,
      cycle_start: "2026-11-01",
      ...over,
    }) as QuotaAnswer;
  const at = (now: number, random = 0.5) => ({ now: () => now, random: () => random });
  const step = (quota: QuotaAnswer | undefined, wait = capacityWait(0), now = 0, waitMs = 60_000) => capacityStep({ refusal, quota, wait, waitMs, clock: at(now) });

  it("is final with no wait, or with the cycle used up: the refusal itself is thrown", () => {
    expect(step(undefined)).toEqual({ kind: "final", error: refusal });
    expect(step(meter(), capacityWait(0), 0, 0)).toEqual({ kind: "final", error: refusal });
    expect(step(meter({ cycle_session_limit: 10, cycle_sessions_remaining: 0 }))).toEqual({ kind: "final", error: refusal });
    // A cycle limit with sessions left is waited out like no cycle limit.
    expect(step(meter({ cycle_session_limit: 10, cycle_sessions_remaining: 1 })).kind).toBe("pause");
  });

  it("tries again at once when the meter shows room, and gives up the second time in a row", () => {
    const once = step(meter({ running_sessions_used: 3, running_sessions_remaining: 1 }));
    expect(once).toEqual({ kind: "again", wait: { startedAt: 0, pauses: 0, refusedWithRoom: 1 } });
    expect(step(meter({ running_sessions_remaining: 1 }), { startedAt: 0, pauses: 0, refusedWithRoom: 1 })).toEqual({ kind: "final", error: refusal });
    // A full meter in between starts the count again.
    const paused = step(meter(), { startedAt: 0, pauses: 0, refusedWithRoom: 1 });
    expect(paused).toMatchObject({ kind: "pause", wait: { refusedWithRoom: 0 } });
  });

  it("pauses a growing, jittered step, at most 5 s, telling the first pause and the meter", () => {
    expect(step(meter())).toEqual({ kind: "pause", ms: 375, first: true, quota: meter(), wait: { startedAt: 0, pauses: 1, refusedWithRoom: 0 } });
    expect(step(meter(), { startedAt: 0, pauses: 1, refusedWithRoom: 0 })).toMatchObject({ ms: 563, first: false, wait: { pauses: 2 } });
    expect(step(meter(), { startedAt: 0, pauses: 9, refusedWithRoom: 0 })).toMatchObject({ ms: 3_750 });
    // Jitter: between half and all of the step.
    expect(capacityStep({ refusal, quota: meter(), wait: capacityWait(0), waitMs: 60_000, clock: at(0, 0) })).toMatchObject({ ms: 250 });
    expect(capacityStep({ refusal, quota: meter(), wait: capacityWait(0), waitMs: 60_000, clock: at(0, 0.999_999) })).toMatchObject({ ms: 500 });
  });

  it("gives up when the pause would pass the wait's deadline, counted from its first create, saying how full the account is", () => {
    expect(step(meter(), capacityWait(1_000), 60_625)).toMatchObject({ kind: "pause", ms: 375 });
    const late = step(meter(), capacityWait(1_000), 60_626);
    expect(late.kind).toBe("final");
    const { error } = late as { error: RemoteBrowserError };
    expect(error).toMatchObject({ code: "upgrade", serverMessage: "limit", cause: refusal });
    expect(error.message).toContain("no running slot became free within the 60 s capacity wait (4 of 4 running sessions in use; waitForCapacitySeconds)");
  });

  it("makes room by ending the session being replaced only when the running limit alone stands in the way", () => {
    expect(endingMakesRoom(meter())).toBe(true);
    expect(endingMakesRoom(meter({ cycle_session_limit: 10, cycle_sessions_remaining: 2 }))).toBe(true);
    expect(endingMakesRoom(meter({ running_sessions_remaining: 1 }))).toBe(false);
    expect(endingMakesRoom(meter({ cycle_session_limit: 10, cycle_sessions_remaining: 0 }))).toBe(false);
  });
});

describe("waitForRunning at its deadline", () => {
  it("reports a timeout without a look when no time is left", async () => {
    const vmId = await blocker();
    const clock = virtualClock();
    const outcome = await waitForRunning({ client: t.client(), vmId, timeoutMs: 0, waiting: { clock } });
    expect(outcome).toEqual({ kind: "timeout", last: undefined, polls: 0 });
    expect(t.requests("status")).toHaveLength(0);
  });

  it("looks at once with pollFirst, then waits no longer than the time left", async () => {
    t.emu.control.preparation({ paused: true });
    const vmId = await blocker();
    const clock = virtualClock();
    const outcome = await waitForRunning({ client: t.client(), vmId, timeoutMs: 1_000, looks: { pollFirst: true }, waiting: { clock } });
    expect(outcome).toMatchObject({ kind: "timeout", last: "starting" });
    expect(clock.slept[0]).toBe(225); // the default schedule's first look
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(t.requests("status").length).toBe(outcome.polls);
    expect(outcome.polls).toBe(clock.slept.length + 1);
  });
});

describe("waitForRunning's looks", () => {
  it("looks after 225 ms, then every 450 ms, then every sixth of the time waited, at most every 5 s", () => {
    expect(DEFAULT_POLL_SCHEDULE).toEqual({ firstDelayMs: 225, minIntervalMs: 450, growth: 0.1667, maxIntervalMs: 5_000 });
    expect(nextPollDelay(0, DEFAULT_POLL_SCHEDULE)).toBe(225);
    expect(nextPollDelay(1_000, DEFAULT_POLL_SCHEDULE)).toBe(450);
    expect(nextPollDelay(10_000, DEFAULT_POLL_SCHEDULE)).toBe(1_667);
    expect(nextPollDelay(100_000, DEFAULT_POLL_SCHEDULE)).toBe(5_000);
  });

  it("waits before its first look unless told to look at once, and counts its looks", async () => {
    const vmId = await blocker();
    await eventually(() => t.emu.control.sessions()[0]!.status === "running");
    const later = virtualClock();
    const waited = await waitForRunning({ client: t.client(), vmId, timeoutMs: 60_000, waiting: { clock: later } });
    expect(waited).toMatchObject({ kind: "running", polls: 1 });
    expect(later.slept).toEqual([225]); // the default schedule's first step
    const atOnce = virtualClock();
    const looked = await waitForRunning({ client: t.client(), vmId, timeoutMs: 60_000, looks: { pollFirst: true }, waiting: { clock: atOnce } });
    expect(looked).toMatchObject({ kind: "running", polls: 1 });
    expect(atOnce.slept).toEqual([]);
    expect(t.requests("status")).toHaveLength(2);
  });

  it("reports a session the service does not know", async () => {
    const clock = virtualClock();
    const outcome = await waitForRunning({ client: t.client(), vmId: "vm-000000000000", timeoutMs: 60_000, looks: { pollFirst: true }, waiting: { clock } });
    expect(outcome).toEqual({ kind: "unknown", polls: 1 });
  });
});

describe("idempotency keys", () => {
  const sha = (s: string) => createHash("sha256").update(s).digest("hex");

  // Fixed values: a key must come out the same in the next release too, or a `pulumi up` interrupted
  // before an upgrade would start a second session after it.
  it("derives a generation's key from the seed, the key it replaces and the API inputs", () => {
    expect(generationKey({ seed: "stack/app", inputs: { browser: "chrome", url: "https://a/" } })).toBe(`prb-${sha('stack/app\n\n{"browser":"chrome","url":"https://a/"}').slice(0, 48)}`);
    expect(generationKey({ seed: "stack/app", previousKey: "prb-old", inputs: { browser: "chrome" } })).toBe(`prb-${sha('stack/app\nprb-old\n{"browser":"chrome"}').slice(0, 48)}`);
    expect(generationKey({ seed: "stack/app", inputs: { browser: "chrome", url: null, country: undefined } })).toBe(generationKey({ seed: "stack/app", inputs: { browser: "chrome" } }));
  });

  it("steps from a key to the next by the session it answered with", () => {
    expect(keyAfter("prb-a", "vm-1")).toBe(`prb-${sha("prb-a#vm-1").slice(0, 48)}`);
  });
});

describe("retry decisions say why they stop", () => {
  const base = { attempt: 1, elapsedMs: 0, idempotent: true, policy: DEFAULT_RETRY_POLICY, random: 0 };
  const err = (code: RemoteBrowserError["code"]) => new RemoteBrowserError(code, "x", { operation: "op" });

  it("names the final refusal, the failed security check and the local error", () => {
    expect(retryDecision({ ...base, error: err("denied") })).toEqual({ retry: false, why: "denied is final" });
    expect(retryDecision({ ...base, error: err("upgrade") })).toEqual({ retry: false, why: "upgrade is final" });
    expect(retryDecision({ ...base, error: err("insecure") })).toEqual({ retry: false, why: "security check failed" });
    expect(retryDecision({ ...base, error: err("invalid_answer") })).toEqual({ retry: false, why: "invalid_answer is not transient" });
  });
});

describe("delete, when the service refuses the end", () => {
  it("asks no status when the end failed for another reason than an unknown session", async () => {
    const vmId = await blocker();
    t.emu.control.fault({ operation: "remove", kind: "error", count: 50 });
    const err = await thrown(() => t.provider().delete(vmId, { vmId, apiVersion: "v8" }));
    expect((err as Error).message).toMatch(/stays in the stack/);
    expect(t.requests("status")).toHaveLength(0);
  });

  it("keeps a session the service refuses to end but still knows", async () => {
    const vmId = await blocker();
    // A refusal (denied) for a session the status operation still shows: not gone, so it stays.
    const provider = t.provider({
      deps: {
        clientFor: () => {
          const c = t.client();
          c.removeSession = async () => {
            throw new RemoteBrowserError("denied", "refused", { operation: "end session" });
          };
          return c;
        },
      },
    });
    const err = await thrown(() => provider.delete(vmId, { vmId, apiVersion: "v8" }));
    expect((err as Error).message).toMatch(/stays in the stack/);
    expect(t.requests("status")).toHaveLength(1);
    expect(t.emu.control.sessions()[0]!.status).toMatch(/^(starting|running)$/);
  });
});
