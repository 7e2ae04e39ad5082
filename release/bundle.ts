import * as path from "node:path";
import { build, type Plugin } from "esbuild";
import { servedSchemaOf } from "../plugin/packageSchema";

/** What the release binary knows of itself (plugin/identity.ts reads it as `PRB_RELEASE`). */
export interface ReleaseFacts {
  version: string;
  pluginDownloadURL: string;
  repository: string;
}

const root = path.resolve(__dirname, "..", "..");

/**
 * The plugin (plugin/host.ts's `serve`) and everything it loads, as one CommonJS file that needs no
 * `node_modules`: what the single executable runs. Returns the bundle's text and the files it holds.
 *
 * Each start holds the whole text in memory, so it carries what the plugin uses and no more: the SDK's
 * modules the plugin loads (release/bundledSdk.ts), minified; names are kept, for stack traces and for code
 * that reads a class's name (a component's type token is its class's). The schema is built here, by the
 * same code and from the same facts as the binary would build it, so that GetSchema loads none of that code.
 */
export async function bundlePlugin(facts: ReleaseFacts): Promise<{ code: string; inputs: string[] }> {
  const result = await build({
    // host.ts starts the plugin when it is the main module, as it is at the top of the bundle (a second
    // start would find the SDK serving already and fail). The release asks the built binary for its schema,
    // so a bundle that did not start would fail the build.
    entryPoints: [path.join(root, "plugin", "host.ts")],
    bundle: true,
    platform: "node",
    target: "node22",
    format: "cjs",
    write: false,
    metafile: true,
    minify: true,
    keepNames: true,
    legalComments: "inline",
    logLevel: "silent",
    define: { PRB_RELEASE: JSON.stringify(facts), PRB_SCHEMA: JSON.stringify(JSON.stringify(servedSchemaOf({ name: "remote-browser", ...facts }))) },
    plugins: [bundledSdk],
    // The schema analyzer, which loads TypeScript: only packageSchema.ts's deriveSchema requires it, for the
    // build's schema file, never the plugin.
    external: ["@pulumi/pulumi/provider/experimental"],
  });
  const inputs = Object.keys(result.metafile.inputs);
  const copies = duplicatePackages(inputs);
  if (copies.length > 0) throw new Error(`the bundle holds two copies of ${copies.join(", ")}: the plugin would extend one and the SDK serve with the other`);
  return { code: result.outputFiles[0].text, inputs };
}

/** engine-conventions/pulumiSdk.ts resolves modules at run time, which a bundle cannot: its bundled twin takes its place. */
const bundledSdk: Plugin = {
  name: "bundled-sdk",
  setup(b) {
    b.onResolve({ filter: /\/pulumiSdk$/ }, (args) =>
      path.resolve(args.resolveDir, args.path) === path.join(root, "engine-conventions", "pulumiSdk") ? { path: path.join(root, "release", "bundledSdk.ts") } : undefined,
    );
  },
};

/** The packages the plugin and the SDK must share one copy of. */
const SHARED = ["@pulumi/pulumi", "@grpc/grpc-js", "google-protobuf"];

/** The shared packages whose files in the bundle come from more than one folder. */
export function duplicatePackages(inputs: string[]): string[] {
  const folders = new Map<string, Set<string>>();
  for (const input of inputs) {
    const m = /^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (!m || !SHARED.includes(m[2])) continue;
    folders.set(m[2], (folders.get(m[2]) ?? new Set()).add(m[1]));
  }
  return [...folders].filter(([, dirs]) => dirs.size > 1).map(([name]) => name);
}
