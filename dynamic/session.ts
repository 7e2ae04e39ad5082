import { check, type Failure, diff, update, type SessionInputs, type SessionOutputs, presentOf, withoutNulls } from "../core/declaration";
import { ProviderContext, type ProviderDeps } from "../core/context";
import { asInitFailure, create, del, read, type ReadResult } from "../core/controller";
import { engineDiagnostics } from "../engine-conventions/diagnostics";
import { engineWatcher } from "../engine-conventions/liveness";
import { isUrn, urnName, recordedStateVersion, withStateVersion } from "../engine-conventions/wire";
import { RECORDED, withIdempotencyKey, type DynamicInputs, type DynamicOutputs } from "./wireFields";

export type { ProviderDeps } from "../core/context";
export type { SessionInputs, SessionOutputs } from "../core/declaration";

export type { DynamicInputs, DynamicOutputs } from "./wireFields";

/**
 * BrowserSession's dynamic provider, the front that stored providers of every release reach through
 * dynamic/index.ts: one method per engine call, each translating the dynamic resource's wire fields into
 * what the core's operation takes (core/declaration.ts: check, diff; core/controller.ts: create, read, delete).
 */
export class SessionProvider {
  readonly ctx: ProviderContext;

  constructor(deps: Partial<ProviderDeps> = {}) {
    this.ctx = new ProviderContext({
      ...deps,
      engineAlive: deps.engineAlive ?? engineWatcher(),
      diagnostics: deps.diagnostics ?? engineDiagnostics(),
    });
  }

  /** Reads the provider's settings; `get` takes a key of the `remote-browser` namespace without prefix. */
  configure(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): void {
    this.ctx.configure(get, env);
  }

  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
    return check(this.ctx, { news });
  }

  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    this.ctx.recordedSessionShown(id);
    const { changes, replaces, updates, deleteBeforeReplace } = diff({ olds, news });
    // The program's replaceOnChanges, which the engine cannot apply to a dynamic resource (see wireFields.ts).
    const asked = Array.isArray(news.__replaceOnChanges) ? (news.__replaceOnChanges as unknown[]) : [];
    const replacedByOption = updates.filter((k) => asked.includes(k) || asked.includes("*"));
    return { changes, replaces: [...replaces, ...replacedByOption], deleteBeforeReplace };
  }

  async create(inputs: SessionInputs & DynamicInputs & Record<string, unknown>): Promise<{ id: string; outs: DynamicOutputs }> {
    const { __seed, __adoptVmId, __urn, __provider, ...plain } = inputs;
    const urn = urnOf(__urn);
    try {
      const { id, outs, idempotencyKey, stateVersion } = await create(this.ctx, {
        inputs: plain as SessionInputs & Record<string, unknown>,
        seed: __seed,
        urn,
        name: urn && urnName(urn),
        adoptVmId: __adoptVmId || undefined,
      });
      const wired = withoutNulls(outs as unknown as Record<string, unknown>) as unknown as SessionOutputs;
      return { id, outs: { ...withStateVersion(withIdempotencyKey(wired, idempotencyKey), stateVersion), ...presentOf(inputs, RECORDED) } };
    } catch (err) {
      // Outputs of a failed create are stored as they are given: the stored provider must be among them,
      // or the later destroy could not load it.
      throw asInitFailure(err, (kept, stateVersion) => withoutNulls({ ...withStateVersion(kept, stateVersion), ...presentOf(inputs, RECORDED), __provider }));
    }
  }

  async read(id: string, props: Record<string, unknown> = {}): Promise<ReadResult> {
    // The dynamic provider host does not say which resource it reads: its warnings go to the stack.
    this.ctx.recordedSessionShown(id);
    const { stateVersion, ...result } = await read(this.ctx, { id, props, stateVersion: recordedStateVersion(props) });
    if (!result.props || !result.inputs) return result;
    return { ...result, props: withStateVersion(result.props, stateVersion), inputs: { ...result.inputs, ...presentOf(props, RECORDED) } };
  }

  update(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>): { outs: Record<string, unknown> } {
    return update({ olds, news });
  }

  delete(id: string, props: Record<string, unknown>): Promise<void> {
    return del(this.ctx, { id, props, stateVersion: recordedStateVersion(props) });
  }
}

/**
 * The resource's URN from `__urn`: the engine does not tell a dynamic provider's create which resource it
 * serves. Absent from programs of earlier releases.
 */
export function urnOf(urn: unknown): string | undefined {
  return isUrn(urn) ? urn : undefined;
}
