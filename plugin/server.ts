import type { Provider } from "@pulumi/pulumi/provider";
import type { ProviderContext } from "../core/context";
import { engineAnnounced } from "../engine-conventions/liveness";
import { pulumiModules, type PulumiModules } from "../engine-conventions/sdkInternals";
import { builtSchemaText, pluginIdentity } from "./identity";
import { callsAnsweredBy, grpcError, type Call, type Callback, type FrontCall, type Handler } from "./rpc";

/**
 * The plugin's gRPC front door. `main` of `@pulumi/pulumi/provider` serves components well (construct,
 * call), but its server cannot serve a custom resource as a native provider must (read in
 * sdk/nodejs/provider/server.ts, 3.159.0 through 3.270.0): it answers Configure without reading the
 * configuration, leaves CheckConfig and DiffConfig unimplemented, and does not pass on CreateRequest's
 * time-out (the resource's customTimeouts.create). So the plugin answers the provider-level and
 * custom-resource calls itself (handlers.ts), and hands the components' calls to the SDK's server.
 *
 * Every `pulumi preview`, `up`, `refresh` and `destroy` starts the plugin and waits for its port, so this
 * module loads what answering the first call needs and no more: gRPC and the provider and plugin protocol
 * modules. Each other part is loaded by the first call that needs it:
 * - the native handlers (handlers.ts), and with them the core and the service's client: CheckConfig,
 *   Configure, Check, Create, Invoke, ...;
 * - the served schema, read as the build wrote it (identity.ts) or derived (packageSchema.ts): GetSchema;
 * - the SDK's provider server, with the components (provider.ts) and the SDK's resource model: Construct,
 *   Call, Attach, Parameterize, and a Check, Diff, Create, Read, Update or Delete of a type other than
 *   BrowserSession.
 * Nothing reads the disk or the network before the port is printed.
 */

/** Set by the release build (release/bundle.ts): the schema the binary serves, as packageSchema.ts builds it. */
declare const PRB_SCHEMA: string | undefined;

/**
 * The SDK server's options (`grpcChannelOptions` of its runtime/settings.ts): messages up to 400 MiB, and
 * half an hour for a call to send its first message. Restated, because that module loads the SDK's runtime;
 * a test holds the two to each other.
 */
export const GRPC_SERVER_OPTIONS = {
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
  "grpc.server_max_unrequested_time_in_server": 30 * 60,
};

export interface ServeOptions {
  ctx?: ProviderContext;
  /**
   * Takes the SDK's provider server at start rather than at the first component call: for a process whose
   * SDK will call its own `main` next (run-plugin, see index.ts), which must find the SDK serving.
   */
  sdkAtStart?: boolean;
}

/**
 * Serves the plugin's provider service on a port of the loopback interface, and prints the port, as the
 * engine expects, once it is bound. Fails at start, rather than serving a half provider, if the installed SDK
 * lacks a protocol module the front door is built on.
 */
export async function serveNative(args: string[], options: ServeOptions = {}): Promise<void> {
  const m = pulumiModules();
  const service = providerService(m, args, options);
  const server = new m.grpc.Server(GRPC_SERVER_OPTIONS);
  server.addService(m.service, service);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", m.grpc.ServerCredentials.createInsecure(), (err: Error | null, p: number) => (err ? reject(err) : resolve(p))),
  );
  process.stdout.write(`${port}\n`);
}

/** The provider service's handlers, each part loaded by the first call that needs it. */
export function providerService(m: PulumiModules, args: string[], options: ServeOptions = {}): Record<string, Handler> {
  const uncaught = reportUncaught();
  let sdk: Record<string, Handler> | undefined;
  // Configure (a native call) names the provider resource this process serves, usually before the
  // components' provider is loaded: kept until it is, then handed to it (see provider.ts servedAs).
  let servedAs: [string, string] | undefined;
  let components: { servedAs(urn: string, id: string): void } | undefined;
  const sdkService = (): Record<string, Handler> => {
    if (!sdk) {
      const { RemoteBrowserComponentProvider, sdkProviderService } = require("./provider") as typeof import("./provider"); // eslint-disable-line @typescript-eslint/no-require-imports -- loaded at the first call that needs it, not at start
      const provider = new RemoteBrowserComponentProvider();
      if (servedAs) provider.servedAs(...servedAs);
      components = provider;
      const implementation = sdkProviderService(m, provider as Provider, args);
      // The SDK's `main` has put its own handlers of uncaught errors in place.
      uncaught.stop();
      // Its handlers are methods of its class: taken by name, each bound to the instance.
      const bound: Record<string, Handler> = {};
      for (const name of callsAnsweredBy("sdk", "resource")) {
        const fn = implementation[name];
        if (typeof fn === "function") bound[name] = fn.bind(implementation) as Handler;
      }
      sdk = bound;
    }
    return sdk;
  };
  const sdkHandler = (name: string): Handler => loadedBy(m, sdkService, name);

  let native: Record<string, Handler> | undefined;
  // Whether the engine the calls are from has ended its use of the plugin (Cancel).
  let engine = { cancelled: false };
  const nativeService = (): Record<string, Handler> => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at the first call that needs it, not at start
    native ??= (require("./handlers") as typeof import("./handlers")).nativeHandlers(m, sdkHandler, options.ctx, {
      servedAs: (urn, id) => {
        servedAs = [urn, id];
        components?.servedAs(urn, id);
      },
    });
    return native;
  };

  let schema: string | undefined;
  const front: Record<FrontCall, Handler> = {
    // The engine's first call. It says where the engine is -- the only place it does for an engine that
    // attached to this plugin (PULUMI_DEBUG_PROVIDERS) -- and, with supports_refresh_before_update, that it
    // reads a resource marked so (handlers.ts) before every update of it. The answer must match Configure's.
    handshake: (call, callback) => {
      engineAnnounced(call.request.getEngineAddress());
      // An engine that attached ends its use of the plugin as it ends any plugin's, with Cancel, and leaves it
      // running: the next engine (the update after the preview, the next command) must not find its calls
      // cancelled. So the first Handshake after a Cancel gives the calls that follow handlers and a context
      // of their own (unless the caller gave one); calls still in flight keep theirs. Any other Handshake is
      // one more provider instance of the engine that configured this one -- an engine handshakes once per
      // instance it loads, and a refresh before the update loads one more, from a plugin context with an
      // address of its own -- and keeps the context that engine configured.
      if (!options.ctx && engine.cancelled) native = undefined;
      engine = { cancelled: false };
      const resp = new m.proto.ProviderHandshakeResponse();
      resp.setAcceptSecrets(true);
      resp.setAcceptResources(true);
      resp.setAcceptOutputs(true);
      callback(null, resp);
    },
    // The version the engine records for default providers and `pulumi about` names: the release's.
    getPluginInfo: (_call, callback) => {
      const resp = new m.plugin.PluginInfo();
      resp.setVersion(pluginIdentity().version);
      callback(null, resp);
    },
    // As the SDK's server answers it: schema version 0 only.
    getSchema: (call, callback) => {
      if (call.request.getVersion() !== 0) return callback(new Error(`unsupported schema version ${call.request.getVersion()}`));
      try {
        // The schema built with the plugin: the release binary's (release/bundle.ts), else the package's
        // (identity.ts); derived here only when neither was built for this version.
        schema ??= typeof PRB_SCHEMA !== "undefined" ? PRB_SCHEMA : (builtSchemaText() ?? JSON.stringify((require("./packageSchema") as typeof import("./packageSchema")).servedSchema())); // eslint-disable-line @typescript-eslint/no-require-imports -- loaded only when no built schema is there
      } catch (err) {
        const e = grpcError(m, err);
        return callback(e, null, e.metadata);
      }
      const resp = new m.proto.GetSchemaResponse();
      resp.setSchema(schema);
      callback(null, resp);
    },
  };
  // Routed by the one table of calls (rpc.ts).
  const service: Record<string, Handler> = { ...front };
  for (const name of callsAnsweredBy("native", "resource")) service[name] = loadedBy(m, nativeService, name);
  const cancel = service.cancel;
  if (cancel) {
    service.cancel = (call, callback) => {
      engine.cancelled = true;
      cancel(call, callback);
    };
  }
  for (const name of callsAnsweredBy("sdk")) service[name] = loadedBy(m, sdkService, name);
  if (options.sdkAtStart) sdkService();
  return service;
}

/**
 * `name`'s handler from the part `load` loads on its first call. A part that fails to load (an installed SDK
 * that no longer registers its service as expected) fails the call with the reason, as a handler's error would.
 */
function loadedBy(m: PulumiModules, load: () => Record<string, Handler>, name: string): Handler {
  return (call: Call, callback: Callback) => {
    let handler: Handler | undefined;
    try {
      handler = load()[name];
      // As gRPC answers a method without a handler (an installed SDK whose server lacks it).
      if (!handler) throw Object.assign(new Error(`The server does not implement the method ${name}`), { code: m.grpc.status.UNIMPLEMENTED });
    } catch (err) {
      const e = { ...grpcError(m, err), ...((err as { code?: number }).code === m.grpc.status.UNIMPLEMENTED ? { code: m.grpc.status.UNIMPLEMENTED } : {}) };
      // A server-streaming call (List) has no callback: its error is an event of the call.
      if (typeof callback === "function") callback(e, null, e.metadata);
      else (call as unknown as { emit(event: "error", err: unknown): void }).emit("error", e);
      return;
    }
    handler(call, callback);
  };
}

/**
 * Until the SDK's `main` puts its own in place, an uncaught error is reported as the SDK's handlers report it
 * (on standard error, which the engine logs) and does not end the plugin, whose other calls may be in flight;
 * the process then exits with 1, not 0.
 */
function reportUncaught(): { stop(): void } {
  let seen = false;
  const report = (err: unknown) => {
    seen = true;
    const e = err as { stack?: string; message?: string } | undefined;
    process.stderr.write(`error: [runtime] ${e?.stack || e?.message || String(err)}\n`);
  };
  const onExit = (code: number) => {
    if (code === 0 && seen) process.exitCode = 1;
  };
  process.on("uncaughtException", report);
  process.on("unhandledRejection", report);
  process.on("exit", onExit);
  return {
    stop() {
      process.off("uncaughtException", report);
      process.off("unhandledRejection", report);
    },
  };
}
