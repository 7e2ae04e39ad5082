import { isRemoteBrowserError } from "../client";
import type { ApiVersion, CreateAnswer, CreateRequest, V7CreateRequest } from "../client";
import type { Reporter } from "./report";
import { ADOPT } from "./adopt";
import { createWhenCapacity } from "./capacity";
import type { ProviderContext } from "./context";
import { sessionName, sessionProgress } from "./progress";
import {
  CancelledError,
  EndedWhileStartingError,
  EngineGoneError,
  IdempotencyKeysExhaustedError,
  LocationNotAppliedError,
  NotRunningInTimeError,
  PreparationFailedError,
  ProviderError,
  ProviderErrorContext,
  SessionKeptError,
  StaleIdempotencyKeyError,
  StatusUnreadableError,
} from "./errors";
import { API_INPUTS, DEFAULT_READY_TIMEOUT_SECONDS } from "./fields";
import type { SessionOutputs } from "./fields";
import { generationKey, successorKey } from "./keys";
import { errorText, fromEntry, mirrorInputs } from "./outputs";
import { WaitOutcome, describe, waitForRunning } from "./wait";
import { checkSessionId } from "./ids";
import type { CreateSessionRequest } from "./requests";

/** A session created or adopted; `idempotencyKey`: the key a version 8 create started it under. */
type Created = { id: string; outs: SessionOutputs; idempotencyKey?: string };

/** Create: adopts the session named by the `import` option, or starts one the configured version's way. */
export async function create(ctx: ProviderContext, req: CreateSessionRequest): Promise<Created> {
  const { adoptVmId } = req;
  if (adoptVmId !== undefined) checkSessionId(adoptVmId, "importing a session (the import resource option)");
  const { id, outs, idempotencyKey }: Created = adoptVmId
    ? await ADOPT[ctx.version().name](ctx, { ...req, vmId: adoptVmId })
    : await CREATE[ctx.version().name](ctx, req);
  return { id, outs, idempotencyKey };
}

const CREATE: Record<ApiVersion, (ctx: ProviderContext, req: CreateSessionRequest) => Promise<Created>> = {
  v8: createV8,
  v7: createV7,
};

/**
 * How far before the service's answer a failed session's start must lie for it to be an earlier one.
 * The service's clock (its Date header, in whole seconds) is compared with its own timestamps, so client
 * clock skew plays no part; the margin covers the header's rounding. Misjudging a new failed session as
 * an earlier one costs one more attempt under the next key, never a session left running.
 */
const REPLAY_SKEW_MS = 1_000;
/**
 * Earlier generations of the same resource that may have used up keys of the chain: a stack destroyed
 * and brought up again with the same inputs walks one step further each time (a replayed create and a
 * status read per step, no session started).
 */
const MAX_KEY_STEPS = 1_000;

/** Version 8: one create under an idempotency key (waiting for capacity if asked), then wait until running. */
export async function createV8(ctx: ProviderContext, req: CreateSessionRequest): Promise<Created> {
  const { inputs } = req;
  const client = ctx.api();
  const { clock } = ctx;
  const limit = createLimit(inputs.readyTimeoutSeconds, req.engineTimeoutSeconds);
  const timeoutMs = limit.seconds * 1000;
  const deadline = clock.now() + timeoutMs;
  const request = apiRequest(inputs);
  const userKey = inputs.idempotencyKey;
  // Known before any session starts: a key whose account cannot be read starts nothing.
  const owner = await ctx.owner();
  const baseKey = userKey ?? generationKey(req.seed, undefined, inputs, ctx.cfg().idempotencySecret);
  const capacityWaitSeconds = inputs.waitForCapacitySeconds ?? ctx.cfg().waitForCapacitySeconds;
  // The engine's bound covers the whole create: a queue for capacity may not outlast it.
  const capacityWaitMs = limit.by === "customTimeouts.create" ? Math.min(capacityWaitSeconds * 1000, timeoutMs) : capacityWaitSeconds * 1000;
  // Progress and warnings go to this resource's own row in the engine's display.
  const report = ctx.reporter(req.urn);
  const progress = sessionProgress(report);

  // The session this create replaces, once a key has answered with it.
  let replaced: string | undefined;
  for (let step = 0; step < MAX_KEY_STEPS; step++) {
    if (ctx.cancelled()) throw new CancelledError("the update was cancelled before the session was started; no session was started");
    const key = successorKey(baseKey, step);
    // The service's clock at its answer, so that telling an earlier session from a new one does not
    // depend on how well our clock agrees with the service's.
    let answeredAt = clock.now();
    const start = () => createWhenCapacity({
      onServerTime: (ms) => (answeredAt = ms),
      // Refusals for the rate limit are retried within the resource's own deadline when it is under 60 s.
      retryWithinMs: Math.max(0, deadline - clock.now()),
      client,
      request: { ...request, idempotencyKey: key },
      waitMs: capacityWaitMs,
      engineAlive: ctx.engineAlive,
      cancelled: ctx.cancelled,
      sleep: clock.sleep,
      now: clock.now,
      random: clock.random,
      onWaiting: (q) =>
        void report.warning(
          `${sessionName(req.name)}: the account's running limit is reached (${q.running_sessions_used} of ${q.running_session_limit}); ` +
            `waiting up to ${capacityWaitSeconds} s for a free slot`,
        ),
      onProgress: progress.queued,
    });
    const answer = replaced ? await startBeside(ctx, replaced, start, report, req.name) : await start();
    const vmId = answer.vmId;
    if (ctx.isRecordedSession(vmId)) {
      // The key is the one the session being replaced was started under (same resource, same inputs: a
      // --replace, a replaceOnChanges on an input the service is not sent, a replacementTrigger), and the
      // engine ends that session after this create, or has already. Its replacement is the next key's.
      if (userKey) {
        throw new StaleIdempotencyKeyError(
          `idempotencyKey "${userKey}" belongs to session ${vmId}, the one being replaced; set a new idempotencyKey to start its replacement`,
          { vmId },
        );
      }
      replaced = vmId;
      continue;
    }
    const outs: SessionOutputs = {
      ...mirrorInputs(inputs),
      vmId,
      shareUrl: answer.shareUrl,
      shareUrlPath: answer.shareUrlPath,
      status: "starting",
      locationApplied: answer.location_applied,
      locationReason: answer.location_reason,
      apiVersion: "v8",
      owner,
    };
    let outcome: WaitOutcome;
    try {
      outcome = await waitForRunning({
        // Looks go on the process's shared poll tick, behind creates and removes in the request budget.
        client: { session: (id) => client.pollSession(id) },
        vmId,
        timeoutMs: Math.max(0, deadline - clock.now()),
        schedule: ctx.schedule,
        sleep: clock.sleep,
        now: clock.now,
        engineAlive: ctx.engineAlive,
        cancelled: ctx.cancelled,
        // Past the first key the answer is likely a replay of an ended session: look at once.
        pollFirst: step > 0,
        onProgress: progress.waiting,
      });
    } catch (err) {
      // The session exists but its status could not be read: thrown as is, the engine would forget it.
      if (!ctx.engineAlive()) throw err;
      return failAndRemove(ctx, outs, {
        Failure: StatusUnreadableError,
        why: `waiting for session ${vmId} to run failed: ${errorText(err)}`,
      });
    }
    if (isStaleReplay(outcome, answeredAt)) {
      // The key's first answer was a session of an earlier generation that has ended since.
      if (userKey) {
        throw new StaleIdempotencyKeyError(
          `idempotencyKey "${userKey}" belongs to session ${vmId}, which has ended (${describe(outcome)}); ` +
            "set a new idempotencyKey to start a new session",
          { vmId },
        );
      }
      continue;
    }
    const verdict = settlement(outcome, {
      vmId,
      timeoutMs,
      limitedBy: limit.by,
      country: inputs.country,
      requireLocation: inputs.requireLocation === true,
      answered: { locationApplied: answer.location_applied, locationReason: answer.location_reason },
    });
    switch (verdict.kind) {
      case "running": {
        const running = { ...outs, ...fromEntry(verdict.entry) };
        // Started before this create asked: a session of an earlier run handed over through its key.
        if (startedBefore(verdict.entry, answeredAt)) ctx.handedOverEarlierSession(vmId);
        if (verdict.warning) await report.warning(`${sessionName(req.name)}: ${verdict.warning}`);
        return { id: vmId, outs: running, idempotencyKey: key };
      }
      case "remove":
        return failAndRemove(ctx, verdict.entry ? { ...outs, ...fromEntry(verdict.entry) } : outs, verdict);
      case "fail":
        throw new verdict.Failure(verdict.why, { vmId });
    }
  }
  throw new IdempotencyKeysExhaustedError(`no fresh idempotency key found after ${MAX_KEY_STEPS} ended sessions of this resource`);
}

/**
 * Starts the replacement of session `replaced` while the engine still holds it (a replacement the engine
 * makes create-before-delete: --replace, a tainted resource, a replacementTrigger, or the program's
 * deleteBeforeReplace: false). When the account's running limit leaves no room beside it, the replacement
 * could never start, and the engine would end the old session only after it had: the old session is ended
 * first, as delete-before-replace would, and said so. The engine's delete of it afterwards finds it ended.
 */
async function startBeside(
  ctx: ProviderContext,
  replaced: string,
  start: () => Promise<CreateAnswer>,
  report: Reporter,
  name: string | undefined,
): Promise<CreateAnswer> {
  try {
    return await start();
  } catch (err) {
    if (!isRemoteBrowserError(err) || err.code !== "upgrade") throw err;
    const quota = await ctx.api().quota();
    if (quota.running_sessions_remaining > 0 || (quota.cycle_session_limit !== null && quota.cycle_sessions_remaining === 0)) throw err;
    await ctx.api().removeSession(replaced);
    await report.warning(
      `${sessionName(name)}: the account's running limit (${quota.running_session_limit}) leaves no room for the replacement beside session ${replaced}, ` +
        "so that session was ended first, as deleteBeforeReplace does; its link is down until the replacement runs",
    );
    return start();
  }
}

/**
 * Version 7: one create, not waited for -- the version has no status or end operation -- and no
 * idempotency key, which it does not take.
 */
export async function createV7(ctx: ProviderContext, req: CreateSessionRequest): Promise<Created> {
  const { inputs } = req;
  const { egress: _e, idempotencyKey: _k, ...rest } = apiRequest(inputs);
  const owner = await ctx.owner();
  const answer = await ctx.api().v7.createSession(rest as V7CreateRequest);
  await ctx.reporter(req.urn).warning(
    `BrowserSession ${answer.vmId} was started with API version 7, which has no status or end operation: ` +
      "it was not waited for, refresh cannot see it and destroy cannot end it (use apiVersion v8)",
  );
  return {
    id: answer.vmId,
    outs: {
      ...mirrorInputs(inputs),
      vmId: answer.vmId,
      shareUrl: answer.shareUrl,
      shareUrlPath: answer.shareUrlPath,
      status: "starting",
      apiVersion: "v7",
      owner,
    },
  };
}

/** How long a create may wait, and which setting says so. */
export interface CreateLimit {
  seconds: number;
  by: "readyTimeoutSeconds" | "customTimeouts.create";
}

/** readyTimeoutSeconds (or its default) and the engine's customTimeouts.create: the shorter wins. */
export function createLimit(readyTimeoutSeconds: number | undefined, engineTimeoutSeconds: number | undefined): CreateLimit {
  const ready = readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS;
  if (engineTimeoutSeconds !== undefined && Number.isFinite(engineTimeoutSeconds) && engineTimeoutSeconds > 0 && engineTimeoutSeconds < ready) {
    return { seconds: engineTimeoutSeconds, by: "customTimeouts.create" };
  }
  return { seconds: ready, by: "readyTimeoutSeconds" };
}

type FailureClass = new (message: string, ctx?: ProviderErrorContext) => ProviderError;

/** What the wait's outcome means for the session: handed over, ended then failed, or failed as it is. */
export type Settlement =
  | { kind: "running"; entry: Extract<WaitOutcome, { kind: "running" }>["entry"]; warning?: string }
  | { kind: "remove"; Failure: FailureClass; why: string; entry?: Extract<WaitOutcome, { kind: "running" }>["entry"] }
  | { kind: "fail"; Failure: FailureClass; why: string };

/**
 * Turns the wait's outcome into what create does next. Pure (table-tested): a session that cannot be
 * handed over is ended ("remove") unless it ended by itself, or the engine went away -- then the next
 * `pulumi up` adopts it through the same idempotency key, and ending it would do harm.
 */
export function settlement(
  outcome: WaitOutcome,
  s: {
    vmId: string;
    timeoutMs: number;
    /** Which setting the time-out came from, named in the message. @default "readyTimeoutSeconds" */
    limitedBy?: CreateLimit["by"];
    country?: string;
    requireLocation: boolean;
    /** What the create answer said about the location; the status entry, when it says, wins. */
    answered?: { locationApplied?: boolean; locationReason?: string };
  },
): Settlement {
  const { vmId } = s;
  switch (outcome.kind) {
    case "running": {
      const applied = outcome.entry.location_applied ?? s.answered?.locationApplied;
      if (applied !== false) return { kind: "running", entry: outcome.entry };
      const reason = outcome.entry.location_reason ?? s.answered?.locationReason ?? "unavailable";
      const why = `session ${vmId} started on the default connection: no free exit in "${s.country}" (${reason})`;
      if (s.requireLocation) return { kind: "remove", Failure: LocationNotAppliedError, why: `${why}, and requireLocation is set`, entry: outcome.entry };
      return { kind: "running", entry: outcome.entry, warning: `${why}; set requireLocation to fail instead` };
    }
    case "failed":
      return { kind: "remove", Failure: PreparationFailedError, why: `session ${vmId} could not start: its preparation ended in state "error"` };
    case "ended":
      return { kind: "fail", Failure: EndedWhileStartingError, why: `session ${vmId} ended (state "${outcome.entry.status}") before it was running` };
    case "unknown":
      return { kind: "fail", Failure: EndedWhileStartingError, why: `session ${vmId} was accepted but the service no longer knows it` };
    case "timeout":
      return {
        kind: "remove",
        Failure: NotRunningInTimeError,
        why: `session ${vmId} was not running after ${s.timeoutMs / 1000} s (last state "${outcome.last ?? "unknown"}"); ${
          s.limitedBy === "customTimeouts.create"
            ? "the resource's customTimeouts.create is shorter than readyTimeoutSeconds; raise it if preparation is slow"
            : "raise readyTimeoutSeconds if preparation is slow"
        }`,
      };
    case "engine-gone":
      return { kind: "fail", Failure: EngineGoneError, why: `the engine went away while session ${vmId} was starting; leaving it for the next update` };
    case "cancelled":
      return { kind: "remove", Failure: CancelledError, why: `the update was cancelled while session ${vmId} was starting` };
  }
}

/** Ends a session that cannot be handed over, then fails; if ending fails too, the engine keeps the id. */
async function failAndRemove(
  ctx: ProviderContext,
  outs: SessionOutputs,
  f: { Failure: FailureClass; why: string },
): Promise<never> {
  try {
    await ctx.api().removeSession(outs.vmId);
  } catch (err) {
    // The engine records a resource that was created but failed to initialise: each front shapes it.
    throw new SessionKeptError(
      `${f.why}; ending it failed as well (${errorText(err)}), so it is kept in the stack: run \`pulumi destroy\` or \`pulumi up\` again to end it`,
      {
        vmId: outs.vmId,
        cause: err,
        outputs: { ...outs, status: "unknown" } as unknown as Record<string, unknown>,
      },
    );
  }
  throw new f.Failure(`${f.why}; the session was ended`, { vmId: outs.vmId });
}

/** The request the service is sent: the API inputs that are set. */
export function apiRequest(inputs: Record<string, unknown>): CreateRequest {
  const req: Record<string, unknown> = {};
  for (const k of API_INPUTS) if (inputs[k] !== undefined && inputs[k] !== null) req[k] = inputs[k];
  return req as unknown as CreateRequest;
}

/**
 * Whether the key's answer named a session of an earlier generation rather than a new one. A session
 * that has ended, or that the service no longer knows, cannot be the one just started. One in state
 * `error` may be either; it is an earlier one when it was created well before the service answered.
 */
function isStaleReplay(outcome: WaitOutcome, answeredAt: number): boolean {
  if (outcome.kind === "unknown" || outcome.kind === "ended") return true;
  if (outcome.kind !== "failed") return false;
  return startedBefore(outcome.entry, answeredAt);
}

/** Whether the service started the session well before it answered this create. */
function startedBefore(entry: { created: string }, answeredAt: number): boolean {
  const created = Date.parse(entry.created);
  return Number.isFinite(created) && created < answeredAt - REPLAY_SKEW_MS;
}
