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
