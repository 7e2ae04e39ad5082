import { describe, expect, it } from "vitest";
import { thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

describe("network faults", () => {
  it("retries a status read whose connection was reset before an answer", async () => {
    const client = t.client();
    const { vmId } = await client.createSession({ browser: "chrome" });
    t.emu.control.fault({ operation: "status", kind: "reset", count: 2 });
    const entry = await client.session(vmId);
    expect(entry?.name).toBe("Google Chrome");
    expect(t.requests("status").map((r) => [r.httpStatus, r.fault ?? null])).toEqual([
      [0, "reset"],
      [0, "reset"],
      [200, null],
    ]);
    expect(t.backoff).toHaveLength(2);
  });

  it("reports a reset that persists as a network failure after maxAttempts", async () => {
    t.emu.control.fault({ operation: "quota", kind: "reset", count: 10 });
    const err = await thrown(() => t.client({ retry: { maxAttempts: 4 } }).quota());
    expect(err).toMatchObject({ code: "network", operation: "read quota" });
    expect(err.message).toContain(t.emu.origin);
    expect(t.requests("quota")).toHaveLength(4);
  });

  it("retries a create whose answer was lost, under the same idempotency key: exactly one session starts", async () => {
    t.emu.control.fault({ operation: "create", kind: "reset_after", count: 1 });
    const answer = await t.client().createSession({ browser: "chrome", idempotencyKey: "lost-answer" });
    expect(t.requests("create").map((r) => r.httpStatus)).toEqual([0, 200]);
    const books = t.emu.control.books();
    expect(books.started).toBe(1);
    expect(books.idempotentReplays).toBeGreaterThanOrEqual(1);
    expect(t.emu.control.sessions().map((s) => s.vmId)).toEqual([answer.vmId]);
  });

  it("never retries a v7 create (it has no idempotency key), whatever the failure", async () => {
    const client = t.client();
    t.emu.control.fault({ operation: "v7create", kind: "reset_after", count: 5 });
    const lost = await thrown(() => client.v7.createSession({ browser: "chrome" }));
    expect(lost).toMatchObject({ code: "network", operation: "create session (v7)" });
    expect(t.requests("v7create")).toHaveLength(1);
    // The service did start it: a retry would have started a second one.
    expect(t.emu.control.books().started).toBe(1);

    t.emu.control.clearFaults();
    t.emu.control.fault({ operation: "v7create", kind: "error", count: 5 });
    const refused = await thrown(() => client.v7.createSession({ browser: "chrome" }));
    expect(refused).toMatchObject({ code: "service" });
    expect(t.requests("v7create")).toHaveLength(2);
    expect(t.backoff).toEqual([]);
  });
});

describe("timeouts", () => {
  it("times out a slow attempt and retries it", async () => {
    // The time-out is far below the late answer, and far above what a normal answer takes even when the
    // e2e engines load both cores (a 150 ms time-out once timed out the retry as well).
    t.emu.control.fault({ operation: "quota", kind: "delay", delayMs: 10_000, count: 1 });
    const events: string[] = [];
    const client = t.client({ attemptTimeoutMs: 2_000 });
    client.transport.onAttempt = (e) => events.push(e.outcome);
    const quota = await client.quota();
    expect(quota.status).toBe("ok");
    expect(events).toEqual(["timeout", "ok"]);
    expect(t.backoff).toHaveLength(1);
    // The books count calls as they arrive (the log records the slow one only when it is answered).
    expect(t.emu.control.books().quotaCalls).toBe(2);
    expect(t.requests("quota").map((r) => r.status)).toEqual(["ok"]);
  });

  it("reports code timeout when every attempt is too slow", async () => {
    t.emu.control.fault({ operation: "quota", kind: "delay", delayMs: 120, count: 10 });
    const client = t.client({ attemptTimeoutMs: 30, retry: { maxAttempts: 3 } });
    const err = await thrown(() => client.quota());
    expect(err).toMatchObject({ code: "timeout", operation: "read quota" });
    expect(err.message).toContain("no answer within 30 ms");
    expect(t.backoff).toHaveLength(2);
  });

  it("stops at the overall deadline, even while an attempt is still waiting", async () => {
    t.emu.control.fault({ operation: "quota", kind: "delay", delayMs: 5_000, count: 1 });
    const client = t.client({ attemptTimeoutMs: 10_000, deadlineMs: 100 });
    const started = Date.now();
    const err = await thrown(() => client.quota());
    expect(err).toMatchObject({ code: "timeout" });
    expect(err.message).toContain("100 ms deadline");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(t.backoff).toEqual([]);
  });

  it("does not start another attempt once the deadline has passed during a backoff wait", async () => {
    t.emu.control.fault({ operation: "quota", kind: "error", count: 10 });
    let waited = 0;
    // A backoff wait that lasts until the overall deadline aborts it.
    const sleep = (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        waited += ms;
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    const err = await thrown(() => t.client({ deadlineMs: 300, sleep }).quota());
    expect(err).toMatchObject({ code: "timeout" });
    expect(err.message).toMatch(/300 ms deadline after 1 attempt/);
    expect(waited).toBeGreaterThan(0);
    expect(t.requests("quota")).toHaveLength(1);
  });
});
