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
 * A property map as the wire carries it: plain JSON, with no `undefined` (which protobuf's Struct refuses
 * and the dynamic host's serialiser drops) and no `null` for an absent value (an output that is not there
 * is left out).
 */
export function onTheWire(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
}

/** Any value as plain JSON: what protobuf's Struct takes. */
export const plainJson = (v: unknown) => JSON.parse(JSON.stringify(v ?? {}));
