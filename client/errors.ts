/**
 * The package's one error family. Every failure a caller can see is a RemoteBrowserError with a stable
 * `code`, so tools -- and tests -- tell them apart without reading the message: the client's (the
 * service's refusals, which follow the answer's `status`; no usable answer; local refusals) and the
 * provider's own decisions, each of which has a member class of its own (ConfigError, SessionKeptError, ...).
 *
 * A stack's stored provider loads the installed package at call time, but a program may hold another
 * copy of these classes (two versions in one node_modules, or a bundled copy), and the dynamic provider's
 * serialised code may hold a copy that is not the one that threw. So each error carries a `Symbol.for`
 * brand, and `instanceof` is answered from the brand and the code, not from the prototype.
 *
 * Only a {@link SessionKeptError} of a failed create is given an `id` (SessionKeptError.recordedAs, which
 * the fronts call): the dynamic provider host treats any error with an `id` as "created but failed to
 * initialise" and keeps the resource in the state. The others name the session `vmId`, so that they can never be mistaken for that.
 */

const BRAND = Symbol.for("pulumi-remote-browser.RemoteBrowserError");

export type ErrorCode =
  | "denied" // status denied: bad key, unknown session, invalid field
  | "upgrade" // status upgrade: the plan lacks the feature or a limit is reached
  | "insecure" // status insecure: a security check other than the rate limit failed (see `reason`)
  | "rate_limited" // the per-key rate limit: status insecure with reason rate_limited, or an HTTP 429 without an answer
  | "service" // status error: a fault on the service side
  | "network" // no answer: connection refused, reset, DNS
  | "timeout" // no answer within the per-attempt timeout or the overall deadline
  | "invalid_answer" // an answer that does not match the API's schema
  | "invalid_request" // refused locally: a request that the API's schema rejects
  | "insecure_transport" // refused locally: the key would cross the network in plain text
  | "configuration" // refused locally: missing or malformed settings (ConfigError, when the provider's loader says so)
  | "key_refused" // the service refused the API key, or the account has no programmatic access
  | "validation" // an input breaks a rule where no per-property check report is possible (components)
  | "stale_idempotency_key" // a key set by the user belongs to a session that has ended
  | "idempotency_keys_exhausted" // no longer thrown: the key after an ended session has no last step (kept for programs that test for it)
  | "not_running_in_time" // the session was not running within readyTimeoutSeconds
  | "preparation_failed" // the session's preparation ended in `error`
  | "ended_while_starting" // the session ended, or was forgotten, before it was running
  | "location_not_applied" // requireLocation is set and the location could not be applied
  | "status_unreadable" // the session's status could not be read while waiting for it
  | "kept_in_stack" // a failure left a session that the stack keeps, for a later destroy to end
  | "engine_gone" // the engine went away; the provider stops acting
  | "cancelled" // the engine cancelled the update (Ctrl-C); a session that was starting is ended
  | "account_mismatch" // the session belongs to another account or service than the configured key's
  | "owner_unproven" // the service does not know the session, and nothing shows the configured key's account made it
  | "import_failed"; // the session named by the `import` option cannot be taken over

export interface ErrorContext {
  /**
   * What the client was doing, e.g. "create session". An error of the client's has one: its message says
   * that this failed, then the service's words and the session. The provider's own decisions have none:
   * their message is given whole.
   */
  operation?: string;
  /** The session concerned, when there is one. */
  vmId?: string;
  /** The service's own words, for refusals. */
  serverMessage?: string;
  /** For `insecure` and `rate_limited`: the check that failed (`rate_limited`, ...). */
  reason?: string;
  httpStatus?: number;
  /** For rate limits: how long the service asked us to wait. */
  retryAfterMs?: number;
  cause?: unknown;
  /** The setting or input at fault, when there is one: preview shows the failure on it. */
  property?: string;
}

/** What a member of the family is given beside its message. */
export type MemberContext = Pick<ErrorContext, "vmId" | "cause" | "property">;

export class RemoteBrowserError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly operation?: string;
  readonly vmId?: string;
  readonly serverMessage?: string;
  readonly reason?: string;
  readonly httpStatus?: number;
  readonly retryAfterMs?: number;
  readonly property?: string;

  constructor(code: ErrorCode, summary: string, ctx: ErrorContext) {
    super(composeMessage(summary, ctx));
    // Set here rather than through Error's options argument: that needs the ES2022 library, and the
    // package's sources are also compiled by the language host's ts-node, which targets ES2020.
    if (ctx.cause !== undefined) Object.defineProperty(this, "cause", { value: ctx.cause, writable: true, configurable: true });
    this.name = "RemoteBrowserError";
    this.code = code;
    if (ctx.operation === undefined) {
      // A member's carries only the fields it was given, the client's every field of its context: each as it always has.
      if (ctx.vmId !== undefined) this.vmId = ctx.vmId;
      if (ctx.property !== undefined) this.property = ctx.property;
      return;
    }
    this.operation = ctx.operation;
    this.vmId = ctx.vmId;
    this.serverMessage = ctx.serverMessage;
    this.reason = ctx.reason;
    this.httpStatus = ctx.httpStatus;
    this.retryAfterMs = ctx.retryAfterMs;
  }

  /** True when the service refused because of the per-key rate limit. */
  get rateLimited(): boolean {
    return this.code === "rate_limited";
  }

  /**
   * `err instanceof ConfigError` holds for a ConfigError of any copy of this package: the brand says it
   * is of the family, the code which member. `err instanceof RemoteBrowserError` holds for every error the
   * package throws.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (!isRemoteBrowserError(value)) return false;
    const code = (this as unknown as { CODE?: ErrorCode }).CODE;
    return code === undefined || value.code === code;
  }
}

function composeMessage(summary: string, ctx: ErrorContext): string {
  if (ctx.operation === undefined) return summary;
  const parts = [`${ctx.operation} failed: ${summary}`];
  if (ctx.serverMessage) parts.push(`service message: "${ctx.serverMessage}"`);
  if (ctx.vmId) parts.push(`vmId ${ctx.vmId}`);
  return parts.join("; ");
}

export function isRemoteBrowserError(err: unknown): err is RemoteBrowserError {
  return typeof err === "object" && err !== null && (err as Record<symbol, unknown>)[BRAND] === true;
}

const SUMMARIES: Record<"denied" | "upgrade" | "insecure" | "error", (reason?: string) => string> = {
  denied: () => "the service refused the request (denied)",
  upgrade: () => "the account's plan does not include this or one of its limits is reached (upgrade)",
  insecure: (reason) => (reason === "rate_limited" ? "the per-key rate limit was exceeded (insecure, reason rate_limited)" : `a security check failed (insecure${reason ? `, reason ${reason}` : ""})`),
  error: () => "the service reported a fault on its side (error)",
};

const CODES = { denied: "denied", upgrade: "upgrade", insecure: "insecure", error: "service" } as const;

/**
 * Maps a non-ok answer to the error of its family. The service's words pass through `scrub` (the
 * transport's serviceTextScrubber) on their way into the error: its `serverMessage`, its message, and
 * whatever later errors quote of them.
 */
export function errorFromAnswer(
  answer: { status: "denied" | "upgrade" | "insecure" | "error"; message?: string; reason?: string },
  ctx: Omit<ErrorContext, "serverMessage" | "reason">,
  scrub: (serviceText: string) => string,
): RemoteBrowserError {
  const reason = answer.reason === undefined ? undefined : scrub(answer.reason);
  // The rate limit is the one `insecure` that asking again later cures: a code of its own, not a reason to look up.
  const code = answer.status === "insecure" && reason === "rate_limited" ? "rate_limited" : CODES[answer.status];
  return new RemoteBrowserError(code, SUMMARIES[answer.status](reason), {
    ...ctx,
    serverMessage: answer.message === undefined ? "(no message)" : scrub(answer.message),
    reason,
  });
}

/** A member's context as the base class takes it: without an `operation`, which would make the message the client's. */
function given(ctx: MemberContext = {}): ErrorContext {
  return { vmId: ctx.vmId, cause: ctx.cause, property: ctx.property };
}

/**
 * One short class per code of the provider's own decisions. `name` and `code` are fixed per class; `CODE`
 * is what `instanceof` compares.
 */
function member<C extends ErrorCode>(code: C, name: string) {
  const Member = class extends RemoteBrowserError {
    static readonly CODE: C = code;
    declare readonly code: C;
    constructor(message: string, ctx?: MemberContext) {
      super(code, message, given(ctx));
      this.name = name;
    }
  };
  Object.defineProperty(Member, "name", { value: name });
  return Member;
}

export const ConfigError = member("configuration", "ConfigError");
export type ConfigError = InstanceType<typeof ConfigError>;
export const ValidationError = member("validation", "ValidationError");
export type ValidationError = InstanceType<typeof ValidationError>;
export const KeyRefusedError = member("key_refused", "KeyRefusedError");
export type KeyRefusedError = InstanceType<typeof KeyRefusedError>;
export const StaleIdempotencyKeyError = member("stale_idempotency_key", "StaleIdempotencyKeyError");
export type StaleIdempotencyKeyError = InstanceType<typeof StaleIdempotencyKeyError>;
/** No longer thrown (the chain of keys past ended sessions has no end); exported still, for programs that test for it. */
/** @deprecated Never thrown: the key after an ended session has no last step. Kept for programs that test for it. */
export const IdempotencyKeysExhaustedError = member("idempotency_keys_exhausted", "IdempotencyKeysExhaustedError");
export type IdempotencyKeysExhaustedError = InstanceType<typeof IdempotencyKeysExhaustedError>;
export const NotRunningInTimeError = member("not_running_in_time", "NotRunningInTimeError");
export type NotRunningInTimeError = InstanceType<typeof NotRunningInTimeError>;
export const PreparationFailedError = member("preparation_failed", "PreparationFailedError");
export type PreparationFailedError = InstanceType<typeof PreparationFailedError>;
export const EndedWhileStartingError = member("ended_while_starting", "EndedWhileStartingError");
export type EndedWhileStartingError = InstanceType<typeof EndedWhileStartingError>;
export const LocationNotAppliedError = member("location_not_applied", "LocationNotAppliedError");
export type LocationNotAppliedError = InstanceType<typeof LocationNotAppliedError>;
export const StatusUnreadableError = member("status_unreadable", "StatusUnreadableError");
export type StatusUnreadableError = InstanceType<typeof StatusUnreadableError>;
export const EngineGoneError = member("engine_gone", "EngineGoneError");
export type EngineGoneError = InstanceType<typeof EngineGoneError>;
export const CancelledError = member("cancelled", "CancelledError");
export type CancelledError = InstanceType<typeof CancelledError>;
export const ImportError = member("import_failed", "ImportError");
export type ImportError = InstanceType<typeof ImportError>;

/** A session bound to one account and service, asked about with the key of another (see core/state.ts). */
export class AccountMismatchError extends RemoteBrowserError {
  static readonly CODE = "account_mismatch";
  override readonly code = "account_mismatch" as const;
  constructor(
    message: string,
    /** The fingerprint recorded with the session. */
    readonly recorded: string,
    /** The fingerprint of the configured key's account and service. */
    readonly current: string,
    ctx?: MemberContext,
  ) {
    super("account_mismatch", message, given(ctx));
    this.name = "AccountMismatchError";
  }
}

/**
 * The service does not know a session whose record proves no owner (state of 0.1.0, or the legacy
 * fingerprint): it may have ended, or belong to another account and run on. It stays in the stack.
 */
export const OwnerUnprovenError = member("owner_unproven", "OwnerUnprovenError");
export type OwnerUnprovenError = InstanceType<typeof OwnerUnprovenError>;

/**
 * A failure that leaves a session running, kept in the stack so that a later `pulumi destroy` or
 * `pulumi up` ends it: the one error of "created but not initialised". From create it carries the
 * session's `outputs` (as recorded, share link included), which asInitFailure (core/controller.ts) turns
 * into what both hosts record through `recordedAs`. From delete it has no outputs: the resource is in the
 * state already and stays there.
 */
export class SessionKeptError extends RemoteBrowserError {
  static readonly CODE = "kept_in_stack";
  override readonly code = "kept_in_stack" as const;
  /** The outputs of a session a failed create leaves running. */
  readonly outputs?: Record<string, unknown>;
  /** The engine's shape of a resource created but not initialised: only on what `recordedAs` returns. */
  readonly id?: string;
  readonly properties?: Record<string, unknown>;
  readonly reasons?: string[];
  constructor(message: string, ctx: MemberContext & { vmId: string; outputs?: Record<string, unknown>; properties?: Record<string, unknown> }) {
    super("kept_in_stack", message, given(ctx));
    this.name = "SessionKeptError";
    // Not enumerable: an error may be printed or serialised whole.
    if (ctx.outputs) Object.defineProperty(this, "outputs", { value: ctx.outputs, enumerable: false });
    if (ctx.properties) {
      this.id = ctx.vmId;
      this.properties = ctx.properties;
      this.reasons = [message];
    }
  }

  /**
   * This failure as both hosts record a resource that was created but failed to initialise: with `id`,
   * `properties` (the outputs as asInitFailure in core/controller.ts records them: without the secret ones,
   * in each front's own form of a property map) and `reasons`,
   * the shape the dynamic provider host reads from the error it is thrown and the plugin's front door sends
   * as `ErrorResourceInitFailed` (plugin/rpc.ts). Both fronts so record the same for one failed create. A
   * delete's, with no outputs, is returned as it is.
   */
  recordedAs(properties: Record<string, unknown>): SessionKeptError {
    if (!this.outputs) return this;
    return new SessionKeptError(this.message, { vmId: this.vmId!, cause: this.cause, properties });
  }
}
