import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RemoteBrowserError, type RemoteBrowserClient } from "../../client";
import { DEFAULT_RETRY_POLICY, retryDecision } from "../../client/transport";
import { createWhenCapacity, generationKey, successorKey, DEFAULT_POLL_SCHEDULE, nextPollDelay, waitForRunning } from "../../core/launch";
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

type CapacityWaitOptions = Parameters<typeof createWhenCapacity>[0];

/** A capacity wait on a virtual clock; `over` names what a test changes (the request, the wait, the signs to stop). */
function waitOpts(
  client: RemoteBrowserClient,
  over: { request?: CapacityWaitOptions["create"]["request"]; waitMs?: number; onWaiting?: CapacityWaitOptions["onWaiting"]; engineAlive?: () => boolean; cancelled?: () => boolean } = {},
) {
  const clock = virtualClock();
  const { request = { browser: "chrome", idempotencyKey: "pr-7-chrome" }, waitMs = 60_000, onWaiting, ...stops } = over;
  const opts: CapacityWaitOptions = {
    client,
    create: { request },
    waitMs,
    waiting: { clock: { sleep: clock.sleep, now: clock.now, random: () => 0.5 }, engineAlive: () => true, ...stops },
    onWaiting,
  };
  return { clock, opts };
}

/** `opts` with the wait's pauses taken by `sleep`. */
const sleepingBy = (opts: CapacityWaitOptions, sleep: (ms: number) => Promise<void>): CapacityWaitOptions => ({
  ...opts,
  waiting: { ...opts.waiting, clock: { ...opts.waiting.clock, sleep } },
});

describe("createWhenCapacity", () => {
  it("waits for a free running slot and then starts one session under the same key", async () => {
    const held = await blocker();
    const client = t.client();
    const waiting: unknown[] = [];
    const { clock, opts } = waitOpts(client, { onWaiting: (q) => waiting.push(q) });
    let pauses = 0;
    const sleep = async (ms: number) => {
      expect(waiting, "the notice comes before the first pause").toHaveLength(1);
      await clock.sleep(ms);
      if (++pauses === 2) t.emu.control.endSession(held);
    };
    const answer = await createWhenCapacity(sleepingBy(opts, sleep));
    expect(answer.status).toBe("ok");
    // Refused twice at the limit, then let through: three creates, each under the one key.
    expect(creates().map((r) => r.status)).toEqual(["ok", "upgrade", "upgrade", "ok"]);
    expect(t.requests("quota")).toHaveLength(2);
    const mine = t.emu.control.sessions().filter((s) => s.browser === "chrome");
    expect(mine).toHaveLength(1);
    expect(mine[0]!.idempotencyKey).toBe("pr-7-chrome");
    // Told once, with the meter that showed the account full.
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ running_sessions_used: 1, running_session_limit: 1, running_sessions_remaining: 0 });
    // Growing, jittered pauses: 500 ms then 750 ms at the middle of the jitter.
    expect(clock.slept).toEqual([375, 563]);
  });

  it("fails at once on the limit without a wait, and never reads the meter", async () => {
    await blocker();
    const { opts } = waitOpts(t.client(), { waitMs: 0 });
    const err = await thrown(() => createWhenCapacity(opts));
    expect(err).toMatchObject({ code: "upgrade" });
    expect(t.requests("quota")).toHaveLength(0);
    expect(creates()).toHaveLength(2);
  });

  it("passes any other failure on without waiting", async () => {
    const { opts, clock } = waitOpts(t.client(), { request: { browser: "netscape", idempotencyKey: "k-1" } });
    const err = await thrown(() => createWhenCapacity(opts));
    expect(err).toBeInstanceOf(RemoteBrowserError);
    expect((err as RemoteBrowserError).code).not.toBe("upgrade");
    expect(t.requests("quota")).toHaveLength(0);
    expect(clock.slept).toEqual([]);
  });

  it("does not wait for a cycle limit that is used up: that refusal is final", async () => {
    t.emu.control.settings({ runningLimit: 5, cycleLimit: 1 });
    await blocker();
    const { opts, clock } = waitOpts(t.client());
    const err = await thrown(() => createWhenCapacity(opts));
    expect(err).toMatchObject({ code: "upgrade" });
    expect(t.requests("quota")).toHaveLength(1);
    expect(clock.slept).toEqual([]);
  });

  it("gives up on an upgrade refused twice while slots are free: it is another limit", async () => {
    t.emu.control.addAccount({ apiKey: "rb_test_no_residential_0000", residentialMb: null });
    const { opts, clock } = waitOpts(t.client({ apiKey: "rb_test_no_residential_0000" }), {
      request: { browser: "chrome", egress: "residential", country: "us", idempotencyKey: "k-2" },
    });
    const err = await thrown(() => createWhenCapacity(opts));
    expect(err).toMatchObject({ code: "upgrade" });
    expect(t.requests("create")).toHaveLength(2);
    expect(t.requests("quota")).toHaveLength(2);
    expect(clock.slept).toEqual([]);
  });

  it("gives up when no slot frees within the wait, saying how full the account is", async () => {
    await blocker();
    const { opts, clock } = waitOpts(t.client(), { waitMs: 3_000 });
    const err = await thrown(() => createWhenCapacity(opts));
    expect(err).toMatchObject({ code: "upgrade" });
    expect((err as Error).message).toContain(
      "no running slot became free within the 3 s capacity wait (1 of 1 running sessions in use; waitForCapacitySeconds)",
    );
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
    const { opts, clock } = waitOpts(t.client(), { engineAlive: () => alive });
    const sleep = async (ms: number) => {
      await clock.sleep(ms);
      alive = false;
    };
    const err = await thrown(() => createWhenCapacity(sleepingBy(opts, sleep)));
    expect((err as Error).message).toBe("the engine went away while waiting for a free running slot; no session was started");
    expect((err as { code?: string }).code).toBe("engine_gone");
    expect(creates()).toHaveLength(2);
    expect(t.emu.control.books().started).toBe(1);
  });

  it("stops waiting when the update is cancelled, starting nothing", async () => {
    await blocker();
    let cancelled = false;
    const { opts, clock } = waitOpts(t.client(), { cancelled: () => cancelled });
    const sleep = async (ms: number) => {
      await clock.sleep(ms);
      cancelled = true;
    };
    const err = await thrown(() => createWhenCapacity(sleepingBy(opts, sleep)));
    expect((err as Error).message).toBe("the update was cancelled while waiting for a free running slot; no session was started");
    expect((err as { code?: string }).code).toBe("cancelled");
    expect(creates()).toHaveLength(2);
    expect(t.emu.control.books().started).toBe(1);
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
    expect(generationKey("stack/app", undefined, { browser: "chrome", url: "https://a/" })).toBe(
      `prb-${sha('stack/app\n\n{"browser":"chrome","url":"https://a/"}').slice(0, 48)}`,
    );
    expect(generationKey("stack/app", "prb-old", { browser: "chrome" })).toBe(`prb-${sha('stack/app\nprb-old\n{"browser":"chrome"}').slice(0, 48)}`);
    expect(generationKey("stack/app", undefined, { browser: "chrome", url: null, country: undefined })).toBe(
      generationKey("stack/app", undefined, { browser: "chrome" }),
    );
  });

  it("walks a fixed chain of successors", () => {
    expect(successorKey("prb-a", 0)).toBe("prb-a");
    expect(successorKey("prb-a", 2)).toBe(`prb-${sha("prb-a#2").slice(0, 48)}`);
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
