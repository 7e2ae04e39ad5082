import { pluginIdentity } from "./identity";
import type { PluginIdentity } from "./identity";
import { NATIVE_SCHEMA } from "./nativeSchema";
import { packageMetadata } from "./packageMetadata";
import { nativeResourceSchemas } from "./registry";
import type { PackageSchema } from "./schemaSpec";
// Imported, not read from disk: the release binary carries it in its bundle.
import componentSchema from "./schema.json";

/**
 * The package schema the plugin serves (GetSchema): the components' part, derived from their TypeScript
 * sources into `plugin/schema.json` (see provider.ts and packageSchema.ts), and the native part, derived from
 * the field and settings tables (nativeSchema.ts), and what the schema says of the package, from the plugin's
 * identity (packageMetadata.ts). Built on first use: starting the plugin does not need it. The release
 * binary serves it as built when the release is (release/bundle.ts), from this same code.
 */

/** The schema as served by a plugin of `version`. */
export function withVersion(schema: PackageSchema, version: string): PackageSchema {
  const { name, version: _version, ...rest } = schema;
  return { name, version, ...rest };
}

/**
 * The whole package as the plugin serves it: the components' part (derived by the analyzer) and the native
 * part (derived from the field and settings tables); their types share one namespace. The package's own
 * metadata and language sections are the native part's (plugin/packageMetadata.ts), from `identity`.
 */
export function withNativeSchema(components: PackageSchema, identity: PluginIdentity = pluginIdentity()): PackageSchema {
  return {
    ...components,
    ...packageMetadata(identity),
    config: NATIVE_SCHEMA.config,
    provider: NATIVE_SCHEMA.provider,
    resources: { ...components.resources, ...nativeResourceSchemas() },
    functions: NATIVE_SCHEMA.functions,
    types: { ...components.types, ...(NATIVE_SCHEMA.types as unknown as PackageSchema["types"]) },
  };
}

/** The schema a plugin of `identity` serves, at its version. */
export function servedSchemaOf(identity: PluginIdentity): PackageSchema {
  return withNativeSchema(withVersion(componentSchema as unknown as PackageSchema, identity.version), identity);
}

let served: PackageSchema | undefined;

/** The schema this plugin serves. */
export function servedSchema(): PackageSchema {
  served ??= servedSchemaOf(pluginIdentity());
  return served;
}

/**
 * Where the whole served schema is committed, relative to the repository's root: the path a Pulumi Registry
 * listing names as its `schemaFile`. The build writes it (scripts/build.sh); a test fails when it differs
 * from what the plugin serves.
 */
export const REGISTRY_SCHEMA_FILE = "schema.json";

/** The text of {@link REGISTRY_SCHEMA_FILE}: the schema this plugin serves, at package.json's version. */
export function registrySchemaText(): string {
  return `${JSON.stringify(servedSchema(), null, 2)}\n`;
}
