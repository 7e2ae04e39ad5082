/**
 * The entry point of the `remote-browser` component package (see `PulumiPlugin.yaml`): the components the
 * plugin serves. The schema analyzer of `@pulumi/pulumi/provider/experimental` starts from this file to
 * find them; `plugin/schema.json` is what it derives.
 */
import { isRunPlugin } from "./engine-conventions/liveness";
import { serve } from "./plugin/host";

export { ReviewSessions, ShareLanguage } from "./plugin/reviewSessions";
export type { ReviewSessionsArgs } from "./plugin/reviewSessions";

// Loaded as the plugin program by the Node.js language host (its run-plugin script loads the package
// folder's entry point): serve the components as `remote-browser`. Left to itself, run-plugin would
// serve them under a name derived from the npm name, without the secret marks of the schema. It calls the
// SDK's `main` itself once this module is loaded: the SDK's provider server is taken now, so that its `main`
// finds the SDK serving and starts no second server.
if (isRunPlugin(require.main?.filename)) void serve(process.argv.slice(2), { sdkAtStart: true });
