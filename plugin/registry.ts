import type { ProviderContext } from "../core/context";
import { browserSessionSchema } from "./nativeSchema";
import { NativeBrowserSessions } from "./resource";
import type { ResourceSpec } from "./schemaSpec";
import { BROWSER_SESSION } from "./tokens";

/**
 * The custom resources the plugin serves natively, by type token: each one's schema and the adapter that
 * maps the engine's calls of that type onto the core. The served schema (servedSchema.ts) takes its
 * resources from here, and the handlers (handlers.ts) route Check, Diff, Create, Read, Update, Delete and
 * List by it; a type not here is the components' (ReviewSessions), which the SDK's server answers. The type
 * tokens themselves are in tokens.ts, which the component and the front door read without loading this.
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
