// Imported, not read from disk: the release binary carries it in its bundle.
import componentSchema from "./schema.json";
import { pluginIdentity, type PluginIdentity, githubOf, REGISTRY_SCHEMA_FILE } from "./identity";
import { NATIVE_SCHEMA } from "./nativeSchema";
import { nativeResourceSchemas } from "./resource";
import type { PackageSchema } from "./packageSchema";

/**
 * The package schema the plugin serves (GetSchema): the components' part, derived from their TypeScript
 * sources into `plugin/schema.json` (see provider.ts and packageSchema.ts), and the native part, derived from
 * the field and settings tables (nativeSchema.ts), and what the schema says of the package, from the plugin's
 * identity (packageMetadata, below). Built on first use: starting the plugin does not need it. The release
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
 * metadata and language sections are the native part's (packageMetadata, below), from `identity`.
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

/** The text of {@link REGISTRY_SCHEMA_FILE}: the schema this plugin serves, at package.json's version. */
export function registrySchemaText(): string {
  return `${JSON.stringify(servedSchema(), null, 2)}\n`;
}


/**
 * What the package schema says about the package itself: what a registry lists (display name, publisher,
 * repository, license, keywords, logo), where the engine gets the plugin, and each language's package names.
 * The generated SDKs take their names, version and `pluginDownloadURL` from here, so every name and address
 * derives from the plugin's identity (package.json's version and repository, or the release build's).
 */

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
