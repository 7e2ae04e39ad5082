import type { ComponentResourceConstructor } from "@pulumi/pulumi/provider/experimental";
import { OUTPUTS } from "../core/declaration";
import { REVIEW_SESSIONS_OUTPUTS, ReviewSessions } from "./reviewSessions";
import { typeToken } from "./identity";

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
 * schema says of the package is packageMetadata's (servedSchema.ts), for the native provider.
 */
export function schemaFileText(schema: PackageSchema): string {
  const { version: _version, description: _description, ...rest } = schema;
  return `${JSON.stringify(rest, null, 2)}\n`;
}

/**
 * The parts of a Pulumi package schema this package reads or writes: the native resource's schema
 * (nativeSchema.ts) and the component host's derived one (plugin/packageSchema.ts) both build on them.
 */
export interface PropertySpec {
  type?: string;
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  description?: string;
  plain?: boolean;
  secret?: boolean;
}

export interface ResourceSpec {
  isComponent?: boolean;
  description?: string;
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
  properties: Record<string, PropertySpec>;
  required: string[];
  /** What the engine's List of the type takes; a type without it is not listed. */
  listInputs?: { properties: Record<string, PropertySpec> };
}

export interface PackageSchema {
  name: string;
  version?: string;
  description?: string;
  resources: Record<string, ResourceSpec>;
  types: Record<string, { type: string; enum?: Array<{ name: string; value: string | number; description?: string }> }>;
  [key: string]: unknown;
}
