/**
 * The provider's one error family, above the client's (whose RemoteBrowserError keeps the service's own
 * refusals). Every failure the provider itself decides on is a ProviderError with a stable `code`, so
 * tools -- and tests -- tell them apart without reading the message.
 *
 * A stack's stored provider loads the installed package at call time, but a program may hold another
 * copy of these classes (two versions in one node_modules, or a bundled copy). So each error carries a
 * `Symbol.for` brand, and `instanceof` is answered from the brand and the code, not from the prototype.
 *
 * Only a {@link SessionKeptError} of a failed create is given an `id` (SessionKeptError.recordedAs, which
 * the fronts call): the dynamic provider host treats any error with an `id` as "created but failed to
 * initialise" and keeps the resource in the state. The others name the session `vmId`, so that they can never be mistaken for that.
 */

const BRAND = Symbol.for("pulumi-remote-browser.ProviderError");

export type ProviderErrorCode =
  | "configuration" // the provider's settings are missing or malformed (the client's code for the same)
  | "key_refused" // the service refused the API key, or the account has no programmatic access
  | "validation" // an input breaks a rule where no per-property check report is possible (components)
  | "stale_idempotency_key" // a key set by the user belongs to a session that has ended
  | "idempotency_keys_exhausted" // every key of the derived chain belongs to an ended session
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

export interface ProviderErrorContext {
  /** The session concerned, when there is one. */
  vmId?: string;
  cause?: unknown;
  /** The setting or input at fault, when there is one: preview shows the failure on it. */
  property?: string;
}

export abstract class ProviderError extends Error {
  readonly [BRAND] = true;
  abstract readonly code: ProviderErrorCode;
  readonly vmId?: string;
  readonly property?: string;

  constructor(message: string, ctx: ProviderErrorContext = {}) {
    super(message);
    // Not through Error's options argument: the language host's ts-node compiles these sources for ES2020.
    if (ctx.cause !== undefined) Object.defineProperty(this, "cause", { value: ctx.cause, writable: true, configurable: true });
    if (ctx.vmId !== undefined) this.vmId = ctx.vmId;
    if (ctx.property !== undefined) this.property = ctx.property;
  }

  /**
   * `err instanceof ConfigError` holds for a ConfigError of any copy of this package: the brand says it
   * is of the family, the code which member. `err instanceof ProviderError` holds for every member.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (!isProviderError(value)) return false;
    const code = (this as unknown as { CODE?: ProviderErrorCode }).CODE;
    return code === undefined || value.code === code;
  }
}

export function isProviderError(err: unknown): err is ProviderError {
  return typeof err === "object" && err !== null && (err as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * One short class per code. `name` and `code` are fixed per class; `CODE` is what `instanceof` compares.
 */
function member<C extends ProviderErrorCode>(code: C, name: string) {
  const Member = class extends ProviderError {
    static readonly CODE: C = code;
    readonly code: C = code;
    constructor(message: string, ctx?: ProviderErrorContext) {
      super(message, ctx);
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

/** A session bound to one account and service, asked about with the key of another (see state.ts). */
export class AccountMismatchError extends ProviderError {
  static readonly CODE = "account_mismatch";
  readonly code = "account_mismatch" as const;
  constructor(
    message: string,
    /** The fingerprint recorded with the session. */
    readonly recorded: string,
    /** The fingerprint of the configured key's account and service. */
    readonly current: string,
    ctx?: ProviderErrorContext,
  ) {
    super(message, ctx);
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
export class SessionKeptError extends ProviderError {
  static readonly CODE = "kept_in_stack";
  readonly code = "kept_in_stack" as const;
  /** The outputs of a session a failed create leaves running. */
  readonly outputs?: Record<string, unknown>;
  /** The engine's shape of a resource created but not initialised: only on what `recordedAs` returns. */
  readonly id?: string;
  readonly properties?: Record<string, unknown>;
  readonly reasons?: string[];
  constructor(message: string, ctx: ProviderErrorContext & { vmId: string; outputs?: Record<string, unknown>; properties?: Record<string, unknown> }) {
    super(message, ctx);
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
