import type { Provider } from "@pulumi/pulumi/provider";
import { sdkRequire } from "../engine-conventions/pulumiSdk";
import { sdkChanged } from "../engine-conventions/sdkInternals";
import type { PulumiModules } from "../engine-conventions/sdkInternals";

/**
 * The SDK's provider service implementation serving `components`, as its `main` builds it, without the
 * server `main` would start: `main` registers the implementation with gRPC once, before its first await, and
 * that registration is where it is taken and `main` stopped, before it binds a port or prints one. `main`
 * has marked the SDK as serving by then, so a later `main` (run-plugin's componentProviderHost) starts no
 * second server. Fails, rather than serving a half provider, if the installed SDK no longer registers its
 * service that way.
 */
export function sdkProviderService(
  m: PulumiModules,
  components: Provider,
  args: string[],
  load: (id: string) => unknown = sdkRequire,
): Record<string, unknown> {
  // Loaded here, from the same installed copy whose gRPC module is intercepted below.
  const { main } = load("./provider") as typeof import("@pulumi/pulumi/provider");
  const server = m.grpc.Server.prototype;
  const addService = server.addService;
  const taken = new Error("the SDK's provider service, taken at its registration");
  let implementation: Record<string, unknown> | undefined;
  server.addService = function (this: unknown, service: unknown, impl: Record<string, unknown>) {
    if (service === m.service && !implementation) {
      implementation = impl;
      throw taken;
    }
    return addService.call(this, service, impl);
  };
  let stopped: Promise<void>;
  try {
    stopped = main(components, args);
  } finally {
    server.addService = addService;
  }
  // `main` is async: the throw above ends it as a rejection, which is its expected end here.
  stopped.catch((err: unknown) => {
    if (err !== taken) throw err;
  });
  if (!implementation) throw sdkChanged("it did not register its provider service as expected; the remote-browser plugin cannot serve its components");
  return implementation;
}
