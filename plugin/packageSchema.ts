import { ComponentProvider } from "@pulumi/pulumi/provider/experimental";
import type { ComponentResourceConstructor } from "@pulumi/pulumi/provider/experimental";
import { NATIVE_SCHEMA } from "./nativeSchema";
import type { PackageSchema } from "./schemaSpec";
import { OUTPUTS } from "../core/fields";
import { REVIEW_SESSIONS_OUTPUTS, ReviewSessions } from "./reviewSessions";

/** The outputs of a component that map secret BrowserSession outputs. */
function secretOf(outputs: Record<string, keyof typeof OUTPUTS>): string[] {
  return Object.entries(outputs)
    .filter(([, field]) => (OUTPUTS[field] as { secret?: boolean }).secret === true)
    .map(([name]) => name);
}

/** The Pulumi package name of the components: resource types are `remote-browser:index:<Component>`. */
export const PACKAGE_NAME = "remote-browser";

/**
 * The components the plugin serves, and the outputs of each that are secret. Every one is exported from
 * the package's entry point (`index.ts`), where the schema analyzer looks for it.
 */
export const COMPONENTS: ReadonlyArray<{ component: ComponentResourceConstructor; secretOutputs: readonly string[] }> = [
  { component: ReviewSessions, secretOutputs: secretOf(REVIEW_SESSIONS_OUTPUTS) },
];

export type { PackageSchema, PropertySpec, ResourceSpec } from "./schemaSpec";

/** Where the derived schema is kept, relative to the package root (shipped in the npm package). */
export const SCHEMA_FILE = "plugin/schema.json";

export const typeToken = (componentName: string) => `${PACKAGE_NAME}:index:${componentName}`;

/**
 * The schema analyzer of `@pulumi/pulumi/provider/experimental` knows nothing of secrets: it derives types,
 * required inputs and descriptions from the TypeScript source. Mark the secret outputs, so that the SDKs
 * generated from the schema keep them secret too (each component also returns them as secrets).
 */
export function markSecretOutputs(schema: PackageSchema): PackageSchema {
  const marked: PackageSchema = JSON.parse(JSON.stringify(schema));
  for (const { component, secretOutputs } of COMPONENTS) {
    const resource = marked.resources[typeToken(component.name)];
    if (!resource) throw new Error(`the derived schema has no resource ${typeToken(component.name)}`);
    for (const name of secretOutputs) {
      const property = resource.properties[name];
      if (!property) throw new Error(`${component.name} has no output "${name}" to mark secret`);
      property.secret = true;
    }
  }
  return marked;
}

/**
 * What `componentProviderHost` derives for this package from its TypeScript sources (the package root
 * with its `package.json`, `tsconfig.json` and entry point `index.ts`), with the secret outputs marked.
 * This needs the sources and TypeScript, and takes seconds: it is run when the schema file is generated
 * and checked, not by the plugin (see `provider.ts`).
 */
export async function deriveSchema(packageRoot: string): Promise<PackageSchema> {
  const analyzer = new ComponentProvider({
    name: PACKAGE_NAME,
    components: COMPONENTS.map((c) => c.component),
    dirname: packageRoot,
  });
  return markSecretOutputs(JSON.parse(await analyzer.getSchema()));
}

/**
 * The text of `plugin/schema.json`: the derived schema without its `version`, which the plugin takes
 * from the installed package's `package.json` when it serves the schema.
 */
export function schemaFileText(schema: PackageSchema): string {
  const { version: _version, ...rest } = schema;
  return `${JSON.stringify(rest, null, 2)}\n`;
}

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
