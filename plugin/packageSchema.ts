import type { ComponentResourceConstructor } from "@pulumi/pulumi/provider/experimental";
import type { PackageSchema } from "./schemaSpec";
import { OUTPUTS } from "../core/declaration";
import { REVIEW_SESSIONS_OUTPUTS, ReviewSessions } from "./reviewSessions";
import { typeToken } from "./tokens";

/** The outputs of a component that map secret BrowserSession outputs. */
function secretOf(outputs: Record<string, keyof typeof OUTPUTS>): string[] {
  return Object.entries(outputs)
    .filter(([, field]) => (OUTPUTS[field] as { secret?: boolean }).secret === true)
    .map(([name]) => name);
}

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
 * The text of `plugin/schema.json`: the derived schema without its `version`, which the plugin takes
 * from the installed package's `package.json` when it serves the schema, and without the `description`
 * the analyzer copies from package.json (the npm package's, which holds the dynamic provider too): what the
 * schema says of the package is packageMetadata.ts's, for the native provider.
 */
export function schemaFileText(schema: PackageSchema): string {
  const { version: _version, description: _description, ...rest } = schema;
  return `${JSON.stringify(rest, null, 2)}\n`;
}
