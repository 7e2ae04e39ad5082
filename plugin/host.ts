import { serveNative } from "./server";
import type { ServeOptions } from "./server";
import { exitWhenEngineGone } from "../engine-conventions/liveness";

// The plugin's entry point: serves the `remote-browser` package to the engine -- BrowserSession and the
// data sources natively, and the components through the SDK's provider server (plugin/server.ts), printing
// the port the engine connects to. `bin/pulumi-resource-remote-browser` runs it, and `index.ts` when the
// Node.js language host runs the package folder; the engine passes its address as the first argument.

/** Starts the plugin's gRPC server; `args` as the engine passes them (its address first). */
export async function serve(args: string[] = process.argv.slice(2), options: ServeOptions = {}): Promise<void> {
  await serveNative(args, options);
  // A plugin whose engine was killed is of no use to anyone, and one that went on waiting would end, at
  // its deadline, the session the next update adopts: such a process exits. Watched from the moment the
  // port is printed (the watch reads /proc and probes the engine's address; the start waits for neither).
  exitWhenEngineGone();
}

if (require.main === module) void serve();
