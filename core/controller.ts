import {
  type ApiVersion,
  isRemoteBrowserError,
  type CreateAnswer,
  type CreateRequest,
  type V7CreateRequest,
  hasEndedOrFailed,
  type SessionEntry,
  isMasked,
  maskedIdMatches,
  unprovenText,
  type StatusRead,
} from "../client";
import type { ProviderContext, Reporter } from "./context";
import {
  type SessionInputs,
  API_INPUTS,
  DEFAULT_READY_TIMEOUT_SECONDS,
  type SessionOutputs,
  errorText,
  fromEntry,
  mirrorInputs,
  unconfirmedWarning,
  inputsFrom,
  presentOf,
  SECRET_OUTPUTS,
  withoutNulls,
} from "./declaration";
import {
  capacityPause,
  capacityStep,
  capacityWait,
  type CapacityWait,
  endingMakesRoom,
  type QueueProgress,
  sessionName,
  sessionProgress,
  generationKey,
  keyAfter,
  canonicalApiInputs,
  throttled,
  type WaitOutcome,
  describe,
  waitForRunning,
} from "./launch";
import {
  CancelledError,
  EndedWhileStartingError,
  EngineGoneError,
  LocationNotAppliedError,
  NotRunningInTimeError,
  PreparationFailedError,
  type RemoteBrowserError,
  type MemberContext,
  SessionKeptError,
  StaleIdempotencyKeyError,
  StatusUnreadableError,
  ImportError,
  ValidationError,
} from "../client/errors";
// The one error of "created but not initialised", which the fronts hand their hosts (asInitFailure, below).
export type { SessionKeptError } from "../client/errors";
import { assertSameRecord, unprovenOwner, type OwnerIdentity, recordsOwner, CURRENT_STATE_VERSION, inferredStateVersion } from "./state";

/**
 * The typed requests of the operations on one session, each handed whole to its operation (as
 * pulumi-go-provider's `infer` hands each CRUD method one request): what a front knows of the call beyond
 * the context. The context gives the operation its reporter on `urn` (ProviderContext.reporter).
 */
export interface SessionRequest {
  /**
   * The resource's URN: the row of the engine's display the operation's progress and warnings go to.
   * Absent where the front is not told (a dynamic provider's read and delete, a program of an older release).
   */
  urn?: string;
  /** The resource's name, the last part of its URN: how warnings name the session. */
  name?: string;
}

export type SessionInputMap = SessionInputs & Record<string, unknown>;

export interface CreateSessionRequest extends SessionRequest {
  inputs: SessionInputMap;
  /**
   * The resource's identity in its stack, the same for every attempt to create this generation (in this
   * run or the one after a killed update): the seed of its derived idempotency key. Without one, the key
   * is drawn at random, and a killed update's session cannot be adopted.
   */
  seed?: string;
  /** Take over this running session (the `import` resource option) instead of starting one. */
  adoptVmId?: string;
  /**
   * The session this create replaces, where the engine showed it to the front for this resource (its
   * diff, its read before the update, or its delete before the replacement). Its replacement's key is one
   * step after it, and ending it makes room for the replacement on a full running limit.
   */
  replaces?: string;
  /**
   * What the state records of that session (its outputs, which mirror the inputs). A replacement with
   * other API inputs starts at the first key of its own inputs, where a create shown nothing of the
   * session it replaces walks to it (settingsChanged); one with the same inputs goes one step after the
   * old session, at the cost of one create whatever the generation.
   */
  replacesRecord?: Record<string, unknown>;
  /**
   * The provider's settings changed in this update and this process serves the changed ones. The engine
   * then reads the resource's session (before the update) in the process of the recorded settings, and a
   * replacement it decides without asking the provider (`--replace`, a taint) reaches this process with
   * nothing of the session it replaces. A running session that this resource's key answers with at its
   * first attempt, started before that answer, is then the recorded one: a session an interrupted update
   * started under these settings would have found them recorded (the engine records a provider's update
   * before it creates any resource that uses it), and its next update would not change them.
   */
  settingsChanged?: boolean;
  /**
   * The resource's `customTimeouts.create`, in seconds, where the engine passes it (the plugin's
   * front door; a dynamic provider is never told). It bounds the whole create, capacity wait included,
   * together with `readyTimeoutSeconds`: the shorter wins.
   */
  engineTimeoutSeconds?: number;
}

export interface AdoptSessionRequest extends SessionRequest {
  inputs: SessionInputMap;
  vmId: string;
}

/** A refresh (`props`: the recorded outputs) or a destroy of the session `id`. */
export interface RecordedSessionRequest extends SessionRequest {
  id: string;
  props: Record<string, unknown>;
  /**
   * The layout version the state records with the session (state.ts), as the front keeps it beside the
   * outputs; absent in the state written before versions were recorded.
   */
  stateVersion?: unknown;
}

export type ReadSessionRequest = RecordedSessionRequest;

export interface DeleteSessionRequest extends RecordedSessionRequest {
  /**
   * A create of this engine's update handed the engine this very session, started by an earlier run under
   * the same key, as the resource's replacement: the front keeps what its creates answered.
   */
  handedToReplacement?: boolean;
  /**
   * The resource's `customTimeouts.delete`, in seconds, where the engine passes it (the plugin's front
   * door; a dynamic provider is never told): how long ending the session may take before destroy fails.
   */
  engineTimeoutSeconds?: number;
}

/**
 * An operation on a recorded session (`doing`, in the user's words), by the API version the session was
 * started with: its id checked first, then the version's own operation.
 */
export function byRecordedVersion<R, Q extends RecordedSessionRequest = RecordedSessionRequest>(ops: Record<ApiVersion, (ctx: ProviderContext, req: Q) => Promise<R>>, doing: string) {
  return async (ctx: ProviderContext, req: Q): Promise<R> => {
    checkSessionId(req.id, doing);
    return ops[ctx.versionOf(req.props).name](ctx, req);
  };
}

/**
 * A session created or adopted; `idempotencyKey`: the key a version 8 create started it under;
 * `stateVersion`: the layout version of the record, which the front records with the outputs (state.ts).
 */
type Created = {
  id: string;
  outs: SessionOutputs;
  idempotencyKey?: string;
  stateVersion?: number;
  /** The session was started before this create asked (by an earlier run, under the same key): handed over, not started. */
  handedOver?: boolean;
};

/** Create: adopts the session named by the `import` option, or starts one the configured version's way. */
export async function create(ctx: ProviderContext, req: CreateSessionRequest): Promise<Created> {
  const { adoptVmId } = req;
  if (adoptVmId !== undefined) checkSessionId(adoptVmId, "importing a session (the import resource option)");
  const created: Created = adoptVmId ? await ADOPT[ctx.version().name](ctx, { ...req, vmId: adoptVmId }) : await CREATE[ctx.version().name](ctx, req);
  return { ...created, stateVersion: CURRENT_STATE_VERSION };
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
 * Version 8: one loop of attempts, each one create under an idempotency key. An `upgrade` refusal pauses
 * and tries the key again (the capacity wait), makes room by ending the session being replaced, or fails
 * (afterRefusal); an answer that names a session this generation cannot take -- one that has ended, or the
 * one being replaced -- moves on to the key after it; any other is waited for until it runs
 * (waitForRunning, the one loop of its own) and settled.
 */
export async function createV8(ctx: ProviderContext, req: CreateSessionRequest): Promise<Created> {
  const { inputs } = req;
  let { replaces } = req;
  /** The session taken for the one being replaced by its key's answer alone (settingsChanged): ended once its replacement runs. */
  let inferred: string | undefined;
  const client = ctx.api();
  const { clock } = ctx;
  const limit = createLimit(inputs.readyTimeoutSeconds, req.engineTimeoutSeconds);
  const deadline = clock.now() + limit.seconds * 1000;
  const userKey = inputs.idempotencyKey;
  // Known before any session starts: a key whose account cannot be read starts nothing.
  const owner = await ctx.owner();
  const base = userKey ?? generationKey({ seed: req.seed, inputs, stackSecret: ctx.cfg().idempotencySecret });
  // Progress and warnings go to this resource's own row in the engine's display.
  const report = ctx.reporter(req.urn);
  const capacity = capacityOf(ctx, req, limit, deadline, report);
  // A replacement whose front was shown the session it replaces, with the same inputs, starts one step
  // after that session: the same key in this run and the one after a killed update, and never the key
  // that started the old one.
  const stepPast = replaces !== undefined && !userKey && (req.replacesRecord === undefined || canonicalApiInputs(req.replacesRecord) === canonicalApiInputs(inputs));
  let turn = capacity.turn(stepPast ? keyAfter(base, replaces!) : base, replaces);
  for (;;) {
    const attempt = turn;
    let answer: CreateAnswer;
    try {
      answer = await client.createSession({ ...apiRequest(inputs), idempotencyKey: attempt.key }, { onServerTime: heard(attempt), retryWithinMs: attempt.queue.retryWithinMs });
    } catch (err) {
      await afterRefusal(ctx, attempt, err, capacity);
      continue;
    }
    const outs = answeredOutputs(inputs, answer, owner);
    // The session being replaced, which the engine ends after this create (or has already): never its own replacement.
    const wait = outs.vmId === replaces ? undefined : await waitFor(ctx, outs, { limit, deadline, report, pollFirst: attempt.key !== base });
    if (wait === undefined || isStaleReplay(wait, attempt.answeredAt)) {
      if (userKey) throw staleUserKey(userKey, outs.vmId, wait);
      turn = capacity.turn(keyAfter(base, outs.vmId), turn.beside);
      continue;
    }
    // The front was shown nothing of the session being replaced, and the answer is that session (settingsChanged).
    if (replaces === undefined && !userKey && req.settingsChanged && isEarlierRunning(wait, attempt)) {
      replaces = inferred = outs.vmId;
      turn = capacity.turn(keyAfter(base, outs.vmId), outs.vmId);
      continue;
    }
    const created = await settle(ctx, req, wait, outs, { limit, key: attempt.key, answeredAt: attempt.answeredAt, report });
    // Still running when its replacement does (the limit made room for both): the engine's delete ends it
    // too, but were it a session an interrupted update left, nothing else would.
    if (inferred && turn.beside === inferred) await endInferred(ctx, inferred, created.id, req, report);
    return created;
  }
}

/** Records the service's clock at each answer under the turn's key, and whether it came at the call's first attempt. */
function heard(turn: KeyTurn): (ms: number, attempt: number) => void {
  return (ms, attempt) => {
    turn.answeredAt = ms;
    turn.firstAnswer = attempt === 1;
  };
}

/** A running session the service started before this create first asked for it under the turn's key. */
function isEarlierRunning(wait: WaitOutcome, turn: KeyTurn): boolean {
  return wait.kind === "running" && turn.firstAnswer === true && startedBefore(wait.entry, turn.answeredAt);
}

/** Ends the session a create took for the one it replaces (settingsChanged), once its replacement runs; a failure is told, never thrown. */
async function endInferred(ctx: ProviderContext, vmId: string, replacement: string, req: CreateSessionRequest, report: Reporter): Promise<void> {
  const why = `session ${vmId}, which this resource's idempotency key answered with, was taken for the session being replaced: the provider's settings changed in this update, so the engine showed this provider process nothing of it`;
  try {
    await ctx.api().removeSession(vmId);
    await report.warning(`${sessionName(req.name)}: ${why}. It was ended once its replacement ${replacement} ran`);
  } catch (err) {
    await report.warning(`${sessionName(req.name)}: ${why}. Ending it failed (${errorText(err)}); the engine's delete of the replaced session ends it, or end it yourself`);
  }
}

/** The user's idempotencyKey answered with a session this generation cannot take: a new key is the user's to set. */
function staleUserKey(userKey: string, vmId: string, outcome: WaitOutcome | undefined): StaleIdempotencyKeyError {
  const why = outcome ? `which has ended (${describe(outcome)}); set a new idempotencyKey to start a new session` : "the one being replaced; set a new idempotencyKey to start its replacement";
  return new StaleIdempotencyKeyError(`idempotencyKey "${userKey}" belongs to session ${vmId}, ${why}`, { vmId });
}

/** The outputs of the session a create was answered with, before it runs. */
function answeredOutputs(inputs: SessionInputMap, answer: CreateAnswer, owner: string): SessionOutputs {
  return {
    ...mirrorInputs(inputs),
    vmId: answer.vmId,
    shareUrl: answer.shareUrl,
    shareUrlPath: answer.shareUrlPath,
    status: "starting",
    locationApplied: answer.location_applied,
    locationReason: answer.location_reason,
    apiVersion: "v8",
    owner,
  };
}

/**
 * Waits for the session a create was answered with to run. A status that cannot be read while the engine
 * is there ends the session (thrown as is, the engine would forget it); with the engine gone it is thrown.
 */
async function waitFor(ctx: ProviderContext, outs: SessionOutputs, o: { limit: CreateLimit; deadline: number; report: Reporter; pollFirst: boolean }): Promise<WaitOutcome> {
  const client = ctx.api();
  try {
    return await waitForRunning({
      // Looks go on the process's shared poll tick, behind creates and removes in the request budget.
      client: { session: (id) => client.pollSession(id) },
      vmId: outs.vmId,
      // readyTimeoutSeconds is how long the session may take to run, from its start: a queue for capacity
      // before it does not use it up (it did, and a session that waited its turn was ended unseen).
      // customTimeouts.create is the engine's bound on the whole create, the queue included.
      timeoutMs: o.limit.by === "customTimeouts.create" ? Math.max(0, o.deadline - ctx.clock.now()) : o.limit.seconds * 1000,
      waiting: ctx,
      // Past the first key the answer is likely a replay of an ended session: look at once.
      looks: { schedule: ctx.schedule, pollFirst: o.pollFirst },
      onProgress: sessionProgress(o.report).waiting,
    });
  } catch (err) {
    if (!ctx.engineAlive()) throw err;
    return failAndRemove(ctx, outs, { Failure: StatusUnreadableError, why: `waiting for session ${outs.vmId} to run failed: ${errorText(err)}` });
  }
}

/** What a create that waited for its session does with it: hands it over running, or ends it and fails, or fails. */
async function settle(
  ctx: ProviderContext,
  req: CreateSessionRequest,
  wait: WaitOutcome,
  outs: SessionOutputs,
  o: { limit: CreateLimit; key: string; answeredAt: number; report: Reporter },
): Promise<Created> {
  const { inputs } = req;
  const vmId = outs.vmId;
  const verdict = settlement(wait, {
    vmId,
    timeoutMs: o.limit.seconds * 1000,
    limitedBy: o.limit.by,
    country: inputs.country,
    requireLocation: inputs.requireLocation === true,
    answered: { locationApplied: outs.locationApplied, locationReason: outs.locationReason },
  });
  switch (verdict.kind) {
    case "running": {
      if (verdict.warning) await o.report.warning(`${sessionName(req.name)}: ${verdict.warning}`);
      // Started before this create asked: a session of an earlier run handed over through its key.
      return { id: vmId, outs: { ...outs, ...fromEntry(verdict.entry) }, idempotencyKey: o.key, handedOver: startedBefore(verdict.entry, o.answeredAt) };
    }
    case "remove":
      return failAndRemove(ctx, verdict.entry ? { ...outs, ...fromEntry(verdict.entry) } : outs, verdict);
    case "fail":
      throw new verdict.Failure(verdict.why, { vmId });
  }
}

/** The capacity wait of one create: how long, where it is told, and each key's turn with a wait of its own. */
function capacityOf(ctx: ProviderContext, req: CreateSessionRequest, limit: CreateLimit, deadline: number, report: Reporter): Capacity {
  const { clock } = ctx;
  const seconds = req.inputs.waitForCapacitySeconds ?? ctx.cfg().waitForCapacitySeconds;
  const progress = sessionProgress(report);
  const begin = (): Queue => {
    const startedAt = clock.now();
    return {
      wait: capacityWait(startedAt),
      // Refusals for the rate limit are retried within the resource's own deadline when it is under 60 s.
      retryWithinMs: Math.max(0, deadline - startedAt),
      // Queued from the first create on: its refusal comes a round trip later.
      queued: throttled(progress.queued, () => clock.now(), startedAt),
    };
  };
  return {
    // The engine's bound covers the whole create: a queue for capacity may not outlast it.
    waitMs: limit.by === "customTimeouts.create" ? Math.min(seconds * 1000, limit.seconds * 1000) : seconds * 1000,
    seconds,
    report,
    name: req.name,
    begin,
    turn: (key, beside) => {
      if (ctx.cancelled()) throw new CancelledError("the update was cancelled before the session was started; no session was started");
      // The service's clock at its answer replaces ours, so that telling an earlier session from a new one
      // does not depend on how well our clock agrees with the service's.
      return { key, answeredAt: clock.now(), beside, queue: begin() };
    },
  };
}

/** One step of the key chain as createV8 tries it: the key, and where its creates stand. */
interface KeyTurn {
  key: string;
  /** The service's clock at its last answer under this key; ours until it answers. */
  answeredAt: number;
  /** That answer came at the call's first attempt: the session it names cannot be one a lost earlier attempt of this create started. */
  firstAnswer?: boolean;
  /** The session being replaced, while ending it may still make room (once per key). */
  beside?: string;
  queue: Queue;
}

/** One capacity wait: where it stands, its creates' retry budget (fixed when it begins), its status line (throttled). */
interface Queue {
  wait: CapacityWait;
  retryWithinMs: number;
  queued: (p: QueueProgress) => void;
}

/** The capacity wait as one create has it: how long, where it is told, and how a new one begins. */
interface Capacity {
  /** 0: no wait, the first `upgrade` is final. */
  waitMs: number;
  /** The wait as the user set it, in the warning. */
  seconds: number;
  report: Reporter;
  name: string | undefined;
  /** A wait beginning now: a key's first, or the one after making room. */
  begin: () => Queue;
  /** `key`'s turn, beside the session being replaced while ending it may still make room; none once cancelled. */
  turn: (key: string, beside: string | undefined) => KeyTurn;
}

/**
 * What a failed create of `turn` leads to: any failure but `upgrade` is thrown as it is. An `upgrade`
 * refusal is the capacity wait's (capacityStep): create again at once, or after a pause. When the wait
 * gives up and the key may still make room beside the session being replaced (a replacement the engine
 * makes create-before-delete: --replace, a tainted resource, a replacementTrigger, or the program's
 * deleteBeforeReplace: false), the running limit leaves no room beside it, the replacement could never
 * start, and the engine would end the old session only after it had: the old session is ended first, as
 * delete-before-replace would, and said so, and the key starts a fresh capacity wait. The engine's delete
 * of the old session afterwards finds it ended. Otherwise the refusal is final and thrown.
 */
async function afterRefusal(ctx: ProviderContext, turn: KeyTurn, err: unknown, capacity: Capacity): Promise<void> {
  if (!isRemoteBrowserError(err) || err.code !== "upgrade") throw err;
  const { queue } = turn;
  const quota = capacity.waitMs > 0 ? await ctx.api().quota() : undefined;
  const next = capacityStep({ refusal: err, quota, wait: queue.wait, waitMs: capacity.waitMs, clock: ctx.clock });
  switch (next.kind) {
    case "again":
      queue.wait = next.wait;
      return;
    case "pause": {
      if (next.first) {
        void capacity.report.warning(
          `${sessionName(capacity.name)}: the account's running limit is reached (${next.quota.running_sessions_used} of ${next.quota.running_session_limit}); ` +
            `waiting up to ${capacity.seconds} s for a free slot`,
        );
      }
      queue.wait = next.wait;
      return capacityPause(next, { waiting: ctx, queued: queue.queued });
    }
    case "final": {
      if (!turn.beside) throw next.error;
      const meter = await ctx.api().quota();
      if (!endingMakesRoom(meter)) throw next.error;
      await ctx.api().removeSession(turn.beside);
      await capacity.report.warning(
        `${sessionName(capacity.name)}: the account's running limit (${meter.running_session_limit}) leaves no room for the replacement beside session ${turn.beside}, ` +
          "so that session was ended first, as deleteBeforeReplace does; its link is down until the replacement runs",
      );
      turn.beside = undefined;
      turn.queue = capacity.begin();
      return;
    }
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
  await ctx
    .reporter(req.urn)
    .warning(
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

type FailureClass = new (message: string, ctx?: MemberContext) => RemoteBrowserError;

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
async function failAndRemove(ctx: ProviderContext, outs: SessionOutputs, f: { Failure: FailureClass; why: string }): Promise<never> {
  try {
    await ctx.api().removeSession(outs.vmId);
  } catch (err) {
    // The engine records a resource that was created but failed to initialise: each front shapes it.
    throw new SessionKeptError(`${f.why}; ending it failed as well (${errorText(err)}), so it is kept in the stack: run \`pulumi destroy\` or \`pulumi up\` again to end it`, {
      vmId: outs.vmId,
      cause: err,
      outputs: { ...outs, status: "unknown" } as unknown as Record<string, unknown>,
    });
  }
  throw new f.Failure(`${f.why}; the session was ended`, { vmId: outs.vmId });
}

/**
 * A create's failure as a front throws it to its host: a SessionKeptError that carries a session's outputs
 * becomes the engine's "created but failed to initialise" (SessionKeptError.recordedAs), recording the
 * outputs in the front's `shape` but for the secret ones -- the dynamic provider host records a failed
 * create's properties as given, with no way to mark one secret, and a kept session needs nothing but its
 * id and owner for the destroy that ends it -- so that one failed create leaves the same state whichever
 * front served it. `shape` is told the layout version of the record, which the front records with it
 * (state.ts). Any other error is thrown as it is.
 */
export function asInitFailure(err: unknown, shape: (recorded: Record<string, unknown>, stateVersion: number) => Record<string, unknown>): unknown {
  if (!(err instanceof SessionKeptError) || !err.outputs) return err;
  const o = err.outputs;
  const recorded = Object.fromEntries(
    Object.keys(o)
      .filter((k) => !(SECRET_OUTPUTS as readonly string[]).includes(k))
      .map((k) => [k, o[k]]),
  );
  return err.recordedAs(shape(withoutNulls(recorded), CURRENT_STATE_VERSION));
}

/** The request the service is sent: the API inputs that are set. */
export function apiRequest(inputs: Record<string, unknown>): CreateRequest {
  return presentOf(inputs, API_INPUTS) as unknown as CreateRequest;
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

/**
 * Import: takes over a session that was started elsewhere, by the configured key's account. The status
 * operation tells its state, browser and start time but not its share link, so an adopted session has
 * no shareUrl; its other inputs are recorded as declared, unconfirmed, and a warning says so
 * (core/declaration.ts, markUnconfirmed). It records the account's fingerprint, like a session this provider started.
 */
export async function adoptV8(ctx: ProviderContext, req: AdoptSessionRequest): Promise<{ id: string; outs: SessionOutputs }> {
  const { inputs, vmId } = req;
  const client = ctx.api();
  const { entry, owner } = await sessionToTakeOver(ctx, vmId, inputs.browser, `importing ${vmId}`);
  const outs: SessionOutputs = { ...mirrorInputs(inputs), vmId, status: entry.status, apiVersion: "v8", ...fromEntry(entry), owner };
  await ctx.reporter(req.urn).warning(unconfirmedWarning(vmId, Object.keys(mirrorInputs(inputs))));
  if (entry.status === "running") return { id: vmId, outs };
  const outcome = await waitForRunning({
    client,
    vmId,
    timeoutMs: (inputs.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS) * 1000,
    waiting: ctx,
    looks: { schedule: ctx.schedule },
    onProgress: sessionProgress(ctx.reporter(req.urn)).waiting,
  });
  if (outcome.kind !== "running") throw new ImportError(`importing ${vmId}: it did not reach running (${describe(outcome)})`, { vmId });
  return { id: vmId, outs: { ...outs, ...fromEntry(outcome.entry) } };
}

/** Version 7 has no status operation: there is nothing to take over by. */
export async function adoptV7(_ctx: ProviderContext, { vmId }: AdoptSessionRequest): Promise<never> {
  throw new ImportError(`importing ${vmId}: API version 7 has no status operation`, { vmId });
}

/** Import, by the configured version. */
export const ADOPT: Record<ApiVersion, typeof adoptV8> = { v8: adoptV8, v7: adoptV7 };

/**
 * The session to take over, checked: known to the key's account, not ended, and running `browser` when
 * given. `doing` says what the user asked for, in their words (an import, a `get`).
 */
export async function sessionToTakeOver(ctx: ProviderContext, vmId: string, browser: string | undefined, doing: string) {
  const owner = await ctx.owner();
  const entry = takenEntry(await ctx.api().statusRead(vmId), vmId, doing);
  if (!entry) {
    // The account's fingerprint means nothing to a user here; what to check does.
    throw new ImportError(`${doing}: the service knows no such session of the account whose key is configured; check the id, and that the key is the one of the account that started the session`, {
      vmId,
    });
  }
  if (hasEndedOrFailed(entry.status)) {
    throw new ImportError(`${doing}: the session has ended (state "${entry.status}"), so there is nothing to take into the stack`, { vmId });
  }
  const image = (await ctx.images()).images.find((i) => i.name === entry.name);
  if (browser !== undefined && image && image.id !== browser) {
    throw new ImportError(`${doing}: it runs ${entry.name} (browser "${image.id}"), not browser "${browser}"`, { vmId });
  }
  return { entry, image, owner };
}

/**
 * The entry an import takes from a status read: the session's own, or -- when every answer listed other
 * sessions too -- the one listed entry whose masked id agrees with the id asked for. With none or several
 * agreeing, nothing tells which is this session: the import is refused rather than made from another
 * session's entry. Undefined: the service knows no such session.
 */
function takenEntry(read: StatusRead, vmId: string, doing: string): SessionEntry | undefined {
  if (read.kind !== "unproven") return read.entry;
  if (read.agreeing.length === 1) return { ...read.agreeing[0]!, id: vmId };
  throw new ImportError(
    `${doing}: ${unprovenText(read)}; ${read.agreeing.length === 0 ? "no listed entry agrees" : `${read.agreeing.length} listed entries agree`} with the id, ` +
      "so which is this session cannot be told and nothing was imported; try again later, when the service answers the id with that session alone",
    { vmId },
  );
}

export interface ReadResult {
  id?: string;
  props?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  /** The layout version `props` are in, for the front to record (state.ts); absent: keep the recorded one. */
  stateVersion?: number;
}

/**
 * Refresh, by the version the session was started with. (The engine's import would call this without
 * props; the SDK turns imports into adoptions instead.)
 */
export const read = byRecordedVersion<ReadResult>({ v8: readV8, v7: readV7 }, "refreshing a session");

/**
 * Version 8: the session's state from the service. A session that has ended, failed or that the service
 * does not know is gone (no id) -- but "unknown" means gone only when the account and service that made
 * the session are the ones asking, as its fingerprint shows; under another one, or when nothing recorded
 * shows it, read fails and the session stays in the stack.
 */
export async function readV8(ctx: ProviderContext, { id, props, stateVersion, urn, name }: ReadSessionRequest): Promise<ReadResult> {
  const { proven, state } = assertSameRecord(id, { owner: props.owner, version: stateVersion }, await ctx.identity(), "refreshing");
  const read = await ctx.api().statusRead(id);
  if (read.kind === "unproven") {
    // Neither "gone" nor "running" is proven. The engine's Read does not say whether it is an explicit
    // refresh or the one it runs before an update or a destroy (refresh_before_update): failing would fail
    // that update or destroy too, and leave the session running and billed. So the record stays as it is.
    await ctx
      .reporter(urn)
      .warning(`${sessionName(name)}: refreshing session ${id}: ${unprovenText(read)}. It stays in the stack as recorded (status "${String(props.status)}", not confirmed); a destroy still ends it`);
    return { id, props, inputs: inputsFrom(props) };
  }
  const { entry } = read;
  if (!entry && !proven) throw unprovenOwner(id, props.owner, "refreshing");
  if (!entry || hasEndedOrFailed(entry.status)) return {};
  // The service shows the session to this account, so it is this account's: a record of an earlier layout
  // (no fingerprint, or the legacy one) is migrated to the current one now, and every record gains its
  // layout's version (the one refresh after the upgrade changes the session's outputs; later ones do not).
  const outs = withoutNulls({ ...props, ...fromEntry(entry), owner: state.owner });
  return { id, props: outs, inputs: inputsFrom(outs), stateVersion: state.version };
}

/** Version 7: no status operation, so refresh keeps what was recorded. */
export async function readV7(ctx: ProviderContext, { id, props, urn, stateVersion }: ReadSessionRequest): Promise<ReadResult> {
  await ctx.reporter(urn).warning(`BrowserSession ${id}: API version 7 has no status operation; refresh keeps the recorded state`);
  // Kept as recorded, not migrated (nothing is read to compare with): a record of before versions gains the one it has.
  const unversioned = stateVersion === undefined || stateVersion === null;
  return { id, props, inputs: inputsFrom(props), ...(unversioned ? { stateVersion: inferredStateVersion(props.owner) } : {}) };
}

/**
 * Whether a recorded session has provably ended outside Pulumi, for a front whose engine never reads it
 * before an update (the dynamic provider's protocol has no refresh_before_update): the reason, in the
 * user's words, or undefined when it runs or nothing proves otherwise. One list of the account's sessions
 * per process (the shared poll's) answers every session listed as live; only a session listed as ended,
 * missing from the list, or not told apart in it is read on its own, and that read decides: ended or
 * failed as its own entry says, or unknown to the account and service that made it (its fingerprint
 * shows). An answer that proves nothing -- a list for the id, another account's key, the service down --
 * is never an end: at worst a session that has ended is kept until the next refresh.
 */
export async function endedOutside(ctx: ProviderContext, { id, props, stateVersion }: RecordedSessionRequest): Promise<string | undefined> {
  if (ctx.versionOf(props).name !== "v8" || !id) return undefined;
  try {
    const client = ctx.api();
    const listed = (await client.polls.listedOnce()).filter((e) => e.id === id || maskedIdMatches(e.id, id));
    if (listed.length === 1 && !hasEndedOrFailed(listed[0]!.status)) return undefined;
    const read = await client.statusRead(id, { priority: "poll" });
    if (read.kind === "found") return hasEndedOrFailed(read.entry.status) ? `the service reports it "${read.entry.status}"` : undefined;
    if (read.kind === "unproven") return undefined;
    const { proven } = assertSameRecord(id, { owner: props.owner, version: stateVersion }, await ctx.identity(), "checking");
    return proven ? "the service no longer knows it" : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Read by id alone, as the engine does for `pulumi import` and a resource's `get` (`doing` says which, in
 * the caller's words): the session's state, and
 * the inputs that declare it -- its browser, the one input the status operation lets us recover. A
 * session that is unknown to the configured key's account, or has ended, fails the read: importing it
 * would put a session in the stack that the next refresh drops.
 */
export async function readById(ctx: ProviderContext, vmId: string, doing: string): Promise<{ inputs: SessionInputs; outs: SessionOutputs; stateVersion: number }> {
  checkSessionId(vmId, doing);
  if (ctx.version().name !== "v8") throw new ImportError(`${doing}: API version 7 has no status operation`, { vmId });
  const { entry, image, owner } = await sessionToTakeOver(ctx, vmId, undefined, doing);
  if (!image) {
    throw new ImportError(`${doing}: it runs "${entry.name}", which is not among the service's browser images, so its browser input cannot be given`, {
      vmId,
    });
  }
  const inputs: SessionInputs = { browser: image.id };
  return { inputs, outs: { ...inputs, vmId, status: entry.status, apiVersion: "v8", ...fromEntry(entry), owner }, stateVersion: CURRENT_STATE_VERSION };
}

/** Destroy, by the version the session was started with. `props` are the recorded outputs. */
export const del = byRecordedVersion<void, DeleteSessionRequest>({ v8: deleteV8, v7: deleteV7 }, "ending a session");

/**
 * Version 8: ends the session. One the service does not know counts as gone -- if the account that made
 * it asks, as its fingerprint shows. Every other failure is thrown, so the resource stays in the stack
 * for the next destroy.
 */
export async function deleteV8(ctx: ProviderContext, req: DeleteSessionRequest): Promise<void> {
  if (req.handedToReplacement) {
    // Within one update the engine deletes a session a create has just handed it only as the original of
    // a create-before-delete replacement: that create was not shown the session it replaces (a replacement
    // the engine decides without asking the provider), and its idempotency key answered with that very
    // session, started by an earlier run. Ending it would leave the stack recording an ended session.
    await ctx
      .reporter(req.urn)
      .warning(
        `${sessionName(req.name)}: session ${req.id} was not replaced: the engine replaced it create-before-delete without showing the provider the ` +
          "session it replaces, and its replacement is the same session, which keeps running. To replace it, set the resource option " +
          "deleteBeforeReplace: true, or run the same command with --refresh",
      );
    return;
  }
  const seconds = req.engineTimeoutSeconds;
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return endSession(ctx, req);
  // customTimeouts.delete bounds the whole of it -- the account read, the remove and its retries, the
  // look that tells "unknown" from "refused" -- and not only each call.
  const bound = new AbortController();
  const timer = setTimeout(() => bound.abort(new Error("customTimeouts.delete")), seconds * 1000);
  const timedOut = new Promise<never>((_, reject) => bound.signal.addEventListener("abort", () => reject(bound.signal.reason), { once: true }));
  const ending = endSession(ctx, req, bound.signal);
  ending.catch(() => undefined);
  try {
    return await Promise.race([ending, timedOut]);
  } catch (err) {
    if (!bound.signal.aborted) throw err;
    throw new SessionKeptError(
      `ending session ${req.id} did not finish within the resource's customTimeouts.delete (${seconds} s), so it stays in the stack and may still run: ` +
        "run `pulumi destroy` again (or `pulumi up`) once the service answers, or raise customTimeouts.delete",
      { vmId: req.id },
    );
  } finally {
    clearTimeout(timer);
  }
}

async function endSession(ctx: ProviderContext, { id, props, stateVersion }: DeleteSessionRequest, signal?: AbortSignal): Promise<void> {
  const client = ctx.api();
  const record = { owner: props.owner, version: stateVersion };
  // State of 0.1.0 (layout 1) has no fingerprint to compare: the account is not read, and nothing is proven.
  let proven = false;
  if (recordsOwner(record)) {
    let identity: OwnerIdentity;
    try {
      identity = await ctx.identity();
    } catch (err) {
      throw keptInStack(id, err);
    }
    proven = assertSameRecord(id, record, identity, "ending").proven;
  }
  try {
    await client.removeSession(id, signal);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    // `denied` means an unknown session -- or a refused key. Only the first counts as gone.
    if (isRemoteBrowserError(err) && err.code === "denied") {
      let entry: SessionEntry | undefined;
      try {
        entry = await client.session(id, signal);
      } catch (lookup) {
        throw keptInStack(id, lookup);
      }
      if (!entry) {
        if (proven) return;
        throw unprovenOwner(id, props.owner, "ending");
      }
    }
    throw keptInStack(id, err);
  }
}

/** Version 7 cannot end sessions: destroy says so and lets the resource go. */
export async function deleteV7(ctx: ProviderContext, { id, urn }: DeleteSessionRequest): Promise<void> {
  await ctx.reporter(urn).warning(`BrowserSession ${id} was started with API version 7, which cannot end sessions: end it in the service's console`);
}

function keptInStack(id: string, err: unknown): SessionKeptError {
  return new SessionKeptError(`ending session ${id} failed, so it stays in the stack for a later destroy to retry: ${errorText(err)}`, {
    vmId: id,
    cause: err,
  });
}

/**
 * A session id as the engine hands it over (`pulumi import`, a `get`, a state edited by hand): bounded
 * before it reaches a request or a message. Real ids are a short prefix and a unique part; an id this long
 * is a mistake, and repeating megabytes of it in an error would reset the engine's stream.
 */
export const MAX_SESSION_ID_LENGTH = 256;

/**
 * Refuses an empty, overlong or masked id before any call, without repeating a long one; `doing` says what
 * the user asked for. A masked id -- as the service's list of the account's sessions shows it (getSessions,
 * the audit) -- hides part of the id, and the service addresses a session only by its whole id.
 */
export function checkSessionId(id: string, doing: string): void {
  if (id.length === 0) throw new ValidationError(`${doing}: the session id is empty`);
  if (id.length > MAX_SESSION_ID_LENGTH) {
    throw new ValidationError(`${doing}: the session id is ${id.length} characters long, not a session id (at most ${MAX_SESSION_ID_LENGTH}); check the id given`);
  }
  if (isMasked(id)) {
    throw new ValidationError(
      `${doing}: "${id}" is a masked id: the service's list of the account's sessions (getSessions, the audit) hides part ` +
        "of each id behind mask characters (*, • or …), and a masked id cannot address a session. Use the session's whole " +
        "id, as the create returned it (a stack's vmId output, or whatever started the session)",
    );
  }
}
