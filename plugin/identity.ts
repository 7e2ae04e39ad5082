import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Who the plugin is: its package name, its version and where the engine downloads it from. One place,
 * because the schema, GetPluginInfo, the generated SDKs and the release archives must all say the same.
 *
 * From a checkout or an npm install, the facts come from this package's `package.json`. A release binary
 * has no package.json beside it: the release build replaces `PRB_RELEASE` with the facts of the release
 * (a bundler `define`), so the binary knows its version without any file.
 */

/** Set by the release build (scripts/release): the version and download address the binary was built as. */
declare const PRB_RELEASE: { version: string; pluginDownloadURL: string; repository: string } | undefined;

export interface PluginIdentity {
  /** The Pulumi package name: resource types are `remote-browser:index:<Type>`. */
  name: "remote-browser";
  /** The plugin's semantic version, without a leading `v`. */
  version: string;
  /** Where the engine downloads the plugin's archives from (`github://api.github.com/<owner>/<repo>`). */
  pluginDownloadURL: string;
  /** The repository's web address (`https://github.com/<owner>/<repo>`). */
  repository: string;
}

/** The folder of this package's `package.json`, from the compiled (`dist/...`) or the source folder. */
export function packageRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, "utf8")).name === "pulumi-remote-browser") return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json of pulumi-remote-browser above ${from}`);
  }
}

/**
 * The owner and name of a package.json `repository` on GitHub, in any of npm's
 * spellings (`git+https://github.com/o/r.git`, `github:o/r`, `o/r`, or an object with `url`).
 */
export function githubOf(repository: unknown): { owner: string; repo: string } {
  const url = typeof repository === "string" ? repository : (repository as { url?: unknown } | undefined)?.url;
  if (typeof url !== "string") throw new Error("package.json has no repository: the plugin's download address derives from it");
  const m = /^(?:github:|git\+https:\/\/github\.com\/|https:\/\/github\.com\/|git@github\.com:)?([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(url);
  if (!m) throw new Error(`package.json's repository is not a GitHub repository (${url.slice(0, 200)})`);
  return { owner: m[1], repo: m[2] };
}

/**
 * Where the whole served schema is committed, relative to the repository's root: the path a Pulumi Registry
 * listing names as its `schemaFile`, and the schema the npm package's plugin serves. The build writes it
 * (scripts/build.sh, from packageSchema.ts); a test fails when it differs from what that code derives.
 */
export const REGISTRY_SCHEMA_FILE = "schema.json";

/**
 * The schema as the build wrote it, compact, when it was written for this plugin's version; otherwise
 * undefined (a checkout whose package.json moved on since its last build), and the caller derives it.
 * GetSchema is a whole plugin start of its own under Pulumi YAML (its language host asks a plugin
 * process for the schema at every operation): deriving it loads the field tables and zod, about half of
 * that process's CPU, for a text the build already wrote.
 */
export function builtSchemaText(root: string = packageRoot(), identity: Pick<PluginIdentity, "name" | "version"> = pluginIdentity()): string | undefined {
  let schema: { name?: unknown; version?: unknown };
  try {
    schema = JSON.parse(fs.readFileSync(path.join(root, REGISTRY_SCHEMA_FILE), "utf8")) as typeof schema;
  } catch {
    return undefined;
  }
  const { name, version } = identity;
  return schema.name === name && schema.version === version ? JSON.stringify(schema) : undefined;
}

let cached: PluginIdentity | undefined;

export function pluginIdentity(): PluginIdentity {
  if (cached) return cached;
  if (typeof PRB_RELEASE !== "undefined" && PRB_RELEASE) {
    cached = { name: "remote-browser", ...PRB_RELEASE };
    return cached;
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as { version: string; repository?: unknown };
  const { owner, repo } = githubOf(manifest.repository);
  cached = {
    name: "remote-browser",
    version: manifest.version,
    pluginDownloadURL: `github://api.github.com/${owner}/${repo}`,
    repository: `https://github.com/${owner}/${repo}`,
  };
  return cached;
}

/**
 * The package's name and the type tokens the plugin serves: plain strings, so that whatever needs one (the
 * schema, the component, the front door's routing) does not load the code behind the type.
 */

/** The Pulumi package name: resource types are `remote-browser:index:<Type>`. */
export const PACKAGE_NAME = "remote-browser";

export const typeToken = (name: string) => `${PACKAGE_NAME}:index:${name}`;

/** The native resource's type token in the plugin's schema. */
export const BROWSER_SESSION = typeToken("BrowserSession");

/** The component's type token (the schema analyzer derives the same from its class, see packageSchema.ts). */
export const REVIEW_SESSIONS = typeToken("ReviewSessions");
