import * as fs from "node:fs";
import * as path from "node:path";
import type { Provider } from "@pulumi/pulumi/provider";
import { warn } from "../core/diagnostics";
import { interceptProviderService, pulumiModules } from "../core/sdkInternals";
import { ProviderContext } from "../core/context";
import { parseSessionsArgs, sessionsResult } from "../core/dataSources";
import { invoke } from "./functions";
import { checkConfig, diffConfig, isDefaultProvider, plainCredentialWarning, plainCredentialsIn, projectCredentialWarning, projectCredentialsIn, settingsFrom } from "./providerConfig";
import { pluginIdentity } from "./identity";
import { isSecret } from "./secrets";
import { BROWSER_SESSION, NativeBrowserSessions } from "./resource";

/**
 * The plugin's gRPC front door. `main` of `@pulumi/pulumi/provider` serves components well (construct,
 * call), but its server cannot serve a custom resource as a native provider must (read in
 * sdk/nodejs/provider/server.ts, 3.159.0 through 3.270.0): it answers Configure without reading the
 * configuration, leaves CheckConfig and DiffConfig unimplemented, and does not pass on CreateRequest's
 * time-out (the resource's customTimeouts.create). So the plugin keeps that server for the components and
 * answers the provider-level and custom-resource calls itself: CheckConfig, DiffConfig, Configure, Check,
 * Diff, Create, Read, Update, Delete, Invoke and Cancel. The SDK registers its service implementation with gRPC
 * once, while `main` starts; that registration is where these handlers take their place.
 */

type Callback = (err: unknown, value?: unknown, metadata?: unknown) => void;
type Call = { request: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
type Handler = (call: Call, callback: Callback) => void;

type Modules = ReturnType<typeof pulumiModules>;

/** Plain JSON: the wire format has no `undefined`, which protobuf's Struct refuses. */
const wire = (v: unknown) => JSON.parse(JSON.stringify(v ?? {}));

/**
 * The engine's message for a failed call. A create that leaves a session it could not end carries the
 * engine's "created but failed to initialise" details, so the session stays in the state for destroy.
 */
export function grpcError(m: Modules, err: unknown) {
  const e = err as { message?: string; id?: string; properties?: Record<string, unknown>; reasons?: string[] };
  const message = e?.message ?? String(err);
  const metadata = new m.grpc.Metadata();
  if (e?.id) {
    const detail = new m.proto.ErrorResourceInitFailed();
    detail.setId(e.id);
    detail.setProperties(m.struct.Struct.fromJavaScript(wire(e.properties)));
    detail.setReasonsList(e.reasons ?? [message]);
    const any = new m.any.Any();
    any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new m.status.Status();
    status.setCode(m.grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(any);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return { code: m.grpc.status.UNKNOWN, details: message, message, metadata };
}

/** What the components' provider is told of the calls the plugin answers itself. */
export interface ComponentsProvider {
  /** Configure named the provider resource this process serves. */
  servedAs?(urn: string, id: string): void;
}

/** The handlers the plugin answers itself; `sdk` holds the SDK server's own, for the types it serves. */
export function nativeHandlers(
  m: Modules,
  sdk: Record<string, Handler>,
  ctx: ProviderContext = new ProviderContext(),
  components: ComponentsProvider = {},
): Record<string, Handler> {
  const resource = new NativeBrowserSessions(ctx);
  const { proto, struct } = m;
  const Struct = struct.Struct;
  const js = (s: { toJavaScript(): Record<string, unknown> } | undefined) => s?.toJavaScript() ?? {};
  const unary =
    (fn: (req: any) => Promise<unknown>): Handler => // eslint-disable-line @typescript-eslint/no-explicit-any
    (call, callback) => {
      fn(call.request).then(
        (resp) => callback(null, resp),
        (err) => {
          const e = grpcError(m, err);
          callback(e, null, e.metadata);
        },
      );
    };
  /** BrowserSession's calls are answered here; any other type goes to the SDK's server (components). */
  const forSession = (name: string, fn: (req: any) => Promise<unknown>): Handler => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const ours = unary(fn);
    return (call, callback) => (typeOf(call.request) === BROWSER_SESSION ? ours(call, callback) : sdk[name](call, callback));
  };
  const failuresOf = (failures: Array<{ property: string; reason: string }>) =>
    failures.map((f) => {
      const failure = new proto.CheckFailure();
      failure.setProperty(f.property);
      failure.setReason(f.reason);
      return failure;
    });

  return {
    // The version the engine records for default providers and `pulumi about` names: the release's.
    getPluginInfo: unary(async () => {
      const resp = new m.plugin.PluginInfo();
      resp.setVersion(pluginIdentity().version);
      return resp;
    }),
    checkConfig: unary(async (req) => {
      const urn: string = req.getUrn();
      const { inputs, failures, warnings } = checkConfig(js(req.getNews()), process.env, urn);
      if (isDefaultProvider(urn)) {
        for (const key of plainCredentialsIn(stackConfigText(urn))) warnings.push(plainCredentialWarning(key));
        for (const key of projectCredentialsIn(projectFileText())) warnings.push(projectCredentialWarning(key));
      }
      for (const message of warnings) await warn(urn, message);
      const resp = new proto.CheckResponse();
      resp.setInputs(Struct.fromJavaScript(wire(inputs)));
      resp.setFailuresList(failuresOf(failures));
      return resp;
    }),
    diffConfig: unary(async (req) => {
      const { changes, diffs } = diffConfig(js(req.getOlds()), js(req.getNews()));
      const resp = new proto.DiffResponse();
      resp.setChanges(changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
      resp.setDiffsList(diffs);
      return resp;
    }),
    configure: unary(async (req) => {
      const args = js(req.getArgs());
      const urn: string | undefined = req.getUrn?.() || undefined;
      const id: string | undefined = req.getId?.() || undefined;
      if (urn && id) components.servedAs?.(urn, id);
      ctx.configure(settingsFrom(args, req.getVariablesMap(), isDefaultProvider(urn) ? undefined : (key) => `the provider's ${key}`));
      // CheckConfig hands the key back as a secret, so a plain one here means the engine skipped it: `pulumi
      // import` configures the default provider with the stack's config as written, and records it so.
      resource.keyInPlainConfig = args.apiKey !== undefined && args.apiKey !== null && !isSecret(args.apiKey);
      const resp = new proto.ConfigureResponse();
      // As the SDK's server answers (its components need resources and outputs); secrets: see secrets.ts.
      resp.setAcceptsecrets(true);
      resp.setAcceptresources(true);
      resp.setAcceptoutputs(true);
      return resp;
    }),
    check: forSession("check", async (req) => {
      const { inputs, failures } = await resource.check(js(req.getNews()));
      const resp = new proto.CheckResponse();
      resp.setInputs(Struct.fromJavaScript(wire(inputs)));
      resp.setFailuresList(failuresOf(failures));
      return resp;
    }),
    diff: forSession("diff", async (req) => {
      const result = resource.diff(js(req.getOlds()), js(req.getNews()));
      const resp = new proto.DiffResponse();
      resp.setChanges(result.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
      resp.setReplacesList(result.replaces);
      resp.setDiffsList(result.diffs);
      resp.setDeletebeforereplace(result.deleteBeforeReplace);
      return resp;
    }),
    create: forSession("create", async (req) => {
      const timeout = req.getTimeout();
      const { id, outs } = await resource.create(req.getUrn(), js(req.getProperties()), timeout > 0 ? timeout : undefined);
      const resp = new proto.CreateResponse();
      resp.setId(id);
      resp.setProperties(Struct.fromJavaScript(wire(outs)));
      return resp;
    }),
    read: forSession("read", async (req) => {
      const result = await resource.read(req.getId(), js(req.getProperties()), js(req.getInputs()));
      const resp = new proto.ReadResponse();
      resp.setId(result.id);
      resp.setProperties(Struct.fromJavaScript(wire(result.props)));
      resp.setInputs(Struct.fromJavaScript(wire(result.inputs)));
      return resp;
    }),
    update: forSession("update", async (req) => {
      const { outs } = resource.update(js(req.getOlds()), js(req.getNews()));
      const resp = new proto.UpdateResponse();
      resp.setProperties(Struct.fromJavaScript(wire(outs)));
      return resp;
    }),
    delete: forSession("delete", async (req) => {
      await resource.delete(req.getId(), js(req.getProperties()));
      return new m.empty.Empty();
    }),
    // The engine's Cancel (the user's Ctrl-C): the update is ending, and a create still waiting must not
    // hand the engine a session it will no longer record. (The SDK's server would pass it to the components'
    // provider, which has nothing in flight to stop.)
    cancel: unary(async () => {
      ctx.cancel();
      return new m.empty.Empty();
    }),
    // The engine's List (`pulumi do remote-browser:index:BrowserSession list`): the account's sessions from
    // the one list call getSessions makes. The service masks their ids, so, unlike the call's contract, an id
    // listed here cannot be read or imported: it tells sessions apart and matches recorded vmIds, no more.
    list: ((call: { request: any; write(r: unknown): void; end(): void; emit(e: "error", err: unknown): void }) => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const req = call.request;
      (async () => {
        if (req.getToken() !== BROWSER_SESSION) throw new Error(`List: the remote-browser plugin lists only ${BROWSER_SESSION}, not ${req.getToken()}`);
        const query = parseSessionsArgs(js(req.getQuery()), "List");
        const { sessions: listed } = await sessionsResult(ctx.api(), query);
        const limit = Number(req.getLimit());
        for (const s of limit > 0 ? listed.slice(0, limit) : listed) {
          const result = new proto.ListResponse.Result();
          result.setId(s.maskedId);
          result.setName(`${s.browserName}, ${s.status}, started ${s.created} (id masked by the service)`);
          const resp = new proto.ListResponse();
          resp.setResult(result);
          call.write(resp);
        }
        call.end();
      })().catch((err) => call.emit("error", grpcError(m, err)));
    }) as unknown as Handler,
    invoke: unary(async (req) => {
      const { outputs, failures } = await invoke(ctx, req.getTok(), js(req.getArgs()));
      const resp = new proto.InvokeResponse();
      if (outputs !== undefined) resp.setReturn(Struct.fromJavaScript(wire(outputs)));
      resp.setFailuresList(failuresOf(failures));
      return resp;
    }),
  };
}

/**
 * The stack's config file as the CLI keeps it, in the project folder the engine starts the plugin in
 * (`Pulumi.<stack>.yaml`; the stack is the URN's first part). Empty where there is none (a config kept
 * elsewhere, or the Automation API's stack settings).
 */
function stackConfigText(urn: string, dir: string = process.cwd()): string {
  const stack = urn.split("::")[0]?.split(":").at(-1);
  if (!stack || /[/\\]/.test(stack)) return "";
  try {
    return fs.readFileSync(path.join(dir, `Pulumi.${stack}.yaml`), "utf8");
  } catch {
    return "";
  }
}

/** The project's Pulumi.yaml in the engine's working folder (the program's), or "" when there is none. */
function projectFileText(dir: string = process.cwd()): string {
  for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
    try {
      return fs.readFileSync(path.join(dir, name), "utf8");
    } catch {
      // the other spelling, or none
    }
  }
  return "";
}

/** A request's resource type: its `type` field where the engine sets it, else the URN's type part. */
function typeOf(req: { getType?: () => string; getUrn?: () => string }): string {
  const type = req.getType?.();
  if (type) return type;
  const urn = req.getUrn?.() ?? "";
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}

/**
 * Serves `components` with the SDK's `main`, with the native handlers in place of the SDK server's own.
 * Fails at start, rather than serving a half provider, if the installed SDK no longer registers its
 * service the way this relies on.
 */
export async function serveNative(components: Provider & ComponentsProvider, args: string[], ctx?: ProviderContext): Promise<void> {
  const m = pulumiModules();
  await interceptProviderService(m, components, args, (implementation) => {
    const sdk: Record<string, Handler> = {};
    for (const name of ["check", "diff", "create", "read", "update", "delete"]) sdk[name] = (implementation[name] as Handler).bind(implementation);
    Object.assign(implementation, nativeHandlers(m, sdk, ctx, components));
  });
}
