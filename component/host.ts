import * as fs from "node:fs";
import * as path from "node:path";
import { main } from "@pulumi/pulumi/provider";
import { RemoteBrowserComponentProvider } from "./provider";

// The plugin's entry point: serves the `remote-browser` components to the engine as
// `componentProviderHost` does (`main` of `@pulumi/pulumi/provider`, which prints the port the engine
// connects to). `bin/pulumi-resource-remote-browser` runs it, and `index.ts` when the Node.js language
// host runs the package folder; the engine passes its address as the first argument.

/** The folder of this package's `package.json`, from the compiled (`dist/component`) or the source folder. */
export function packageRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, "utf8")).name === "pulumi-remote-browser") return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json of pulumi-remote-browser above ${from}`);
  }
}

/** Starts the plugin's gRPC server; `args` as the engine passes them (its address first). */
export function serve(args: string[] = process.argv.slice(2)): Promise<void> {
  return main(new RemoteBrowserComponentProvider(packageRoot()), args);
}

if (require.main === module) void serve();
