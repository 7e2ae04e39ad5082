/**
 * Preloaded (`node --require`) into the Node.js plugins an engine starts -- the runner puts it in the
 * engine's NODE_OPTIONS (runner/environment.ts) -- so that a plugin exits once its engine is gone from
 * its very start.
 *
 * The dynamic provider loads this package only at its first call (check, diff, create, read or delete:
 * the stored provider text requires it then). An engine killed before that call leaves a process that
 * none of this package's code runs in, kept alive for good by @pulumi/pulumi's gRPC server: only code
 * loaded with the process can end it. Any other Node.js process the engine starts is left alone.
 *
 * The dynamic provider host gets its SDK's runtime loaded here first, with Arborist and TypeScript deferred
 * (pulumiSdk.ts): the host needs neither -- it runs stored providers, it serialises none -- and they
 * were about a third of its start. Should that load fail, the host loads its runtime itself, as always.
 */
import * as path from "node:path";
import { loadSdkRuntimeDeferred } from "./pulumiSdk";
import { exitWhenEngineGone, dynamicProviderSdk, isPluginProcess } from "./liveness";

export { isPluginProcess } from "./liveness";

if (isPluginProcess(process.argv)) exitWhenEngineGone();
const hostSdk = dynamicProviderSdk(process.argv[1]);
if (hostSdk) {
  try {
    loadSdkRuntimeDeferred(path.join(hostSdk, "package.json"));
  } catch {
    // the host's own require loads it
  }
}
