import { sdkRequire } from "./pulumiSdk";

/**
 * Every reach into `@pulumi/pulumi` beyond its documented API, in one place: the generated protocol
 * modules and gRPC the plugin's front door is built on (plugin/server.ts), the gRPC client the
 * diagnostics speak to the engine with (diagnostics.ts), and the Automation API's command of a CLI whose
 * version the runner knows (runner/cli-command.ts). The one reach that only the plugin makes, taking
 * the SDK's provider service at its registration, is the plugin's own (sdkProviderService in plugin/provider.ts),
 * and the runner's, loading the SDK's runtime with two of its dependencies deferred, is pulumiSdk.ts's,
 * checked against the same releases; that module also says where these modules are loaded from (the release bundle puts
 * `release/bundledSdk.ts` in its place); this module says what is expected of them, and the plugin fails,
 * naming the installed release, when one no longer holds: at start for the protocol modules, at the first
 * component call for the provider service.
 */

/**
 * The releases of `@pulumi/pulumi` whose `sdk/nodejs/provider/server.ts` and `proto/` these reaches were
 * read in; the tests run them against the pinned one (package.json).
 */
export const CHECKED_SDK_VERSIONS = "3.159.0 through 3.270.0";

/** The modules of the installed @pulumi/pulumi that its provider server is built on, loaded as it loads them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's internal modules, loaded by id, have no types
export function pulumiModules(load: (id: string) => any = sdkRequire) {
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

/** The failure for an installed SDK that no longer is as these reaches expect, naming its release. */
export function sdkChanged(what: string): Error {
  return new Error(
    `the installed @pulumi/pulumi ${installedVersion()} is not as the remote-browser plugin expects: ${what} ` + `(checked with ${CHECKED_SDK_VERSIONS}); install one of those releases`,
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
  Client: new (
    address: string,
    credentials: unknown,
  ) => {
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

/**
 * Whether an Output's value is known, from its `isKnown` promise (a member of the SDK's Output class, not
 * of its documented interface); an Output without one counts as known.
 */
export function outputIsKnown(output: unknown): Promise<boolean> {
  return (output as { isKnown?: Promise<boolean> }).isKnown ?? Promise.resolve(true);
}

/**
 * The Automation API's command of the CLI `command` at `version`, made as the SDK makes its own
 * (PulumiCommand.get and install call a constructor its types do not export, with a version its own semver
 * parsed), so that a workspace given it does not start `pulumi version` again (runner/cli-command.ts). The
 * class is the caller's, so that nothing here loads the Automation API. Undefined where the installed SDK
 * builds its commands otherwise: the caller then lets the SDK ask the CLI, as it always did.
 */
export function automationCommand<C extends { command: string; version: unknown }>(PulumiCommand: { prototype: C }, command: string, version: string): C | undefined {
  try {
    const semver = sdkRequire("semver") as { parse(v: string): { compare(v: string): number } | null };
    const parsed = semver.parse(version);
    const Command = PulumiCommand as unknown as new (command: string, version: unknown) => C;
    const made = parsed ? new Command(command, parsed) : undefined;
    return made && made.command === command && String(made.version) === version && typeof (made as unknown as { run?: unknown }).run === "function" ? made : undefined;
  } catch {
    return undefined;
  }
}
