import type { SessionStatus } from "../client";
import type { Reporter } from "./report";

/**
 * Where a starting session is, told on its own row of the engine's display. A `pulumi up` of a review
 * stack spends most of its time waiting -- for preparation, and on a shared account for a running slot --
 * and the engine alone shows only `creating (Ns)`.
 */
export interface WaitProgress {
  /** Time since the wait began. */
  waitedMs: number;
  /** The state at the last look; undefined before the first. */
  state?: SessionStatus;
  /** The last report: the wait is over, in `state`. */
  done?: boolean;
}

export interface QueueProgress {
  /** Time since the create was first tried (and refused for want of a running slot). */
  queuedMs: number;
  runningUsed: number;
  runningLimit: number;
}

/** How often the wait loops report, at most: about once a second, however they poll. */
export const PROGRESS_INTERVAL_MS = 1_000;

export function waitText(p: WaitProgress): string {
  if (p.done) return `${p.state === "running" ? "running" : `state ${p.state}`} after ${seconds(p.waitedMs)}`;
  return `starting: ${seconds(p.waitedMs)} waited (state ${p.state ?? "not yet read"})`;
}

export function queueText(p: QueueProgress): string {
  return `queued for capacity: ${p.runningUsed}/${p.runningLimit} slots in use, ${seconds(p.queuedMs)} queued`;
}

function seconds(ms: number): string {
  return `${Math.floor(ms / 1000)}s`;
}

/** Status lines on the session's row (the reporter's; with no URN they go nowhere). */
export function sessionProgress(report: Reporter) {
  return {
    waiting: (p: WaitProgress) => report.status(waitText(p)),
    queued: (p: QueueProgress) => report.status(queueText(p)),
  };
}

/** How a warning names the session: by its resource name, where the front knows it. */
export function sessionName(name: string | undefined): string {
  return name ? `BrowserSession "${name}"` : "BrowserSession";
}

/**
 * A callback that lets a report through at most once per `intervalMs` of `now`, the first one
 * `intervalMs` after `start` (a wait shorter than that has nothing to tell).
 */
export function throttled<T>(report: ((p: T) => void | Promise<void>) | undefined, now: () => number, start: number, intervalMs = PROGRESS_INTERVAL_MS) {
  let last = start;
  return (p: T) => {
    if (!report) return;
    const t = now();
    if (t - last < intervalMs) return;
    last = t;
    try {
      // Not waited for: the wait goes on while the line travels.
      void Promise.resolve(report(p)).catch(() => undefined);
    } catch {
      // Progress is for the eyes only: a failing reporter must not fail the wait.
    }
  };
}

/** Sleeps `ms` in pieces of at most a progress interval, telling after each piece but the last. */
export async function sleepTelling(ms: number, sleep: (ms: number) => Promise<void>, tell: () => void): Promise<void> {
  let left = ms;
  for (; left > PROGRESS_INTERVAL_MS; left -= PROGRESS_INTERVAL_MS) {
    await sleep(PROGRESS_INTERVAL_MS);
    tell();
  }
  await sleep(left);
}
