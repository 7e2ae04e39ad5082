import { createHash, createHmac, randomUUID } from "node:crypto";
import { DERIVED_KEY_HEX_LENGTH, DERIVED_KEY_PREFIX } from "../client/secretShapes";
import { API_INPUTS, presentOf } from "./declaration";
import { RemoteBrowserError, type QuotaAnswer, type RemoteBrowserClient, hasEndedOrFailed, type SessionEntry, type SessionStatus } from "../client";
import { CancelledError, EngineGoneError } from "../client/errors";
import { clockOf, stopOf, type Clock, type PollSchedule, type Reporter, type Waiting } from "./context";

/**
 * Idempotency keys, derived in this one place. A key must be the same for every attempt to create one
 * generation of a resource -- retries within a run, and the run after an interrupted `pulumi up` -- and
 * new for a replacement. So it is derived, not drawn: from the resource's identity (resourceSeed: the
 * stack's and the resource's own), the session the generation replaces, where the front knows it, and the
 * API inputs of the new generation. Nothing random survives a killed process, but these do (the stack's
 * identity is recorded before any of its sessions is created, and the program still declares the same
 * resource with the same inputs).
 */
export function generationKey({ seed, previousKey, inputs, stackSecret }: GenerationKeyMaterial): string {
  const material = [seed ?? randomUUID(), previousKey ?? "", canonicalApiInputs(inputs)].join("\n");
  // Keyed by the stack's secret when there is one: then nobody without it can compute the key -- not even
  // a program that holds the same API key and knows the project, stack, name and inputs, which could
  // otherwise replay this stack's create and be handed its share link. The secret is stack config, so the
  // run after a killed `pulumi up` derives the same key and still adopts its session.
  const digest = stackSecret ? createHmac("sha256", stackSecret).update(material).digest("hex") : sha256(material);
  return derivedKey(digest);
}

/** What a generation's key is derived from. */
export interface GenerationKeyMaterial {
  /** The resource's identity (resourceSeed); without one, drawn at random (an interrupted run cannot adopt). */
  seed?: string;
  /** The key of the generation this one replaces, when there is one. */
  previousKey?: string;
  inputs: Record<string, unknown>;
  /** remote-browser:idempotencySecret: keys the digest when set. */
  stackSecret?: string;
}

/**
 * A resource's identity as its idempotency keys' seed: the stack's identity, which tells apart two stacks
 * of the same project and name (on two backends, or in two organisations), and the resource's own in its
 * stack, which tells apart two resources the engine tells apart (its URN names the types of its parents).
 * A front that knows no stack identity (a state recorded before there was one) seeds with the resource's
 * alone, as every earlier release did.
 */
export function resourceSeed(stack: string | undefined, resource: string): string {
  return stack ? `${stack}\n${resource}` : resource;
}

/**
 * The key after `key` once it answered with the session `vmId`, which this generation cannot take (it
 * has ended, or it is the session being replaced): one step that depends on that session alone, so that
 * a create that knows the session it replaces goes straight there, and a chain of ended sessions has no
 * end after which no key is left.
 */
export function keyAfter(key: string, vmId: string): string {
  return derivedKey(sha256(`${key}#${vmId}`));
}

export function canonicalApiInputs(inputs: Record<string, unknown>): string {
  return JSON.stringify(presentOf(inputs, API_INPUTS));
}

function derivedKey(hexDigest: string): string {
  return `${DERIVED_KEY_PREFIX}${hexDigest.slice(0, DERIVED_KEY_HEX_LENGTH)}`;
}

function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/**
 * Starting a session when the account's running limit may be reached. Many stacks (one per pull request,
 * say) share one account; when their demand passes the running limit, a create answers `upgrade` at once.
 * With a capacity wait, the create is tried again -- under the same idempotency key, so it can never
 * start two sessions -- until a slot is free or the wait's deadline passes. Only the running limit is
 * waited for: the other refusals (cycle limit, location access, residential data) would not change.
 *
 * The create (controller.ts, createV8) sends each create itself, one per turn of its loop; here is what an
 * `upgrade` refusal means for the wait (capacityStep, pure), whether ending the session being replaced
 * makes room (endingMakesRoom, pure), and the pause between two creates (capacityPause).
 *
 * A CapacityWait is where one wait stands between two creates under its key.
 */
export interface CapacityWait {
  /** When the wait's first create was sent: its deadline and its progress lines count from here. */
  readonly startedAt: number;
  /** Pauses taken so far: the next one is longer. */
  readonly pauses: number;
  /** `upgrade` refusals in a row while the account's meter showed a free slot. */
  readonly refusedWithRoom: number;
}

/** A capacity wait whose first create is sent at `startedAt`. */
export function capacityWait(startedAt: number): CapacityWait {
  return { startedAt, pauses: 0, refusedWithRoom: 0 };
}

/** What an `upgrade` refusal means for the capacity wait. */
export type CapacityStep =
  /** The meter shows a free slot, which may have been freed since the refusal: create again at once. */
  | { kind: "again"; wait: CapacityWait }
  /** The account is full: pause `ms`, then create again under the same key. `first`: the wait's first pause. */
  | { kind: "pause"; ms: number; first: boolean; quota: QuotaAnswer; wait: CapacityWait }
  /** The refusal stands: no wait, the cycle used up, refused twice with room, or no time left for a pause. */
  | { kind: "final"; error: RemoteBrowserError };

export interface CapacityRefusal {
  refusal: RemoteBrowserError;
  /** The account's meter, read after the refusal -- only when there is a wait (`waitMs` > 0). */
  quota: QuotaAnswer | undefined;
  wait: CapacityWait;
  /** 0: no wait, the first `upgrade` is final. */
  waitMs: number;
  /** The time at the refusal, and the pause's jitter. */
  clock: Pick<Clock, "now" | "random">;
}

/** The longest pause between two looks at the account's meter. */
const MAX_PAUSE_MS = 5_000;

/** The capacity wait's rules, in order: table-tested (test/core/capacity-wait.test.ts). */
export function capacityStep({ refusal, quota, wait, waitMs, clock }: CapacityRefusal): CapacityStep {
  const final = { kind: "final", error: refusal } as const;
  if (!quota || waitMs <= 0) return final;
  if (cycleUsedUp(quota)) return final;
  if (quota.running_sessions_remaining > 0) {
    // A slot may have been freed since the refusal; refused twice with room, it is another limit.
    const refusedWithRoom = wait.refusedWithRoom + 1;
    return refusedWithRoom >= 2 ? final : { kind: "again", wait: { ...wait, refusedWithRoom } };
  }
  // Jittered, growing pauses: stacks waiting on one account do not retry in lockstep.
  const ms = Math.round(Math.min(MAX_PAUSE_MS, 500 * 1.5 ** wait.pauses) * (0.5 + clock.random() / 2));
  const waited = clock.now() - wait.startedAt;
  if (waited + ms > waitMs) {
    const error = new RemoteBrowserError(
      "upgrade",
      `no running slot became free within the ${Math.round(waitMs / 1000)} s capacity wait ` +
        `(${quota.running_sessions_used} of ${quota.running_session_limit} running sessions in use; waitForCapacitySeconds)`,
      { operation: "create session", serverMessage: refusal.serverMessage, cause: refusal },
    );
    return { kind: "final", error };
  }
  return { kind: "pause", ms, first: wait.pauses === 0, quota, wait: { ...wait, pauses: wait.pauses + 1, refusedWithRoom: 0 } };
}

/**
 * Whether ending the session being replaced makes room for its replacement, once the capacity wait has
 * given up: the running limit alone stands in the way (no slot free, and the cycle not used up).
 */
export function endingMakesRoom(quota: QuotaAnswer): boolean {
  return !(quota.running_sessions_remaining > 0) && !cycleUsedUp(quota);
}

/** The account's sessions for this cycle are used up: no wait and no ending of another session starts one. */
function cycleUsedUp(quota: QuotaAnswer): boolean {
  return quota.cycle_session_limit !== null && quota.cycle_sessions_remaining === 0;
}

/**
 * A pause of the capacity wait, telling the session's row about once a second (to `queued`, throttled);
 * then the wait stops, nothing started, if the engine went away or the update was cancelled meanwhile.
 */
export async function capacityPause(pause: Extract<CapacityStep, { kind: "pause" }>, o: { waiting: Waiting; queued: (p: QueueProgress) => void }): Promise<void> {
  const { now, sleep } = clockOf(o.waiting);
  const { quota, wait } = pause;
  const tell = () => o.queued({ queuedMs: now() - wait.startedAt, runningUsed: quota.running_sessions_used, runningLimit: quota.running_session_limit });
  tell();
  await sleepTelling(pause.ms, sleep, tell);
  const stop = stopOf(o.waiting);
  if (stop === "engine-gone") throw new EngineGoneError("the engine went away while waiting for a free running slot; no session was started");
  if (stop === "cancelled") throw new CancelledError("the update was cancelled while waiting for a free running slot; no session was started");
}

/**
 * Chosen against the time-to-running goal (median overhead at most 0.9 × max(250 ms, 10 % of the
 * preparation time)) and at most 1.3 status calls per second of waiting; PERFORMANCE.md has the
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
  /** The clock, and when to stop: checked before each poll, a stop touches nothing. */
  waiting?: Waiting;
  /**
   * When to look: `schedule` (@default DEFAULT_POLL_SCHEDULE), and `pollFirst`, at once before the first
   * delay (when the session may be running already).
   */
  looks?: { schedule?: PollSchedule; pollFirst?: boolean };
  /**
   * Told about once a second how long the wait has lasted and the state last seen (long pauses are cut
   * up for it), and once more with the outcome, which is waited for: it must reach the display before
   * the step ends.
   */
  onProgress?: (p: WaitProgress) => void | Promise<void>;
}

/** Polls the session's status until it is running, has failed or ended, or the deadline passes. */
export async function waitForRunning(opts: WaitOptions): Promise<WaitOutcome> {
  const clock = clockOf(opts.waiting);
  const { now } = clock;
  const start = now();
  const outcome = await poll(opts, clock, start);
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

async function poll(opts: WaitOptions, { now, sleep }: Clock, start: number): Promise<WaitOutcome> {
  const schedule = opts.looks?.schedule ?? DEFAULT_POLL_SCHEDULE;
  let polls = 0;
  let last: SessionStatus | undefined;
  let first = true;
  const report = throttled(opts.onProgress, now, start);
  const tell = () => report({ waitedMs: now() - start, state: last });
  for (;;) {
    const elapsed = now() - start;
    if (!(first && opts.looks?.pollFirst)) {
      const delay = Math.min(nextPollDelay(elapsed, schedule), Math.max(0, opts.timeoutMs - elapsed));
      if (delay <= 0 && elapsed >= opts.timeoutMs) return { kind: "timeout", last, polls };
      if (opts.onProgress) await sleepTelling(delay, sleep, tell);
      else await sleep(delay);
    }
    first = false;
    const stop = stopOf(opts.waiting);
    if (stop) return { kind: stop, polls };
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
 * A callback that lets a report through at most once per PROGRESS_INTERVAL_MS of `now`, the first one
 * that long after `start` (a wait shorter than that has nothing to tell).
 */
export function throttled<T>(report: ((p: T) => void | Promise<void>) | undefined, now: () => number, start: number) {
  let last = start;
  return (p: T) => {
    if (!report) return;
    const t = now();
    if (t - last < PROGRESS_INTERVAL_MS) return;
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
