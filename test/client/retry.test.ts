import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, RemoteBrowserError, backoffDelay, retryDecision } from "../../client";
import type { ErrorCode, RetryInput, RetryPolicy } from "../../client";

const POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxElapsedMs: 10_000 };

function failure(code: ErrorCode, extra: { reason?: string; retryAfterMs?: number } = {}): RemoteBrowserError {
  return new RemoteBrowserError(code, "test failure", { operation: "test", ...extra });
}

function decide(error: RemoteBrowserError, over: Partial<RetryInput> = {}) {
  return retryDecision({ error, attempt: 1, elapsedMs: 0, idempotent: true, policy: POLICY, random: 0.5, ...over });
}

const rateLimited = () => failure("rate_limited", { reason: "rate_limited" });

describe("retryDecision", () => {
  const final: [string, () => RemoteBrowserError][] = [
    ["denied", () => failure("denied")],
    ["upgrade", () => failure("upgrade")],
    ["insecure with a reason other than rate_limited", () => failure("insecure", { reason: "suspicious_request" })],
    ["insecure without a reason", () => failure("insecure")],
    ["invalid_answer", () => failure("invalid_answer")],
    ["invalid_request", () => failure("invalid_request")],
    ["insecure_transport", () => failure("insecure_transport")],
    ["configuration", () => failure("configuration")],
  ];
  for (const [name, make] of final) {
    it(`never retries ${name}, even for an idempotent call on its first attempt`, () => {
      const decision = decide(make());
      expect(decision.retry).toBe(false);
    });
  }

  const transient: [string, () => RemoteBrowserError][] = [
    ["a service error", () => failure("service")],
    ["a network failure", () => failure("network")],
    ["a timeout", () => failure("timeout")],
  ];
  for (const [name, make] of transient) {
    it(`retries ${name} when the call is idempotent`, () => {
      const decision = decide(make());
      expect(decision).toEqual({ retry: true, delayMs: backoffDelay(1, POLICY, 0.5) });
    });
    it(`never retries ${name} when the call is not idempotent`, () => {
      const decision = decide(make(), { idempotent: false });
      expect(decision.retry).toBe(false);
      if (!decision.retry) expect(decision.why).toMatch(/not idempotent/);
    });
  }

  describe("a refusal for the rate limit (no work was done)", () => {
    it("is retried even when the call is not idempotent: a create without a key starts nothing when refused", () => {
      expect(decide(rateLimited(), { idempotent: false }).retry).toBe(true);
    });

    it("is retried whatever the number of attempts, for as long as maxElapsedMs lasts", () => {
      expect(decide(rateLimited(), { attempt: POLICY.maxAttempts }).retry).toBe(true);
      expect(decide(rateLimited(), { attempt: 1_000, elapsedMs: POLICY.maxElapsedMs - 200 }).retry).toBe(true);
      const late = decide(rateLimited(), { attempt: 3, elapsedMs: POLICY.maxElapsedMs - 10 });
      expect(late.retry).toBe(false);
      if (!late.retry) expect(late.why).toContain(`${POLICY.maxElapsedMs} ms`);
    });

    it("is retried only within the call's own shorter budget (the engine's time-out for a create)", () => {
      expect(decide(rateLimited(), { attempt: 2, elapsedMs: 4_000, withinMs: 5_000 }).retry).toBe(true);
      const late = decide(rateLimited(), { attempt: 2, elapsedMs: 4_950, withinMs: 5_000 });
      expect(late.retry).toBe(false);
      if (!late.retry) expect(late.why).toContain("5000 ms");
      // A longer one does not stretch the policy's.
      expect(decide(rateLimited(), { elapsedMs: POLICY.maxElapsedMs - 10, withinMs: 10 * POLICY.maxElapsedMs }).retry).toBe(false);
    });

    it("waits a short moment without Retry-After: the request budget paces it with the other calls", () => {
      const d = decide(rateLimited(), { attempt: 9, random: 0.99 });
      expect(d.retry && d.delayMs).toBeLessThanOrEqual(100);
    });
  });

  it("stops once maxAttempts attempts were made", () => {
    expect(decide(failure("service"), { attempt: POLICY.maxAttempts - 1 }).retry).toBe(true);
    const last = decide(failure("service"), { attempt: POLICY.maxAttempts });
    expect(last.retry).toBe(false);
    if (!last.retry) expect(last.why).toContain(`${POLICY.maxAttempts} attempts`);
  });

  it("does not start a retry whose wait would pass maxElapsedMs", () => {
    const delay = backoffDelay(2, POLICY, 0.5);
    expect(decide(failure("network"), { attempt: 2, elapsedMs: POLICY.maxElapsedMs - delay }).retry).toBe(true);
    const late = decide(failure("network"), { attempt: 2, elapsedMs: POLICY.maxElapsedMs - delay + 1 });
    expect(late.retry).toBe(false);
    if (!late.retry) expect(late.why).toContain(`${POLICY.maxElapsedMs} ms`);
  });

  it("waits at least as long as the service asked (retryAfterMs)", () => {
    const error = failure("rate_limited", { reason: "rate_limited", retryAfterMs: 3_000 });
    expect(decide(error)).toEqual({ retry: true, delayMs: 3_000 });
  });

  it("waits as long as the service asked, however short (retryAfterMs)", () => {
    const error = failure("rate_limited", { reason: "rate_limited", retryAfterMs: 1 });
    expect(decide(error, { attempt: 3, random: 0.99 })).toEqual({ retry: true, delayMs: 1 });
  });

  it("waits at least as long as a Retry-After asks on a service fault that is not the rate limit", () => {
    const decision = decide(failure("service", { retryAfterMs: 3_000 }));
    expect(decision).toEqual({ retry: true, delayMs: 3_000 });
  });

  it("does not retry when the service's retryAfterMs would pass maxElapsedMs", () => {
    const error = failure("rate_limited", { reason: "rate_limited", retryAfterMs: POLICY.maxElapsedMs });
    expect(decide(error, { elapsedMs: 1 }).retry).toBe(false);
  });

  it("documents 5 attempts (refusals for the rate limit aside), 250 ms doubling to 8 s, within 60 s as its defaults", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000, maxElapsedMs: 60_000 });
  });
});

describe("backoffDelay", () => {
  it("doubles the step on each further attempt", () => {
    // With random 1 (the top of the jitter range) the delay is the whole step.
    const top = (attempt: number) => backoffDelay(attempt, POLICY, 1);
    expect([1, 2, 3, 4].map(top)).toEqual([100, 200, 400, 800]);
  });

  it("caps the step at maxDelayMs", () => {
    expect(backoffDelay(5, POLICY, 1)).toBe(1_000);
    expect(backoffDelay(30, POLICY, 1)).toBe(1_000);
  });

  it("keeps the delay within [step/2, step] for any random number", () => {
    for (const attempt of [1, 2, 3, 4, 5, 8]) {
      const step = Math.min(POLICY.maxDelayMs, POLICY.baseDelayMs * 2 ** (attempt - 1));
      for (const random of [0, 0.001, 0.25, 0.5, 0.75, 0.999]) {
        const delay = backoffDelay(attempt, POLICY, random);
        expect(delay).toBeGreaterThanOrEqual(step / 2);
        expect(delay).toBeLessThanOrEqual(step);
      }
      expect(backoffDelay(attempt, POLICY, 0)).toBe(step / 2);
    }
  });

  it("grows with the random number (jitter spreads clients out)", () => {
    expect(backoffDelay(3, POLICY, 0.1)).toBeLessThan(backoffDelay(3, POLICY, 0.9));
  });
});
