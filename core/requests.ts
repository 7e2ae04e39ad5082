import type { ApiVersion } from "../client";
import type { ProviderContext } from "./context";
import type { SessionInputs } from "./fields";
import { checkSessionId } from "./ids";

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
}

export type ReadSessionRequest = RecordedSessionRequest;

export interface DeleteSessionRequest extends RecordedSessionRequest {
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
export function byRecordedVersion<R, Q extends RecordedSessionRequest = RecordedSessionRequest>(
  ops: Record<ApiVersion, (ctx: ProviderContext, req: Q) => Promise<R>>,
  doing: string,
) {
  return async (ctx: ProviderContext, req: Q): Promise<R> => {
    checkSessionId(req.id, doing);
    return ops[ctx.versionOf(req.props).name](ctx, req);
  };
}
