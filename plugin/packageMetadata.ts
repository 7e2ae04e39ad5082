import { githubOf, pluginIdentity } from "./identity";
import type { PluginIdentity } from "./identity";

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
