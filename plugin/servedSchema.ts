import { pluginIdentity } from "./identity";
import { NATIVE_SCHEMA } from "./nativeSchema";
import type { PackageSchema } from "./schemaSpec";
// Imported, not read from disk: the release binary carries it in its bundle.
import componentSchema from "./schema.json";

/**
 * The package schema the plugin serves (GetSchema): the components' part, derived from their TypeScript
 * sources into `plugin/schema.json` (see provider.ts and packageSchema.ts), and the native part, derived from
 * the field and settings tables (nativeSchema.ts). Built on first use: starting the plugin does not need it.
 */

/** The schema as served by a plugin of `version`. */
export function withVersion(schema: PackageSchema, version: string): PackageSchema {
  const { name, version: _version, ...rest } = schema;
  return { name, version, ...rest };
}

/**
 * The whole package as the plugin serves it: the components' part (derived by the analyzer) and the native
 * part (derived from the field and settings tables); their types share one namespace. The package's own
 * metadata and language sections are the native part's (plugin/packageMetadata.ts).
 */
export function withNativeSchema(components: PackageSchema): PackageSchema {
  return {
    ...components,
    ...NATIVE_SCHEMA.package,
    config: NATIVE_SCHEMA.config,
    provider: NATIVE_SCHEMA.provider,
    resources: { ...components.resources, ...(NATIVE_SCHEMA.resources as unknown as PackageSchema["resources"]) },
    functions: NATIVE_SCHEMA.functions,
    types: { ...components.types, ...(NATIVE_SCHEMA.types as unknown as PackageSchema["types"]) },
  };
}

let served: PackageSchema | undefined;

/** The schema this plugin serves, at its own version. */
export function servedSchema(): PackageSchema {
  served ??= withNativeSchema(withVersion(componentSchema as unknown as PackageSchema, pluginIdentity().version));
  return served;
}
