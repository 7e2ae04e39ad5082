import { ProviderContext } from "../core/context";
import { engineDiagnostics } from "../engine-conventions/diagnostics";
import { engineWatcher } from "../engine-conventions/liveness";
import type { PulumiModules } from "../engine-conventions/sdkInternals";
import { plainJson, urnType } from "../engine-conventions/wire";
import { invoke } from "./functions";
import { checkConfig, configFileWarnings, configuredStackIdentity, diffConfig, isDefaultProvider, keyInPlainConfig, settingsFrom } from "./providerConfig";
import { BROWSER_SESSION } from "./identity";
import { BrowserSessionAdapter } from "./resource";
import { grpcError, type Handler, type NativeCall } from "./rpc";

/** What the components' provider is told of the calls the plugin answers itself. */
export interface ComponentsProvider {
  /** Configure named the provider resource this process serves. */
  servedAs?(urn: string, id: string): void;
}

/**
 * The calls the plugin answers natively, rather than the SDK's provider server (see server.ts for why): those
 * rpc.ts's table routes here, a resource's only for BrowserSession. The front door loads this module, and with
 * it the core and the service's client, at the first of them. `sdk` gives the SDK server's own handlers, for
 * the types it serves (the components').
 */
export function nativeHandlers(
  m: PulumiModules,
  sdk: (name: string) => Handler,
  ctx: ProviderContext = new ProviderContext({ engineAlive: engineWatcher(), diagnostics: engineDiagnostics() }),
  components: ComponentsProvider = {},
): Record<NativeCall, Handler> {
  const sessions = new BrowserSessionAdapter(ctx);
  /**
   * DiffConfig found a changed setting: the engine asks it of the process it loaded for the provider's new
   * settings, and configures that process with them (a provider's update) only when something changed.
   */
  let settingsDiffered = false;
  const { proto, struct } = m;
  const Struct = struct.Struct;
  const js = (s: { toJavaScript(): Record<string, unknown> } | undefined) => s?.toJavaScript() ?? {};
  const unary =
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request is a generated protobuf message, which has no type
    (fn: (req: any) => Promise<unknown>): Handler =>
      (call, callback) => {
        fn(call.request).then(
          (resp) => callback(null, resp),
          (err) => {
            const e = grpcError(m, err);
            callback(e, null, e.metadata);
          },
        );
      };
  /** BrowserSession's calls are answered by its adapter; any other type's go to the SDK's server (components). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request is a generated protobuf message, which has no type
  const forSession = (name: NativeCall, fn: (req: any) => Promise<unknown>): Handler => {
    const native = unary(fn);
    return (call, callback) => (typeOf(call.request) === BROWSER_SESSION ? native(call, callback) : sdk(name)(call, callback));
  };
  const failuresOf = (failures: Array<{ property: string; reason: string }>) =>
    failures.map((f) => {
      const failure = new proto.CheckFailure();
      failure.setProperty(f.property);
      failure.setReason(f.reason);
      return failure;
    });
  /** CheckConfig's and Check's answer: the inputs as they are to be recorded, and what is wrong with them. */
  const checkResponse = (inputs: Record<string, unknown>, failures: Array<{ property: string; reason: string }>) => {
    const resp = new proto.CheckResponse();
    resp.setInputs(Struct.fromJavaScript(plainJson(inputs)));
    resp.setFailuresList(failuresOf(failures));
    return resp;
  };

  return {
    checkConfig: unary(async (req) => {
      const urn: string = req.getUrn();
      const { inputs, failures, warnings } = checkConfig(js(req.getNews()), process.env, urn, js(req.getOlds()));
      if (isDefaultProvider(urn)) warnings.push(...configFileWarnings(urn));
      for (const message of warnings) await ctx.diagnostics.warning(urn, message);
      return checkResponse(inputs, failures);
    }),
    diffConfig: unary(async (req) => {
      const { changes, diffs } = diffConfig(js(req.getOlds()), js(req.getNews()));
      settingsDiffered = changes;
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
      sessions.configured({ keyInPlainConfig: keyInPlainConfig(args), stackIdentity: configuredStackIdentity(args), settingsChanged: settingsDiffered });
      settingsDiffered = false;
      const resp = new proto.ConfigureResponse();
      // As the SDK's server answers (its components need resources and outputs); secrets: see engine-conventions/wire.ts.
      resp.setAcceptsecrets(true);
      resp.setAcceptresources(true);
      resp.setAcceptoutputs(true);
      return resp;
    }),
    check: forSession("check", async (req) => {
      const { inputs, failures } = await sessions.check({ news: js(req.getNews()) });
      return checkResponse(inputs, failures);
    }),
    diff: forSession("diff", async (req) => {
      const result = sessions.diff({ id: req.getId(), urn: req.getUrn() || undefined, olds: js(req.getOlds()), news: js(req.getNews()), oldInputs: js(req.getOldInputs()) });
      const resp = new proto.DiffResponse();
      resp.setChanges(result.changes ? proto.DiffResponse.DiffChanges.DIFF_SOME : proto.DiffResponse.DiffChanges.DIFF_NONE);
      resp.setReplacesList(result.replaces);
      resp.setDiffsList(result.diffs);
      resp.setDeletebeforereplace(result.deleteBeforeReplace);
      const Kind = proto.PropertyDiff.Kind;
      const kinds = { add: [Kind.ADD, Kind.ADD_REPLACE], delete: [Kind.DELETE, Kind.DELETE_REPLACE], update: [Kind.UPDATE, Kind.UPDATE_REPLACE] };
      for (const d of result.detailedDiff) {
        const property = new proto.PropertyDiff();
        property.setKind(kinds[d.change][d.replace ? 1 : 0]);
        property.setInputdiff(true);
        resp.getDetaileddiffMap().set(d.property, property);
      }
      resp.setHasdetaileddiff(true);
      return resp;
    }),
    create: forSession("create", async (req) => {
      // A plugin that answers Handshake is taken to support previews: the engine sends `pulumi preview`'s
      // creates (and a replacement's) here too, which must start nothing. The inputs stand for the state, as
      // the engine's own answer for a plugin without previews; the outputs stay unknown until the update.
      if (req.getPreview()) {
        const resp = new proto.CreateResponse();
        resp.setProperties(req.getProperties());
        return resp;
      }
      const timeout = req.getTimeout();
      const { id, outs } = await sessions.create({ urn: req.getUrn(), news: js(req.getProperties()), engineTimeoutSeconds: timeout > 0 ? timeout : undefined });
      const resp = new proto.CreateResponse();
      resp.setId(id);
      resp.setProperties(Struct.fromJavaScript(plainJson(outs)));
      refreshBeforeUpdate(resp, outs);
      return resp;
    }),
    read: forSession("read", async (req) => {
      const result = await sessions.read({ id: req.getId(), props: js(req.getProperties()), inputs: js(req.getInputs()), urn: req.getUrn() || undefined });
      const resp = new proto.ReadResponse();
      resp.setId(result.id);
      resp.setProperties(Struct.fromJavaScript(plainJson(result.props)));
      resp.setInputs(Struct.fromJavaScript(plainJson(result.inputs)));
      refreshBeforeUpdate(resp, result.props);
      return resp;
    }),
    update: forSession("update", async (req) => {
      const { outs } = sessions.update({ olds: js(req.getOlds()), news: js(req.getNews()) });
      const resp = new proto.UpdateResponse();
      resp.setProperties(Struct.fromJavaScript(plainJson(outs)));
      refreshBeforeUpdate(resp, outs);
      return resp;
    }),
    delete: forSession("delete", async (req) => {
      const timeout = req.getTimeout();
      await sessions.delete({ id: req.getId(), props: js(req.getProperties()), urn: req.getUrn() || undefined, engineTimeoutSeconds: timeout > 0 ? timeout : undefined });
      return new m.empty.Empty();
    }),
    // The engine's Cancel (the user's Ctrl-C): the update is ending, and a create still waiting must not
    // hand the engine a session it will no longer record. (The SDK's server would pass it to the components'
    // provider, which has nothing in flight to stop.)
    cancel: unary(async () => {
      ctx.cancel();
      return new m.empty.Empty();
    }),
    // The engine's List (`pulumi do remote-browser:index:BrowserSession list`): BrowserSession's, the one type listed.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request is a generated protobuf message, which has no type
    list: ((call: { request: any; write(r: unknown): void; end(): void; emit(e: "error", err: unknown): void }) => {
      const req = call.request;
      (async () => {
        if (req.getToken() !== BROWSER_SESSION) throw new Error(`List: the remote-browser plugin lists only ${BROWSER_SESSION}, not ${req.getToken()}`);
        for (const row of await sessions.list({ query: js(req.getQuery()), limit: Number(req.getLimit()) })) {
          const result = new proto.ListResponse.Result();
          result.setId(row.id);
          result.setName(row.name);
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
      if (outputs !== undefined) resp.setReturn(Struct.fromJavaScript(plainJson(outputs)));
      resp.setFailuresList(failuresOf(failures));
      return resp;
    }),
  };
}

/**
 * A session ends outside Pulumi (the service's stopping, suspended, deleted): marked so, it is read before
 * every update of the stack, and one that has ended is dropped and started anew by a plain `pulumi up`
 * rather than kept as "unchanged" with a dead link. An engine that does not support the mark (older than
 * Handshake) ignores it; an SDK whose protocol module lacks the field sets nothing.
 * A session started with API version 7 is not marked: that version has no status operation, so the read
 * would learn nothing and only repeat its warning on every update (and destroy).
 */
function refreshBeforeUpdate(resp: { setRefreshBeforeUpdate?: (v: boolean) => unknown }, outs: Record<string, unknown> | undefined): void {
  if (outs?.apiVersion === "v7") return;
  resp.setRefreshBeforeUpdate?.(true);
}

/** A request's resource type: its `type` field where the engine sets it, else the URN's type part. */
function typeOf(req: { getType?: () => string; getUrn?: () => string }): string {
  const type = req.getType?.();
  if (type) return type;
  return urnType(req.getUrn?.() ?? "");
}
