// Imported, not read from disk: the release binary carries it in its bundle.
import componentSchema from "./schema.json";
import type { ComponentResourceConstructor } from "@pulumi/pulumi/provider/experimental";
import { OUTPUTS } from "../core/declaration";
import { REVIEW_SESSIONS_OUTPUTS, ReviewSessions } from "./reviewSessions";
import { BROWSER_SESSION, PACKAGE_NAME, pluginIdentity, type PluginIdentity, githubOf, typeToken } from "./identity";
import { NATIVE_SCHEMA, browserSessionSchema, type PackageSchema } from "./nativeSchema";

export type { PackageSchema, PropertySpec, ResourceSpec } from "./nativeSchema";

/**
 * The package schema, from its sources to what the plugin serves (GetSchema) and the registry lists:
 * - the components' part is derived from their TypeScript sources by the SDK's schema analyzer
 *   (deriveSchema), with the secret outputs marked, into `plugin/schema.json` (see provider.ts);
 * - the native part (BrowserSession, the data sources, the settings) is derived from the field and settings
 *   tables (nativeSchema.ts);
 * - what the schema says of the package itself comes from the plugin's identity (packageMetadata).
 * The plugin serves the schema the build wrote (identity.ts builtSchemaText); this module is loaded only
 * when that is missing, by the build that writes it, and by the components' provider.
 */

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
 * The analyzer's schema in Pulumi's schema format (pkg/codegen/schema/pulumi.json), which is what
 * `pulumi package get-schema` prints and the Pulumi Registry reads: without the `optional` mark it puts on
 * every input not in `requiredInputs` (the format has no such field; `requiredInputs` already says it; an
 * input that is itself named `optional` has an object for a spec, and stays) and without an empty
 * `dependencies` list (an empty list is the field's absence: Pulumi writes neither).
 */
export function inSchemaFormat(schema: PackageSchema): PackageSchema {
  const strip = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(strip)
      : value && typeof value === "object"
        ? Object.fromEntries(
            Object.entries(value)
              .filter(([key, v]) => !(key === "optional" && typeof v === "boolean"))
              .map(([key, v]) => [key, strip(v)]),
          )
        : value;
  const { dependencies, ...rest } = strip(schema) as PackageSchema;
  return Array.isArray(dependencies) && dependencies.length === 0 ? rest : { ...rest, dependencies };
}

/**
 * The text of `plugin/schema.json`: the derived schema without its `version`, which the plugin takes
 * from the installed package's `package.json` when it serves the schema, and without the `description`
 * the analyzer copies from package.json (the npm package's, which holds the dynamic provider too): what the
 * schema says of the package is packageMetadata's (below), for the native provider.
 */
export function schemaFileText(schema: PackageSchema): string {
  const { version: _version, description: _description, ...rest } = schema;
  return `${JSON.stringify(rest, null, 2)}\n`;
}

/**
 * What `componentProviderHost` derives for this package from its TypeScript sources (the package root
 * with its `package.json`, `tsconfig.json` and entry point `index.ts`), with the secret outputs marked.
 * This needs the sources and TypeScript (the analyzer loads the compiler), and takes seconds: it is run when
 * the schema file is generated and checked, never by the plugin (see `provider.ts`).
 */
export async function deriveSchema(packageRoot: string): Promise<PackageSchema> {
  // Required here, not at the top: the analyzer loads TypeScript, which the plugin never needs (the release
  // bundle leaves it out: release/bundle.ts).
  const { ComponentProvider } = require("@pulumi/pulumi/provider/experimental") as typeof import("@pulumi/pulumi/provider/experimental"); // eslint-disable-line @typescript-eslint/no-require-imports -- loaded only when deriving the schema: it loads TypeScript
  const analyzer = new ComponentProvider({
    name: PACKAGE_NAME,
    components: COMPONENTS.map((c) => c.component),
    dirname: packageRoot,
  });
  return markSecretOutputs(inSchemaFormat(JSON.parse(await analyzer.getSchema())));
}

/** The schema as served by a plugin of `version`. */
export function withVersion(schema: PackageSchema, version: string): PackageSchema {
  const { name, version: _version, ...rest } = schema;
  return { name, version, ...rest };
}

/**
 * The whole package as the plugin serves it: the components' part (derived by the analyzer) and the native
 * part (derived from the field and settings tables); their types share one namespace. The package's own
 * metadata and language sections are the native part's (packageMetadata, below), from `identity`.
 */
export function withNativeSchema(components: PackageSchema, identity: PluginIdentity = pluginIdentity()): PackageSchema {
  return {
    ...components,
    ...packageMetadata(identity),
    config: NATIVE_SCHEMA.config,
    provider: NATIVE_SCHEMA.provider,
    resources: { ...components.resources, [BROWSER_SESSION]: browserSessionSchema },
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

/** The text of the registry schema file (REGISTRY_SCHEMA_FILE of identity.ts): the schema this plugin serves, at package.json's version. */
export function registrySchemaText(): string {
  return `${JSON.stringify(servedSchema(), null, 2)}\n`;
}

/** The repository file the schema's logoUrl names; the .NET generator embeds it from here, offline. */
export const LOGO_FILE = "assets/logo.png";

/** The npm package of the native Node.js SDK: not `pulumi-remote-browser`, which is the dynamic provider's. */
export const nodePackageName = (owner: string) => `@${owner}/pulumi`;

/** A Java package segment or .NET namespace from a GitHub owner (`remote-browser` -> `remotebrowser`, `RemoteBrowser`). */
const javaSegment = (owner: string) => owner.toLowerCase().replace(/[^a-z0-9]/g, "");
const dotnetSegment = (owner: string) =>
  owner
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/**
 * What the package schema says about the package itself: what a registry lists (display name, publisher,
 * repository, license, keywords, logo), where the engine gets the plugin, and each language's package names.
 * The generated SDKs take their names, version and `pluginDownloadURL` from here, so every name and address
 * derives from the plugin's identity (package.json's version and repository, or the release build's).
 */
export function packageMetadata(identity: PluginIdentity = pluginIdentity()) {
  const { owner, repo } = githubOf(identity.repository);
  const description =
    "Remote browser sessions as Pulumi resources: start a browser in the cloud, get its share link as a secret, " +
    "and review a deployment in several browsers at once. A native provider, usable from every Pulumi language.";
  return {
    displayName: "Remote Browser",
    description,
    publisher: owner,
    homepage: identity.repository,
    repository: identity.repository,
    license: "Apache-2.0",
    keywords: ["pulumi", "remote-browser", "browser", "testing", "category/utility", "kind/native"],
    // At the release's tag: the logo of a listed version does not change with the default branch.
    logoUrl: `https://raw.githubusercontent.com/${owner}/${repo}/v${identity.version}/${LOGO_FILE}`,
    pluginDownloadURL: identity.pluginDownloadURL,
    // respectSchemaVersion: each SDK names the schema's version as the plugin to fetch (else none, or 0.0.0).
    language: {
      nodejs: { packageName: nodePackageName(owner), packageDescription: description, respectSchemaVersion: true },
      python: { packageName: "pulumi_remote_browser", respectSchemaVersion: true },
      go: {
        importBasePath: `github.com/${owner}/${repo}/sdk/go/remotebrowser`,
        generateResourceContainerTypes: true,
        respectSchemaVersion: true,
      },
      // `Pulumi.` is a reserved NuGet prefix and `com.pulumi` Pulumi's Maven group: ours are the owner's.
      csharp: { rootNamespace: dotnetSegment(owner), namespaces: { [identity.name]: "Pulumi" }, respectSchemaVersion: true },
      java: { basePackage: `io.github.${javaSegment(owner)}`, respectSchemaVersion: true },
    },
  };
}
