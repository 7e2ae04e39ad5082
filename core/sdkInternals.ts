import type { Provider } from "@pulumi/pulumi/provider";
import { sdkRequire } from "./pulumiSdk";

/**
 * Every reach into `@pulumi/pulumi` beyond its documented API, in one place: the generated protocol
 * modules and gRPC the plugin's front door is built on (plugin/server.ts), the registration of the SDK's
 * provider service that it takes over, and the gRPC client the diagnostics speak to the engine with
 * (diagnostics.ts). `pulumiSdk.ts` says where these modules are loaded from (the release bundle puts
 * `release/bundledSdk.ts` in its place); this module says what is expected of them, and the plugin fails
 * at start, naming the installed release, when one no longer holds.
 */

/**
 * The releases of `@pulumi/pulumi` whose `sdk/nodejs/provider/server.ts` and `proto/` these reaches were
 * read in; the tests run them against the pinned one (package.json).
 */
export const CHECKED_SDK_VERSIONS = "3.159.0 through 3.270.0";

/** The modules of the installed @pulumi/pulumi that its provider server is built on, loaded as it loads them. */
export function pulumiModules(load: (id: string) => any = sdkRequire) { // eslint-disable-line @typescript-eslint/no-explicit-any
  const m = {
    grpc: load("@grpc/grpc-js"),
    service: load("./proto/provider_grpc_pb").ResourceProviderService,
    proto: load("./proto/provider_pb"),
    plugin: load("./proto/plugin_pb"),
    status: load("./proto/status_pb"),
    struct: load("google-protobuf/google/protobuf/struct_pb"),
    any: load("google-protobuf/google/protobuf/any_pb"),
    empty: load("google-protobuf/google/protobuf/empty_pb"),
  };
  const missing = [
    typeof m.grpc?.Server?.prototype?.addService === "function" ? undefined : "@grpc/grpc-js Server.addService",
    m.service ? undefined : "proto/provider_grpc_pb ResourceProviderService",
    typeof m.proto?.ErrorResourceInitFailed === "function" ? undefined : "proto/provider_pb ErrorResourceInitFailed",
    typeof m.struct?.Struct?.fromJavaScript === "function" ? undefined : "google-protobuf Struct.fromJavaScript",
  ].filter(Boolean);
  if (missing.length > 0) throw sdkChanged(`it lacks ${missing.join(", ")}`);
  return m;
}

export type PulumiModules = ReturnType<typeof pulumiModules>;

/**
 * Serves `components` with the SDK's `main`, letting `extend` add to the SDK's provider service
 * implementation as `main` registers it with gRPC (once, before its first await). Fails at start, rather
 * than serving a half provider, if the installed SDK no longer registers its service that way.
 */
export async function interceptProviderService(
  m: PulumiModules,
  components: Provider,
  args: string[],
  extend: (implementation: Record<string, unknown>) => void,
): Promise<void> {
  // Loaded here, from the same installed copy whose gRPC module is extended below.
  const { main } = sdkRequire("./provider") as typeof import("@pulumi/pulumi/provider");
  const server = m.grpc.Server.prototype;
  const addService = server.addService;
  let extended = false;
  server.addService = function (this: unknown, service: unknown, implementation: Record<string, unknown>) {
    if (service === m.service && !extended) {
      extend(implementation);
      extended = true;
    }
    return addService.call(this, service, implementation);
  };
  let serving: Promise<void>;
  try {
    serving = main(components, args);
  } finally {
    server.addService = addService;
  }
  if (!extended) throw sdkChanged("it did not register its provider service as expected; the remote-browser plugin cannot serve BrowserSession");
  await serving;
}

function sdkChanged(what: string): Error {
  return new Error(
    `the installed @pulumi/pulumi ${installedVersion()} is not as the remote-browser plugin expects: ${what} ` +
      `(checked with ${CHECKED_SDK_VERSIONS}); install one of those releases`,
  );
}

function installedVersion(): string {
  try {
    return String((sdkRequire("./package.json") as { version?: unknown }).version ?? "(version unknown)");
  } catch {
    return "(version unknown)";
  }
}

/** The part of `@grpc/grpc-js` used here: its generic client and insecure credentials (public API since 1.0). */
export interface GrpcModule {
  Client: new (address: string, credentials: unknown) => {
    makeUnaryRequest(
      method: string,
      serialize: (value: Buffer) => Buffer,
      deserialize: (value: Buffer) => Buffer,
      argument: Buffer,
      options: { deadline: number },
      callback: (err: Error | null) => void,
    ): unknown;
  };
  credentials: { createInsecure(): unknown };
}

/**
 * gRPC as the installed `@pulumi/pulumi` resolves it (it depends on it in every release), or why it
 * cannot be used. `load` stands in for that resolution in tests.
 */
export function loadGrpc(load: (id: string) => unknown = sdkRequire): GrpcModule | Error {
  try {
    const grpc = load("@grpc/grpc-js") as Partial<GrpcModule>;
    if (typeof grpc.Client !== "function" || typeof grpc.credentials?.createInsecure !== "function") {
      return new Error("@grpc/grpc-js has no Client or credentials.createInsecure");
    }
    if (typeof grpc.Client.prototype.makeUnaryRequest !== "function") return new Error("@grpc/grpc-js has no makeUnaryRequest");
    return grpc as GrpcModule;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
