/**
 * Preloaded (`node --require`) into the Node.js plugins an engine starts -- the runner puts it in the
 * engine's NODE_OPTIONS (runner/environment.ts) -- so that a plugin exits once its engine is gone from
 * its very start.
 *
 * The dynamic provider loads this package only at its first call (check, diff, create, read or delete:
 * the stored provider text requires it then). An engine killed before that call leaves a process that
 * none of this package's code runs in, kept alive for good by @pulumi/pulumi's gRPC server: only code
 * loaded with the process can end it. Any other Node.js process the engine starts is left alone.
 */
import { exitWhenEngineGone } from "./liveness";
import { isPluginProcess } from "./processes";

export { isPluginProcess } from "./processes";

if (isPluginProcess(process.argv)) exitWhenEngineGone();
