import { check } from "../core/check";
import type { Failure } from "../core/check";
import { ProviderContext } from "../core/context";
import type { ProviderDeps } from "../core/context";
import { create } from "../core/create";
import { del } from "../core/delete";
import { diff, update } from "../core/diff";
import type { SessionInputs, SessionOutputs } from "../core/fields";
import { withoutNulls } from "../core/outputs";
import { read } from "../core/read";
import type { ReadResult } from "../core/read";
import { RECORDED, withIdempotencyKey } from "./wireFields";
import type { DynamicInputs } from "./wireFields";

export type { ProviderDeps } from "../core/context";
export type { SessionInputs, SessionOutputs } from "../core/fields";

export type { DynamicInputs } from "./wireFields";

/**
 * BrowserSession's dynamic provider, the front that stored providers of every release reach through
 * dynamic/index.ts: one method per engine call, each translating the dynamic resource's wire fields into
 * what the core's operation takes (check.ts, diff.ts, create.ts, read.ts, delete.ts).
 */
export class SessionProvider {
  readonly ctx: ProviderContext;

  constructor(deps: Partial<ProviderDeps> = {}) {
    this.ctx = new ProviderContext(deps);
  }

  /** Reads the provider's settings; `get` takes a key of the `remote-browser` namespace without prefix. */
  configure(get: (key: string) => string | undefined, env: NodeJS.ProcessEnv = process.env): void {
    this.ctx.configure(get, env);
  }

  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: Failure[] }> {
    return check(this.ctx, olds, news);
  }

  diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    const { changes, replaces, deleteBeforeReplace } = diff(olds, news);
    return { changes, replaces, deleteBeforeReplace };
  }

  async create(inputs: SessionInputs & DynamicInputs & Record<string, unknown>): Promise<{ id: string; outs: SessionOutputs }> {
    const { __seed, __adoptVmId, __urn, __provider, ...plain } = inputs;
    try {
      const { id, outs, idempotencyKey } = await create(this.ctx, plain as SessionInputs & Record<string, unknown>, {
        seed: __seed,
        urn: urnOf(__urn),
        adoptVmId: __adoptVmId || undefined,
      });
      return { id, outs: { ...withIdempotencyKey(outs, idempotencyKey), ...recorded(inputs) } };
    } catch (err) {
      const kept = err as { properties?: Record<string, unknown> };
      // Outputs of a failed create are stored as they are given: the stored provider must be among them,
      // or the later destroy could not load it.
      if (kept && typeof kept === "object" && kept.properties) kept.properties = withoutNulls({ ...kept.properties, ...recorded(inputs), __provider });
      throw err;
    }
  }

  async read(id: string, props: Record<string, unknown> = {}): Promise<ReadResult> {
    const result = await read(this.ctx, id, props);
    return result.inputs ? { ...result, inputs: { ...result.inputs, ...recorded(props) } } : result;
  }

  update(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>): { outs: Record<string, unknown> } {
    return update(olds, news);
  }

  delete(id: string, props: Record<string, unknown>): Promise<void> {
    return del(this.ctx, id, props);
  }
}

function recorded(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of RECORDED) if (o[k] !== undefined && o[k] !== null) out[k] = o[k];
  return out;
}

/**
 * The resource's URN from `__urn`: the engine does not tell a dynamic provider's create which resource it
 * serves. Absent from programs of earlier releases.
 */
export function urnOf(urn: unknown): string | undefined {
  return typeof urn === "string" && urn.startsWith("urn:pulumi:") ? urn : undefined;
}
