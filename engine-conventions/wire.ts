/**
 * The engine's rules for the property maps a provider exchanges with it, stated once for both fronts.
 * Imports nothing: the plugin's front door loads it before its port is bound.
 */

/**
 * Names starting with `__` are bookkeeping -- the engine's, or the dynamic resource's (its stored code,
 * seed, URN and idempotency key, found in the state of a session moved over from it) -- never an input,
 * output or argument of the provider's own.
 */
export const isBookkeeping = (name: string): boolean => name.startsWith("__");

/** `o` without its bookkeeping names. */
export function withoutBookkeeping(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !isBookkeeping(k)));
}

/**
 * The bookkeeping output both fronts record a session's state layout version under (core/state.ts): written
 * at create, import and refresh, read back at refresh and destroy. Not an output of the schema, and no diff
 * compares it (diffs compare inputs).
 */
export const STATE_VERSION = "__stateVersion";

/** The layout version recorded in a session's outputs, as the core takes it (absent before versions were recorded). */
export const recordedStateVersion = (outs: Record<string, unknown>): unknown => outs[STATE_VERSION];

/** `outs` with the layout version `version` recorded; as they are when the core gives none. */
export function withStateVersion<T extends object>(outs: T, version: number | undefined): T & { [STATE_VERSION]?: number } {
  return version === undefined ? outs : { ...outs, [STATE_VERSION]: version };
}

/** Any value as plain JSON: what protobuf's Struct takes. */
export const plainJson = (v: unknown) => JSON.parse(JSON.stringify(v ?? {}));

/**
 * The engine's resource names: `urn:pulumi:<stack>::<project>::<type, its parents' types first, joined by
 * $>::<name>`. Read here only: every front that needs a part of one asks this module.
 */

/** Whether `urn` is a URN at all (a dynamic resource's `__urn` of an older program may be anything). */
export function isUrn(urn: unknown): urn is string {
  return typeof urn === "string" && urn.startsWith("urn:pulumi:");
}

/** The resource's name: the URN's last part ("" for an empty URN). */
export function urnName(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** The resource's own type: the last of the URN's `$`-joined types. */
export function urnType(urn: string): string {
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

/** The stack's name, the first part after `urn:pulumi:`. */
export function urnStack(urn: string): string | undefined {
  return urn.split("::")[0]?.split(":").at(-1);
}

/**
 * The type token the dynamic provider host gives a dynamic resource, `pulumi-nodejs:dynamic/<module>:<type>`
 * (`pulumi.dynamic.Resource` builds it from the module and type it is given). BrowserSession's is in the
 * state of every stack the SDK's resource wrote, and the plugin's component aliases it to move such a
 * session over in place.
 */
export const DYNAMIC_SESSION = { module: "remote-browser", type: "BrowserSession" } as const;

/** What every dynamic resource's type starts with; the oldest states carry the generic `pulumi-nodejs:dynamic:Resource`. */
export const DYNAMIC_TYPE_PREFIX = "pulumi-nodejs:dynamic";

export const DYNAMIC_SESSION_TYPE = `${DYNAMIC_TYPE_PREFIX}/${DYNAMIC_SESSION.module}:${DYNAMIC_SESSION.type}` as const;

/**
 * Secrets on the plugin's wire. The plugin tells the engine it accepts secrets, so secret values arrive
 * wrapped in the engine's secret envelope -- and the engine then leaves marking outputs secret to the
 * plugin (it copies secretness from inputs to outputs only for plugins that do not accept secrets). The
 * core reads plain values; this module unwraps them on the way in and wraps on the way out: the share
 * link, and every output whose input was secret.
 */

/** The envelope's signature key and the value that marks a secret (`sig.Secret` of the engine). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type Secret = { [SIG_KEY]: typeof SECRET_SIG; value: unknown };

export function isSecret(v: unknown): v is Secret {
  return typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

export function secret(value: unknown): Secret {
  return isSecret(value) ? value : { [SIG_KEY]: SECRET_SIG, value };
}

/** The value without any secret envelope, at any depth. */
export function reveal(v: unknown): unknown {
  if (isSecret(v)) return reveal(v.value);
  if (Array.isArray(v)) return v.map(reveal);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, reveal(x)]));
  return v;
}

/** Whether a value is or holds a secret. */
export function holdsSecret(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(holdsSecret);
  if (typeof v === "object" && v !== null) return Object.values(v).some(holdsSecret);
  return false;
}

/** A property map unwrapped, and the names of its top-level properties that were (or held) secrets. */
export function unwrapProperties(props: Record<string, unknown>): { plain: Record<string, unknown>; secretNames: Set<string> } {
  const secretNames = new Set(Object.keys(props).filter((k) => holdsSecret(props[k])));
  return { plain: reveal(props) as Record<string, unknown>, secretNames };
}

/** `props` with each property named in `names` wrapped as a secret (absent ones stay absent). */
export function wrapSecrets(props: Record<string, unknown>, names: Iterable<string>): Record<string, unknown> {
  const out = { ...props };
  for (const name of names) if (out[name] !== undefined && out[name] !== null) out[name] = secret(out[name]);
  return out;
}
