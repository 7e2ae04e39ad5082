import { check, type Failure, diff, update, type SessionInputs, type SessionOutputs, presentOf, withoutNulls } from "../core/declaration";
import { ProviderContext, type ProviderDeps } from "../core/context";
import { asInitFailure, create, del, endedOutside, read, type ReadResult } from "../core/controller";
import { resourceSeed, sessionName } from "../core/launch";
import { engineDiagnostics } from "../engine-conventions/diagnostics";
import { engineWatcher } from "../engine-conventions/liveness";
import { isUrn, urnName, recordedStateVersion, withStateVersion } from "../engine-conventions/wire";
import { backendIdentity } from "../engine-conventions/backend";
import { ShownSessions } from "../engine-conventions/replacements";
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
  /** What the engine showed this process of each resource's recorded session (engine-conventions/replacements.ts). */
  private readonly shown = new ShownSessions();
  private readonly stackIdentity: () => string | undefined;

  /**
   * `stackIdentity`: what tells this stack apart from another of the same project and name (the backend it
   * is kept in, engine-conventions/backend.ts), the first part of every session's seed.
   */
  constructor(deps: Partial<ProviderDeps> = {}, o: { stackIdentity?: () => string | undefined } = {}) {
    this.ctx = new ProviderContext({
      ...deps,
      engineAlive: deps.engineAlive ?? engineWatcher(),
      diagnostics: deps.diagnostics ?? engineDiagnostics(),
    });
    this.stackIdentity = o.stackIdentity ?? (() => backendIdentity());
  }

  /** Reads the provider's settings; `get` takes a key of the `remote-browser` namespace without prefix. */
  configure(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): void {
    this.ctx.configure(get, env);
  }

  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
    return check(this.ctx, { news });
  }

  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    this.shown.shown(resourceOf(news) ?? resourceOf(olds), id, olds);
    const { changes, replaces, updates, deleteBeforeReplace } = diff({ olds, news });
    // The program's replaceOnChanges, which the engine cannot apply to a dynamic resource (see wireFields.ts).
    const asked = Array.isArray(news.__replaceOnChanges) ? (news.__replaceOnChanges as unknown[]) : [];
    const replacedByOption = updates.filter((k) => asked.includes(k) || asked.includes("*"));
    return { changes, replaces: [...replaces, ...replacedByOption], deleteBeforeReplace };
  }

  /**
   * The diff the engine asks for on every update and preview: `diff`, and, when that keeps the session, a
   * replacement if the service proves it has ended outside Pulumi (endedOutside), said on the resource's
   * row. The native resource is read before every update for this (refresh_before_update); the dynamic
   * provider's protocol has no such mark, and its diff is the one call it gets before the update.
   */
  async diffWithService(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    const planned = this.diff(id, olds, news);
    if (planned.replaces.length > 0) return planned;
    const why = await endedOutside(this.ctx, { id, props: olds, stateVersion: recordedStateVersion(olds) });
    if (why === undefined) return planned;
    const urn = urnOf(news.__urn);
    await this.ctx.reporter(urn).warning(`${sessionName(urn && urnName(urn))}: session ${id} has ended outside Pulumi (${why}), so it is replaced by a new session`);
    return { ...planned, changes: true, replaces: ["status"] };
  }

  async create(inputs: SessionInputs & DynamicInputs & Record<string, unknown>): Promise<{ id: string; outs: DynamicOutputs }> {
    const { __seed, __adoptVmId, __urn, __provider, ...plain } = inputs;
    const urn = urnOf(__urn);
    try {
      const { id, outs, idempotencyKey, stateVersion, handedOver } = await create(this.ctx, {
        inputs: plain as SessionInputs & Record<string, unknown>,
        // The stack's identity, then the resource's: its URN, which names its parents' types (two sessions
        // of one name under components of two types are two resources), else, from a program of a release
        // that did not send the URN, project/stack/name.
        seed: (urn ?? __seed) ? resourceSeed(this.stackIdentity(), (urn ?? __seed)!) : undefined,
        urn,
        name: urn && urnName(urn),
        adoptVmId: __adoptVmId || undefined,
        ...this.shown.replacement(resourceOf(inputs)),
      });
      if (handedOver) this.shown.handed(id);
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
    const { stateVersion, ...result } = await read(this.ctx, { id, props, stateVersion: recordedStateVersion(props) });
    this.shown.shown(resourceOf(props), id, props);
    if (!result.props || !result.inputs) return result;
    return { ...result, props: withStateVersion(result.props, stateVersion), inputs: { ...result.inputs, ...presentOf(props, RECORDED) } };
  }

  update(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>): { outs: Record<string, unknown> } {
    return update({ olds, news });
  }

  async delete(id: string, props: Record<string, unknown>): Promise<void> {
    await del(this.ctx, { id, props, stateVersion: recordedStateVersion(props), handedToReplacement: this.shown.wasHanded(id) });
    // Before a replacement (delete-before-replace, the SDK's default), the session it replaces.
    this.shown.shown(resourceOf(props), id, props);
  }
}

/**
 * Which resource a call is about, from its wire fields: the URN, else (a program or state of a release that
 * did not send or record it) project/stack/name.
 */
function resourceOf(fields: Record<string, unknown>): string | undefined {
  return urnOf(fields.__urn) ?? (typeof fields.__seed === "string" && fields.__seed !== "" ? fields.__seed : undefined);
}

/**
 * The resource's URN from `__urn`: the engine does not tell a dynamic provider's create which resource it
 * serves. Absent from programs of earlier releases.
 */
export function urnOf(urn: unknown): string | undefined {
  return isUrn(urn) ? urn : undefined;
}
