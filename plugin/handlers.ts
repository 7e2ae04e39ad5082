import * as fs from "node:fs";
import * as path from "node:path";
import { warn } from "../core/diagnostics";
import type { PulumiModules } from "../core/sdkInternals";
import { ProviderContext } from "../core/context";
import { parseSessionsArgs, sessionsResult } from "../core/dataSources";
import { invoke } from "./functions";
import { checkConfig, diffConfig, isDefaultProvider, plainCredentialWarning, plainCredentialsIn, projectCredentialWarning, projectCredentialsIn, settingsFrom } from "./providerConfig";
import { isSecret } from "./secrets";
import { NativeBrowserSessions } from "./resource";
import { grpcError, wire } from "./rpc";
import type { Handler } from "./rpc";
import { BROWSER_SESSION } from "./tokens";

/**
 * The calls the plugin answers natively, rather than the SDK's provider server (see server.ts for why):
 * CheckConfig, DiffConfig, Configure, Check, Diff, Create, Read, Update, Delete, Invoke, List and Cancel.
 * The front door loads this module, and with it the core and the service's client, at the first of them.
 */

/**
 * The handlers the plugin answers itself; `sdk` gives the SDK server's own, for the types it serves (the
 * components').
 */
/** What the components' provider is told of the calls the plugin answers itself. */
export interface ComponentsProvider {
  /** Configure named the provider resource this process serves. */
  servedAs?(urn: string, id: string): void;
}

export function nativeHandlers(
  m: PulumiModules,
  sdk: (name: string) => Handler,
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
    return (call, callback) => (typeOf(call.request) === BROWSER_SESSION ? ours(call, callback) : sdk(name)(call, callback));
  };
  const failuresOf = (failures: Array<{ property: string; reason: string }>) =>
    failures.map((f) => {
      const failure = new proto.CheckFailure();
      failure.setProperty(f.property);
      failure.setReason(f.reason);
      return failure;
    });

  return {
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

function stackConfigText(urn: string, dir: string = process.cwd()): string {
  const stack = urn.split("::")[0]?.split(":").at(-1);
  if (!stack || /[/\\]/.test(stack)) return "";
  try {
    return fs.readFileSync(path.join(dir, `Pulumi.${stack}.yaml`), "utf8");
  } catch {
    return "";
  }
}

/** A request's resource type: its `type` field where the engine sets it, else the URN's type part. */
function typeOf(req: { getType?: () => string; getUrn?: () => string }): string {
  const type = req.getType?.();
  if (type) return type;
  const urn = req.getUrn?.() ?? "";
  const qualified = urn.split("::")[2] ?? "";
  return qualified.slice(qualified.lastIndexOf("$") + 1);
}
