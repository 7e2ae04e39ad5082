import type { SessionOutputs } from "../core/declaration";
import type { STATE_VERSION } from "../engine-conventions/wire";

/**
 * The dynamic resource's wire fields, which no other front has. The SDK's resource (sdk/browserSession.ts)
 * sends the first four with its inputs, through `wireInputs`, and `__provider`, the stored provider text
 * (sdk/browserSession.ts); the dynamic provider (session.ts) records `__idempotencyKey` with the outputs. The core
 * takes what they carry as explicit options and knows none of these names. (`__stateVersion`, the layout
 * version of a session's record, is recorded by both fronts: engine-conventions/wire.ts, STATE_VERSION.)
 */
export interface DynamicInputs {
  /** The resource's project/stack/name: the seed of its idempotency keys. */
  __seed?: string;
  /** The session named by the resource's `import` option, to take over instead of starting one. */
  __adoptVmId?: string;
  /** The resource's URN, for its row of the engine's display (the engine does not tell a dynamic provider). */
  __urn?: string;
  /**
   * The resource's `replaceOnChanges` option. The engine applies it to the property names a diff reports
   * as changed, which the dynamic provider protocol cannot report: the provider applies it itself.
   */
  __replaceOnChanges?: string[];
  __provider?: string;
}

/** What the SDK's resource sends beside its inputs. */
export function wireInputs(fields: { seed: string; adoptVmId: string | undefined; urn: Promise<string | undefined>; replaceOnChanges?: string[] }): Record<string, unknown> {
  return { __seed: fields.seed, __adoptVmId: fields.adoptVmId, __urn: fields.urn, __replaceOnChanges: fields.replaceOnChanges };
}

/**
 * Recorded with a session's outputs, as every release has (the URN since the release that seeds keys with
 * it): a refresh hands them back as inputs, so that the program's next preview shows no change, and a
 * read or delete, which the dynamic provider host does not tell which resource it serves, knows it.
 */
export const RECORDED = ["__seed", "__adoptVmId", "__urn"] as const;

/**
 * Outputs only the dynamic resource records, secret: the idempotency key its session was started under.
 * Every release has recorded it; nothing reads it back, and the plugin's resource does not record it.
 */
export const DYNAMIC_OUTPUTS = ["__idempotencyKey"] as const;

/**
 * What the dynamic resource records as a session's outputs: the core's, and beside them the wire fields
 * (the key the session was started under, the layout version, the seed and the adopted session).
 */
export type DynamicOutputs = SessionOutputs & { __idempotencyKey?: string; [STATE_VERSION]?: number } & Pick<DynamicInputs, (typeof RECORDED)[number]>;

/** The outputs of a create with the key it used (absent for an adoption or API version 7). */
export function withIdempotencyKey<T extends object>(outs: T, key: string | undefined): T & { __idempotencyKey?: string } {
  return key === undefined ? outs : { ...outs, __idempotencyKey: key };
}
