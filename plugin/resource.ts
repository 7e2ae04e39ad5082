import { check, type Failure, diff, update, INPUTS, SECRET_OUTPUTS, type SessionInputs, markUnconfirmed, unconfirmedWarning, withDeclaredAdopted, withoutNulls } from "../core/declaration";
import type { ProviderContext } from "../core/context";
import { asInitFailure, create, del, MAX_SESSION_ID_LENGTH, read, readById } from "../core/controller";
import { resourceSeed } from "../core/launch";
import { ShownSessions } from "../engine-conventions/replacements";
import { ConfigError } from "../core/config";
import { parseSessionsArgs, sessionsResult } from "../core/dataSources";
import { reveal, unwrapProperties, wrapSecrets, urnName, isBookkeeping, withoutBookkeeping, STATE_VERSION, recordedStateVersion, withStateVersion } from "../engine-conventions/wire";

/** A property map as the engine sends it: secrets in the engine's envelope (engine-conventions/wire.ts). */
type PropertyMap = Record<string, unknown>;

/**
 * The engine's calls of BrowserSession, one typed request each, as the front door (handlers.ts) reads them
 * off the wire: the adapter below never sees a protocol message.
 */
export interface CheckCall {
  news: PropertyMap;
}
export interface DiffCall {
  id: string;
  urn?: string;
  olds: PropertyMap;
  news: PropertyMap;
  /** The inputs the state records, which stand in for what an import could not record. */
  oldInputs?: PropertyMap;
}
export interface CreateCall {
  urn: string;
  news: PropertyMap;
  /** The resource's customTimeouts.create, in seconds, where set. */
  engineTimeoutSeconds?: number;
}
export interface ReadCall {
  id: string;
  /** The recorded outputs: none for an import or a `get`. */
  props: PropertyMap;
  inputs: PropertyMap;
  urn?: string;
}
export interface UpdateCall {
  olds: PropertyMap;
  news: PropertyMap;
}
export interface DeleteCall {
  id: string;
  props: PropertyMap;
  urn?: string;
  /** The resource's customTimeouts.delete, in seconds, where set. */
  engineTimeoutSeconds?: number;
}
export interface ListCall {
  query: PropertyMap;
  /** At most this many sessions; 0: all. */
  limit: number;
}

/**
 * BrowserSession served by the plugin: the engine's calls, mapped onto the same core as the dynamic
 * resource (check, diff, create, read, update, delete of core/). What is particular to this front door:
 * secrets arrive and leave in the engine's envelope; the resource's URN is its identity (the seed of its
 * idempotency keys, and the row its progress goes to); the engine's create time-out bounds the wait; and a
 * read by id alone is an import. The plugin's one custom resource: the handlers route its type here, and any
 * other to the components' provider.
 */
export class BrowserSessionAdapter {
  /** The API key came as plain stack config, outside CheckConfig (keyInPlainConfig in providerConfig.ts): told at Configure (handlers.ts). */
  private keyInPlainConfig = false;
  /** The stack's identity, recorded with the provider (STACK_IDENTITY in providerConfig.ts): told at Configure. */
  private stackIdentity: string | undefined;
  /** The provider's settings changed in this update, and this process serves the changed ones: told at Configure (core/controller.ts, settingsChanged). */
  private settingsChanged = false;
  /** What the engine showed this process of each resource's recorded session (engine-conventions/replacements.ts). */
  private readonly shown = new ShownSessions();

  constructor(private readonly ctx: ProviderContext) {}

  /** What Configure tells the adapter about the settings it received, beyond the context's settings. */
  configured(settings: { keyInPlainConfig: boolean; stackIdentity?: string; settingsChanged?: boolean }): void {
    this.keyInPlainConfig = settings.keyInPlainConfig;
    this.stackIdentity = settings.stackIdentity;
    this.settingsChanged = settings.settingsChanged === true;
  }

  async check({ news }: CheckCall): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
    const { failures } = await check(this.ctx, { news: reveal(news) as Record<string, unknown> });
    for (const name of Object.keys(news)) {
      // An own property: `constructor` or `toString` are not inputs, whatever the prototype holds.
      if (!Object.prototype.hasOwnProperty.call(INPUTS, name) && !isBookkeeping(name))
        failures.push({ property: name, reason: `is not an input of BrowserSession (inputs: ${Object.keys(INPUTS).join(", ")})` });
    }
    // The inputs go back as they came, secrets still wrapped, so that the state keeps them secret; `__`
    // names (the dynamic resource's, in the state of a session moved over from it) pass check, and none is
    // kept but the mark that they are the program's declaration (DECLARED).
    return { inputs: { ...withoutNulls(withoutBookkeeping(news)), [DECLARED]: true }, failures };
  }

  diff({ id, urn, olds, news, oldInputs = {} }: DiffCall) {
    const recordedInputs = reveal(oldInputs) as Record<string, unknown>;
    const sides = withDeclaredAdopted(reveal(olds) as Record<string, unknown>, recordedInputs, reveal(news) as Record<string, unknown>, recordedInputs[DECLARED] === true);
    const o = sides.olds;
    const n = sides.news;
    if (id.length <= MAX_SESSION_ID_LENGTH) this.shown.shown(urn, id, o);
    const { changes, replaces, updates, detailed, deleteBeforeReplace } = diff({ olds: o, news: n });
    // Per property, as `pulumi preview --diff` shows it: added, removed or changed, and whether on the
    // running session or on a new one.
    const detailedDiff = Object.entries(detailed).map(([property, kind]) => ({
      property,
      change: (absent(o[property]) ? "add" : absent(n[property]) ? "delete" : "update") as "add" | "delete" | "update",
      replace: kind === "replace",
    }));
    return { changes, replaces, deleteBeforeReplace, diffs: [...replaces, ...updates], detailedDiff };
  }

  async create({ urn, news, engineTimeoutSeconds }: CreateCall) {
    const { plain, secretNames } = unwrapProperties(news);
    const inputs = plain as unknown as SessionInputs & Record<string, unknown>;
    try {
      // The stack's identity and the URN, which names the resource in its stack, its parents' types and its
      // type: every attempt to create this generation, in this run or the one after a killed update, derives
      // the same idempotency key from them, and no other resource of any stack does.
      const { id, outs, stateVersion, handedOver } = await create(this.ctx, {
        inputs,
        seed: resourceSeed(this.stackIdentity, urn),
        urn,
        name: urnName(urn),
        engineTimeoutSeconds,
        ...this.shown.replacement(urn),
        settingsChanged: this.settingsChanged,
      });
      if (handedOver) this.shown.handed(id);
      return { id, outs: this.outputs(withStateVersion(outs as unknown as Record<string, unknown>, stateVersion), secretNames) };
    } catch (err) {
      throw asInitFailure(err, (kept, stateVersion) => this.outputs(withStateVersion(kept, stateVersion), secretNames));
    }
  }

  /**
   * Refresh (with the recorded outputs), or import and `get` (by id alone: no outputs recorded). An import
   * hands back the one input the service lets us recover, the browser, and marks the others unconfirmed,
   * with a warning: the engine's Read of an import carries no inputs, so what the program declares reaches
   * the plugin only at the diff that follows (core/declaration.ts, markUnconfirmed).
   */
  async read({ id, props, inputs, urn }: ReadCall) {
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
      return {
        id,
        props: this.outputs(withStateVersion(markUnconfirmed(found.outs) as unknown as Record<string, unknown>, found.stateVersion), []),
        inputs: found.inputs as unknown as Record<string, unknown>,
      };
    }
    const { plain, secretNames } = unwrapProperties(props);
    const result = await read(this.ctx, { id, props: plain, stateVersion: recordedStateVersion(plain), urn, name: urn && urnName(urn) });
    this.shown.shown(urn, id, plain);
    if (!result.id || !result.props) return { id: "", props: {}, inputs: {} };
    // A session's inputs never change after it starts, so the recorded ones (secrets still wrapped) are
    // what the program declares: a refresh then shows no change.
    const recorded = Object.keys(inputs).length > 0 ? inputs : wrapSecrets(result.inputs ?? {}, secretNames);
    return { id: result.id, props: this.outputs(withStateVersion(result.props, result.stateVersion), secretNames), inputs: recorded };
  }

  update({ olds, news }: UpdateCall) {
    const o = unwrapProperties(olds);
    const n = unwrapProperties(news);
    const { outs } = update({ olds: o.plain, news: n.plain });
    return { outs: this.outputs(outs, new Set([...o.secretNames, ...n.secretNames])) };
  }

  async delete({ id, props, urn, engineTimeoutSeconds }: DeleteCall): Promise<void> {
    const recorded = reveal(props) as Record<string, unknown>;
    const handedToReplacement = this.shown.wasHanded(id);
    await del(this.ctx, { id, props: recorded, stateVersion: recordedStateVersion(recorded), urn, name: urn && urnName(urn), engineTimeoutSeconds, handedToReplacement });
    // Before a replacement made delete-before-replace, the session it replaces.
    this.shown.shown(urn, id, recorded);
  }

  /**
   * The engine's List: the account's sessions from the one list call getSessions makes, at most `limit`
   * (0: all). The service masks their ids, so, unlike the call's contract, an id listed here cannot be read
   * or imported: it tells sessions apart and matches recorded vmIds, no more.
   */
  async list({ query, limit }: ListCall): Promise<Array<{ id: string; name: string }>> {
    const { sessions } = await sessionsResult(this.ctx.api(), parseSessionsArgs(query, "List"));
    return (limit > 0 ? sessions.slice(0, limit) : sessions).map((s) => ({
      id: s.maskedId,
      name: `${s.browserName}, ${s.status}, started ${s.created} (id masked by the service)`,
    }));
  }

  /** Outputs as the state keeps them: the share link secret, each output whose input was secret; of `__` names only STATE_VERSION. */
  private outputs(outs: Record<string, unknown>, secretInputs: Iterable<string>): Record<string, unknown> {
    return wrapSecrets(withoutNulls({ ...withoutBookkeeping(outs), [STATE_VERSION]: outs[STATE_VERSION] }), [...SECRET_OUTPUTS, ...secretInputs]);
  }
}

const absent = (v: unknown) => v === undefined || v === null;

/**
 * The mark Check puts on the inputs it hands back: they are the program's declaration. An import records
 * the inputs it could recover without it, and until an update has recorded the program's inputs the diff
 * adopts what the program declares for the rest (core/declaration.ts, withDeclaredAdopted); the first
 * update after the import records them with the mark, and from then on an input the program declares for
 * the first time is a change, as on a session the stack started. No diff compares `__` names, so the mark
 * showing up in the inputs of a stack of an earlier release is no change.
 */
const DECLARED = "__declared";
