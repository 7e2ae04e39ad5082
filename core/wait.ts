import { hasEndedOrFailed } from "../client";
import type { RemoteBrowserClient, SessionEntry, SessionStatus } from "../client";
import { WaitProgress, sleepTelling, throttled } from "./progress";

/**
 * When to look at a starting session again. Noticing late costs the user time in proportion to the
 * preparation, and every look costs the service a status call: look once after `firstDelayMs`, then every
 * `minIntervalMs`, then every `growth` of the time waited so far, never less often than every
 * `maxIntervalMs`. A session is then noticed on average about half an interval late, about `growth / 2`
 * of its preparation time once the intervals grow; the early first look catches preparations shorter
 * than one minimum interval without paying for short intervals throughout.
 */
export interface PollSchedule {
  /** @default minIntervalMs */
  firstDelayMs?: number;
  minIntervalMs: number;
  growth: number;
  maxIntervalMs: number;
}

/**
 * Chosen against the time-to-running goal (median overhead at most 0.9 × max(250 ms, 10 % of the
 * preparation time)) and at most 1.3 status calls per second of waiting; docs/performance.md has the
 * computation and the measurements.
 */
export const DEFAULT_POLL_SCHEDULE: Readonly<PollSchedule> = Object.freeze({
  firstDelayMs: 225,
  minIntervalMs: 450,
  growth: 0.1667,
  maxIntervalMs: 5_000,
});

/** The pause before the next look, `elapsedMs` after the wait began. */
export function nextPollDelay(elapsedMs: number, s: PollSchedule): number {
  const first = s.firstDelayMs ?? s.minIntervalMs;
  if (elapsedMs < first) return Math.round(first - elapsedMs);
  return Math.round(Math.min(s.maxIntervalMs, Math.max(s.minIntervalMs, elapsedMs * s.growth)));
}

export type WaitOutcome =
  | { kind: "running"; entry: SessionEntry; polls: number }
  | { kind: "failed"; entry: SessionEntry; polls: number } // state error: it could not start
  | { kind: "ended"; entry: SessionEntry; polls: number } // ended by someone else while starting
  | { kind: "unknown"; polls: number } // the service knows no such session
  | { kind: "timeout"; last?: SessionStatus; polls: number }
  | { kind: "engine-gone"; polls: number }
  | { kind: "cancelled"; polls: number };

export interface WaitOptions {
  client: Pick<RemoteBrowserClient, "session">;
  vmId: string;
  timeoutMs: number;
  schedule?: PollSchedule;
  /** Checked before each poll; when it says false the wait stops without touching the session. */
  engineAlive?: () => boolean;
  /** Checked before each poll: the update was cancelled, the wait stops without touching the session. */
  cancelled?: () => boolean;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Look at once, before the first delay (used when adopting a session that may be running already). */
  pollFirst?: boolean;
  /**
   * Told about once a second how long the wait has lasted and the state last seen (long pauses are cut
   * up for it), and once more with the outcome, which is waited for: it must reach the display before
   * the step ends.
   */
  onProgress?: (p: WaitProgress) => void | Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls the session's status until it is running, has failed or ended, or the deadline passes. */
export async function waitForRunning(opts: WaitOptions): Promise<WaitOutcome> {
  const now = opts.now ?? Date.now;
  const start = now();
  const outcome = await poll(opts, now, start);
  // The display keeps a row's last status line after its step: make it the outcome, not "starting".
  if (opts.onProgress && "entry" in outcome) {
    try {
      await opts.onProgress({ waitedMs: now() - start, state: outcome.entry.status, done: true });
    } catch {
      // Progress is for the eyes only.
    }
  }
  return outcome;
}

async function poll(opts: WaitOptions, now: () => number, start: number): Promise<WaitOutcome> {
  const schedule = opts.schedule ?? DEFAULT_POLL_SCHEDULE;
  const sleep = opts.sleep ?? realSleep;
  let polls = 0;
  let last: SessionStatus | undefined;
  let first = true;
  const report = throttled(opts.onProgress, now, start);
  const tell = () => report({ waitedMs: now() - start, state: last });
  for (;;) {
    const elapsed = now() - start;
    if (!(first && opts.pollFirst)) {
      const delay = Math.min(nextPollDelay(elapsed, schedule), Math.max(0, opts.timeoutMs - elapsed));
      if (delay <= 0 && elapsed >= opts.timeoutMs) return { kind: "timeout", last, polls };
      if (opts.onProgress) await sleepTelling(delay, sleep, tell);
      else await sleep(delay);
    }
    first = false;
    if (opts.engineAlive && !opts.engineAlive()) return { kind: "engine-gone", polls };
    if (opts.cancelled?.()) return { kind: "cancelled", polls };
    const entry = await opts.client.session(opts.vmId);
    polls++;
    if (!entry) return { kind: "unknown", polls };
    last = entry.status;
    if (entry.status === "running") return { kind: "running", entry, polls };
    if (entry.status === "error") return { kind: "failed", entry, polls };
    // A state the spec does not name is not taken for an end: the session may still become running.
    if (hasEndedOrFailed(entry.status)) return { kind: "ended", entry, polls };
    if (now() - start >= opts.timeoutMs) return { kind: "timeout", last, polls };
    tell();
  }
}

/** How an outcome is named in a message: the session's state, or what ended the wait. */
export function describe(outcome: WaitOutcome): string {
  return "entry" in outcome ? `state "${outcome.entry.status}"` : outcome.kind;
}
