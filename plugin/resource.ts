import { check, type Failure, diff, update, INPUTS, SECRET_OUTPUTS, type SessionInputs, markUnconfirmed, unconfirmedWarning, withDeclaredAdopted, withoutNulls } from "../core/declaration";
import type { ProviderContext } from "../core/context";
import { asInitFailure, create, del, read, readById } from "../core/controller";
import { ConfigError } from "../core/config";
import { parseSessionsArgs, sessionsResult } from "../core/dataSources";
import { reveal, unwrapProperties, wrapSecrets, urnName, isBookkeeping, withoutBookkeeping } from "../engine-conventions/wire";
import { browserSessionSchema } from "./nativeSchema";
import type { ResourceSpec } from "./packageSchema";
import { BROWSER_SESSION } from "./identity";

/**
 * BrowserSession served by the plugin: the engine's calls, mapped onto the same core as the dynamic
 * resource (check, diff, create, read, update, delete of core/). What is particular to this front door:
 * secrets arrive and leave in the engine's envelope; the resource's URN is its identity (the seed of its
 * idempotency keys, and the row its progress goes to); the engine's create time-out bounds the wait; and a
 * read by id alone is an import.
 */
export class NativeBrowserSessions {
  /** The API key came as plain stack config, outside CheckConfig (keyInPlainConfig in providerConfig.ts): told at Configure (handlers.ts). */
  private keyInPlainConfig = false;

  constructor(private readonly ctx: ProviderContext) {}

  /** What Configure tells the adapter about the settings it received, beyond the context's settings. */
  configured(settings: { keyInPlainConfig: boolean }): void {
    this.keyInPlainConfig = settings.keyInPlainConfig;
  }

  async check(news: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
    const { failures } = await check(this.ctx, {}, reveal(news) as Record<string, unknown>);
    for (const name of Object.keys(news)) {
      // An own property: `constructor` or `toString` are not inputs, whatever the prototype holds.
      if (!Object.prototype.hasOwnProperty.call(INPUTS, name) && !isBookkeeping(name)) failures.push({ property: name, reason: `is not an input of BrowserSession (inputs: ${Object.keys(INPUTS).join(", ")})` });
    }
    // The inputs go back as they came, secrets still wrapped, so that the state keeps them secret; `__`
    // names (the dynamic resource's, in the state of a session moved over from it) pass check, and none is kept.
    return { inputs: withoutNulls(withoutBookkeeping(news)), failures };
  }

  /** `oldInputs`: the inputs the state records, which stand in for what an import could not record. */
  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs: Record<string, unknown> = {}) {
    const sides = withDeclaredAdopted(reveal(olds) as Record<string, unknown>, reveal(oldInputs) as Record<string, unknown>, reveal(news) as Record<string, unknown>);
    const o = sides.olds;
    const n = sides.news;
    this.ctx.recordedSessionShown(id);
    const { changes, replaces, updates, detailed, deleteBeforeReplace } = diff(o, n);
    // Per property, as `pulumi preview --diff` shows it: added, removed or changed, and whether on the
    // running session or on a new one.
    const detailedDiff = Object.entries(detailed).map(([property, kind]) => ({
      property,
      change: (absent(o[property]) ? "add" : absent(n[property]) ? "delete" : "update") as "add" | "delete" | "update",
      replace: kind === "replace",
    }));
    return { changes, replaces, deleteBeforeReplace, diffs: [...replaces, ...updates], detailedDiff };
  }

  async create(urn: string, news: Record<string, unknown>, engineTimeoutSeconds: number | undefined) {
    const { plain, secretNames } = unwrapProperties(news);
    const inputs = plain as unknown as SessionInputs & Record<string, unknown>;
    try {
      // The URN names the resource in its stack, its parents and its type: every attempt to create this
      // generation, in this run or the one after a killed update, derives the same idempotency key from it.
      const { id, outs } = await create(this.ctx, { inputs, seed: urn, urn, name: urnName(urn), engineTimeoutSeconds });
      return { id, outs: this.outputs(outs as unknown as Record<string, unknown>, secretNames) };
    } catch (err) {
      throw asInitFailure(err, (kept) => this.outputs(kept, secretNames));
    }
  }

  /**
   * Refresh (with the recorded outputs), or import and `get` (by id alone: no outputs recorded). An import
   * hands back the one input the service lets us recover, the browser, and marks the others unconfirmed,
   * with a warning: the engine's Read of an import carries no inputs, so what the program declares reaches
   * the plugin only at the diff that follows (core/declaration.ts, markUnconfirmed).
   */
  async read(id: string, props: Record<string, unknown>, inputs: Record<string, unknown>, urn?: string) {
    if (Object.keys(props).length > 0) this.ctx.recordedSessionShown(id);
    if (Object.keys(props).length === 0) {
      const doing = `reading session ${id.length <= 64 ? id : "(id not repeated)"} by its id (pulumi import, or a get)`;
      if (this.keyInPlainConfig) {
        // The engine would record the stack's config, the key in clear text, with the imported session.
        throw new ConfigError(
          `${doing}: refused, because remote-browser:apiKey is plain stack config and the import would record it in the state in clear text. ` +
            "Store it as a secret first (`pulumi config set --secret remote-browser:apiKey`, which reads it from standard input), then import again",
          { property: "apiKey" },
        );
      }
      const found = await readById(this.ctx, id, doing);
      await this.ctx.reporter(urn).warning(unconfirmedWarning(id));
      return { id, props: this.outputs(markUnconfirmed(found.outs) as unknown as Record<string, unknown>, []), inputs: found.inputs as unknown as Record<string, unknown> };
    }
    const { plain, secretNames } = unwrapProperties(props);
    const result = await read(this.ctx, { id, props: plain, urn, name: urn && urnName(urn) });
    if (!result.id || !result.props) return { id: "", props: {}, inputs: {} };
    // A session's inputs never change after it starts, so the recorded ones (secrets still wrapped) are
    // what the program declares: a refresh then shows no change.
    const recorded = Object.keys(inputs).length > 0 ? inputs : wrapSecrets(result.inputs ?? {}, secretNames);
    return { id: result.id, props: this.outputs(result.props, secretNames), inputs: recorded };
  }

  update(olds: Record<string, unknown>, news: Record<string, unknown>) {
    const o = unwrapProperties(olds);
    const n = unwrapProperties(news);
    const { outs } = update(o.plain, n.plain);
    return { outs: this.outputs(outs, new Set([...o.secretNames, ...n.secretNames])) };
  }

  async delete(id: string, props: Record<string, unknown>, urn?: string, engineTimeoutSeconds?: number): Promise<void> {
    return del(this.ctx, { id, props: reveal(props) as Record<string, unknown>, urn, name: urn && urnName(urn), engineTimeoutSeconds });
  }

  /**
   * The engine's List: the account's sessions from the one list call getSessions makes, at most `limit`
   * (0: all). The service masks their ids, so, unlike the call's contract, an id listed here cannot be read
   * or imported: it tells sessions apart and matches recorded vmIds, no more.
   */
  async list(query: Record<string, unknown>, limit: number): Promise<Array<{ id: string; name: string }>> {
    const { sessions } = await sessionsResult(this.ctx.api(), parseSessionsArgs(query, "List"));
    return (limit > 0 ? sessions.slice(0, limit) : sessions).map((s) => ({
      id: s.maskedId,
      name: `${s.browserName}, ${s.status}, started ${s.created} (id masked by the service)`,
    }));
  }

  /** Outputs as the state keeps them: the share link secret, and each output whose input was secret. */
  private outputs(outs: Record<string, unknown>, secretInputs: Iterable<string>): Record<string, unknown> {
    return wrapSecrets(withoutNulls(withoutBookkeeping(outs)), [...SECRET_OUTPUTS, ...secretInputs]);
  }
}

const absent = (v: unknown) => v === undefined || v === null;

/**
 * The custom resources the plugin serves natively, by type token: each one's schema and the adapter that
 * maps the engine's calls of that type onto the core. The served schema (servedSchema.ts) takes its
 * resources from here, and the handlers (handlers.ts) route Check, Diff, Create, Read, Update, Delete and
 * List by it; a type not here is the components' (ReviewSessions), which the SDK's server answers. The type
 * tokens themselves are in identity.ts, which the component and the front door read without loading this.
 */
export interface NativeResource {
  /** Its entry in the package schema's `resources`. */
  schema: ResourceSpec;
  /** The adapter of its calls, one per provider context. */
  adapter(ctx: ProviderContext): NativeBrowserSessions;
}

export const NATIVE_RESOURCES: Readonly<Record<string, NativeResource>> = {
  [BROWSER_SESSION]: {
    schema: browserSessionSchema,
    adapter: (ctx) => new NativeBrowserSessions(ctx),
  },
};

/** The native resource of `token`, looked up as an own property (`constructor` is no type of the plugin). */
export function nativeResource(token: string): NativeResource | undefined {
  return Object.prototype.hasOwnProperty.call(NATIVE_RESOURCES, token) ? NATIVE_RESOURCES[token] : undefined;
}

/** The native resource the engine's List lists by `token`: one whose schema says what a List takes. */
export function listedResource(token: string): NativeResource | undefined {
  const r = nativeResource(token);
  return r?.schema.listInputs ? r : undefined;
}

/** The `resources` section of the native schema. */
export function nativeResourceSchemas(): Record<string, ResourceSpec> {
  return Object.fromEntries(Object.entries(NATIVE_RESOURCES).map(([token, r]) => [token, r.schema]));
}
