import type { RemoteBrowserError } from "./errors";

/** Bounds of the retry policy. Every field has a documented default in DEFAULT_RETRY_POLICY. */
export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** Delay cap before the first retry; it doubles on each further retry. */
  baseDelayMs: number;
  /** No single wait is longer than this. */
  maxDelayMs: number;
  /**
   * No retry starts once this much time has passed since the first attempt. It is also the whole budget
   * of a call the service keeps refusing for its rate limit, whatever the number of attempts.
   */
  maxElapsedMs: number;
}

/**
 * 5 attempts, 250 ms doubling to at most 8 s, within 60 s: long enough to ride out a short service
 * fault, short enough that a hard outage is reported within a minute. Refusals for the rate limit are
 * not counted against the 5 attempts: they are retried for the whole 60 s.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxElapsedMs: 60_000,
});

export interface RetryInput {
  error: RemoteBrowserError;
  /** Attempts made so far (1 after the first failure). */
  attempt: number;
  /** Time since the first attempt started. */
  elapsedMs: number;
  /** Whether repeating the request cannot have a second effect (reads, ends, creates with an idempotency key). */
  idempotent: boolean;
  policy: RetryPolicy;
  /** A number in [0, 1); injected so the policy stays a pure function. */
  random: number;
  /** A shorter budget for this call than `policy.maxElapsedMs` (the engine's time-out for a create). */
  withinMs?: number;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; why: string };

const LOCAL_OR_UNREADABLE = new Set<RemoteBrowserError["code"]>([
  "invalid_answer",
  "invalid_request",
  "insecure_transport",
  "configuration",
]);

/** Decides whether a failed attempt is tried again, and after how long. Pure: no clock, no randomness of its own. */
export function retryDecision(input: RetryInput): RetryDecision {
  const { error, attempt, elapsedMs, idempotent, policy } = input;
  // A refusal on the merits does not change by asking again.
  if (error.code === "denied" || error.code === "upgrade") return { retry: false, why: `${error.code} is final` };
  // Security checks other than the rate limit are final too.
  if (error.code === "insecure" && !error.rateLimited) return { retry: false, why: "security check failed" };
  // Local refusals and answers we cannot read: asking again gives the same result.
  if (LOCAL_OR_UNREADABLE.has(error.code)) {
    return { retry: false, why: `${error.code} is not transient` };
  }
  const budgetMs = Math.min(policy.maxElapsedMs, input.withinMs ?? Infinity);
  // A refusal for the rate limit did no work, so even a create without an idempotency key is repeated,
  // for as long as the budget lasts, however many refusals it takes. The request budget (rate-budget.ts)
  // paces the retry with the process's other calls; the service's Retry-After, when it sends one, is kept.
  if (error.rateLimited) {
    const delayMs = error.retryAfterMs ?? Math.round(50 + 50 * input.random);
    if (elapsedMs + delayMs > budgetMs) {
      return { retry: false, why: `the rate limit lasted past the ${budgetMs} ms retry budget (${attempt} attempts)` };
    }
    return { retry: true, delayMs };
  }
  // Without an idempotency key a repeated create could start a second session.
  if (!idempotent) return { retry: false, why: "the request is not idempotent" };
  if (attempt >= policy.maxAttempts) return { retry: false, why: `gave up after ${attempt} attempts` };

  // A Retry-After on another fault (a 503 from a proxy in front of the service) is honoured too.
  const delayMs = Math.max(backoffDelay(attempt, policy, input.random), error.retryAfterMs ?? 0);
  if (elapsedMs + delayMs > budgetMs) {
    return { retry: false, why: `retrying would pass the ${budgetMs} ms retry budget` };
  }
  return { retry: true, delayMs };
}

/**
 * Exponential backoff with "equal jitter": half of the capped exponential step is kept, half is random,
 * so concurrent clients spread out while no retry comes immediately.
 */
export function backoffDelay(attempt: number, policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">, random: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (step / 2) * random);
}
