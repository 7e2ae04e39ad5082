import { serveNative } from "./server";
import { exitWhenEngineGone } from "../core/liveness";
import { RemoteBrowserComponentProvider } from "./provider";

// The plugin's entry point: serves the `remote-browser` package to the engine -- the components as
// `componentProviderHost` does (`main` of `@pulumi/pulumi/provider`, which prints the port the engine
// connects to), and BrowserSession and the data sources natively (plugin/server.ts).
// `bin/pulumi-resource-remote-browser` runs it, and `index.ts` when the Node.js language host runs the
// package folder; the engine passes its address as the first argument.

/** Starts the plugin's gRPC server; `args` as the engine passes them (its address first). */
export function serve(args: string[] = process.argv.slice(2)): Promise<void> {
  // A plugin whose engine was killed is of no use to anyone, and one that went on waiting would end, at
  // its deadline, the session the next update adopts: such a process exits.
  exitWhenEngineGone();
  return serveNative(new RemoteBrowserComponentProvider(), args);
}

if (require.main === module) void serve();
