import type { RemoteBrowserClient, SessionEntry, SessionState } from "../client";
import { WaitProgress, sleepTelling, throttled } from "./progress";

/**
 * When to look at a starting session again. The wait is cheap to notice early and costly to notice
 * late, and sessions usually start within seconds: poll every `minIntervalMs` at first, then every
 * `growth` of the time waited so far (so the delay in noticing stays near `growth / 2` of the
 * preparation time), never less often than every `maxIntervalMs`.
 */
export interface PollSchedule {
  minIntervalMs: number;
  growth: number;
  maxIntervalMs: number;
}

export const DEFAULT_POLL_SCHEDULE: Readonly<PollSchedule> = Object.freeze({
  minIntervalMs: 300,
  growth: 0.2,
  maxIntervalMs: 5_000,
});

export function nextPollDelay(elapsedMs: number, s: PollSchedule): number {
  return Math.round(Math.min(s.maxIntervalMs, Math.max(s.minIntervalMs, elapsedMs * s.growth)));
}

export type WaitOutcome =
  | { kind: "running"; entry: SessionEntry; polls: number }
  | { kind: "failed"; entry: SessionEntry; polls: number } // state error: it could not start
  | { kind: "ended"; entry: SessionEntry; polls: number } // ended by someone else while starting
  | { kind: "unknown"; polls: number } // the service knows no such session
  | { kind: "timeout"; last?: SessionState; polls: number }
  | { kind: "engine-gone"; polls: number };

export interface WaitOptions {
  client: Pick<RemoteBrowserClient, "session">;
  vmId: string;
  timeoutMs: number;
  schedule?: PollSchedule;
  /** Checked before each poll; when it says false the wait stops without touching the session. */
  engineAlive?: () => boolean;
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
  let last: SessionState | undefined;
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
    const entry = await opts.client.session(opts.vmId);
    polls++;
    if (!entry) return { kind: "unknown", polls };
    last = entry.status;
    if (entry.status === "running") return { kind: "running", entry, polls };
    if (entry.status === "error") return { kind: "failed", entry, polls };
    if (entry.status !== "starting") return { kind: "ended", entry, polls };
    if (now() - start >= opts.timeoutMs) return { kind: "timeout", last, polls };
    tell();
  }
}
