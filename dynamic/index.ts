/**
 * The provider's implementation, loaded by name at call time from the stored provider methods
 * (`require("pulumi-remote-browser/provider")`), so that a stack's stored provider always runs the
 * installed code, and nothing of this module -- keys, clients, sockets -- is ever serialised.
 *
 * This entry exports exactly what stored providers call, of every release: configure, check, diff,
 * create, read, update and del. Everything else is internal (tests import the modules directly).
 */
import { CONFIG_NAMESPACE, settingText } from "../core/config";
import { exitWhenEngineGone, isDynamicProviderHost } from "../engine-conventions/liveness";
import { SessionProvider } from "./session";

/** One provider per process: the engine configures a dynamic provider process once. */
const provider = new SessionProvider();

// An engine killed with SIGKILL leaves its dynamic provider process behind, re-parented and with its
// pipes closed; seen here spinning on write errors and growing without bound. Nothing can use it any
// more, and acting on (ending) a session the next update will adopt would do harm: such a process exits.
// This module loads at the provider's first call, possibly after the engine died: the watcher goes by the
// end of standard input when it is the engine's pipe, and by the engine's address otherwise (see
// engine-conventions/liveness.ts).
if (isDynamicProviderHost(process.argv[1])) exitWhenEngineGone();

export interface ConfigureRequest {
  config: { get(key: string): unknown };
}

export async function configure(req: ConfigureRequest): Promise<void> {
  provider.configure((key) => settingText(key, req.config.get(`${CONFIG_NAMESPACE}:${key}`)));
}

export const check = (olds: Record<string, unknown>, news: Record<string, unknown>) => provider.check(olds, news);
export const diff = (id: string, olds: Record<string, unknown>, news: Record<string, unknown>) => provider.diffWithService(id, olds, news);
export const create = (inputs: Record<string, unknown>) => provider.create(inputs as never);
export const read = (id: string, props?: Record<string, unknown>) => provider.read(id, props);
export const update = (id: string, olds: Record<string, unknown>, news: Record<string, unknown>) => Promise.resolve(provider.update(id, olds, news));
export const del = (id: string, props: Record<string, unknown>) => provider.delete(id, props);
