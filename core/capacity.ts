import { RemoteBrowserError, isRemoteBrowserError } from "../client";
import type { CreateAnswer, CreateRequest, QuotaAnswer, RemoteBrowserClient } from "../client";
import { CancelledError, EngineGoneError } from "./errors";
import { QueueProgress, sleepTelling, throttled } from "./progress";

/**
 * Starting a session when the account's running limit may be reached. Many stacks (one per pull request,
 * say) share one account; when their demand passes the running limit, a create answers `upgrade` at once.
 * With a capacity wait, the create is tried again -- under the same idempotency key, so it can never
 * start two sessions -- until a slot is free or the wait's deadline passes. Only the running limit is
 * waited for: the other refusals (cycle limit, location access, residential data) would not change.
 */
export interface CapacityWaitOptions {
  client: Pick<RemoteBrowserClient, "createSession" | "quota">;
  request: CreateRequest;
  /** 0: no wait, the first `upgrade` is final. */
  waitMs: number;
  engineAlive: () => boolean;
  /** The update was cancelled: no further create is tried. */
  cancelled?: () => boolean;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  random: () => number;
  /** A shorter retry budget for refusals of the rate limit than the client's 60 s (see client/retry.ts). */
  retryWithinMs?: number;
  /** Told the service's clock when the create is answered. */
  onServerTime?: (ms: number) => void;
  /** Called once, when the first wait starts. */
  onWaiting?: (quota: QuotaAnswer) => void;
  /** Told about once a second while waiting: slots in use, the limit, and how long the wait has lasted. */
  onProgress?: (p: QueueProgress) => void | Promise<void>;
}

/** The longest pause between two looks at the account's meter. */
const MAX_PAUSE_MS = 5_000;

export async function createWhenCapacity(opts: CapacityWaitOptions): Promise<CreateAnswer> {
  const start = opts.now();
  let pauses = 0;
  let refusedWithRoom = 0;
  // Queued from the first create on: its refusal comes a round trip later.
  const report = throttled(opts.onProgress, opts.now, start);
  for (;;) {
    let refusal: RemoteBrowserError;
    try {
      return await opts.client.createSession(opts.request, undefined, opts.onServerTime, opts.retryWithinMs);
    } catch (err) {
      if (!isRemoteBrowserError(err) || err.code !== "upgrade" || opts.waitMs <= 0) throw err;
      refusal = err;
    }
    const quota = await opts.client.quota();
    if (quota.cycle_session_limit !== null && quota.cycle_sessions_remaining === 0) throw refusal;
    if (quota.running_sessions_remaining > 0) {
      // A slot may have been freed since the refusal; refused twice with room, it is another limit.
      if (++refusedWithRoom >= 2) throw refusal;
      continue;
    }
    refusedWithRoom = 0;
    // Jittered, growing pauses: stacks waiting on one account do not retry in lockstep.
    const pause = Math.round(Math.min(MAX_PAUSE_MS, 500 * 1.5 ** pauses) * (0.5 + opts.random() / 2));
    const waited = opts.now() - start;
    if (waited + pause > opts.waitMs) {
      throw new RemoteBrowserError(
        "upgrade",
        `no running slot became free within the ${Math.round(opts.waitMs / 1000)} s capacity wait ` +
          `(${quota.running_sessions_used} of ${quota.running_session_limit} running sessions in use; waitForCapacitySeconds)`,
        { operation: "create session", serverMessage: refusal.serverMessage, cause: refusal },
      );
    }
    if (pauses === 0) opts.onWaiting?.(quota);
    pauses++;
    const tell = () => report({ queuedMs: opts.now() - start, runningUsed: quota.running_sessions_used, runningLimit: quota.running_session_limit });
    tell();
    if (opts.onProgress) await sleepTelling(pause, opts.sleep, tell);
    else await opts.sleep(pause);
    if (!opts.engineAlive()) throw new EngineGoneError("the engine went away while waiting for a free running slot; no session was started");
    if (opts.cancelled?.()) throw new CancelledError("the update was cancelled while waiting for a free running slot; no session was started");
  }
}
