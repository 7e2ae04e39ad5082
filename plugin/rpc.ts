import type { SessionKeptError } from "../core/controller";
import type { PulumiModules } from "../engine-conventions/sdkInternals";
import { plainJson } from "../engine-conventions/wire";

/**
 * What the front door (server.ts) and the handlers it loads (handlers.ts) share: which part answers each call
 * of the provider service, a handler's shape, and the engine's form of a failure.
 */

/**
 * Every call the plugin serves, and the one place that says which part answers it:
 * - `front`: the front door itself, from the modules it starts with (server.ts);
 * - `native`: the native handlers (handlers.ts), loaded by the first such call;
 * - `resource`: a resource's call, answered natively for BrowserSession and by the SDK's provider server for
 *   any other type (the components');
 * - `sdk`: the SDK's provider server alone (the components' Construct and Call, Attach, Parameterize).
 * The handlers' type (NativeCall) is derived from this table, so a call added here and answered nowhere, or
 * answered and not routed, does not compile.
 */
export const CALLS = {
  handshake: "front",
  getPluginInfo: "front",
  getSchema: "front",
  checkConfig: "native",
  diffConfig: "native",
  configure: "native",
  cancel: "native",
  list: "native",
  invoke: "native",
  check: "resource",
  diff: "resource",
  create: "resource",
  read: "resource",
  update: "resource",
  delete: "resource",
  attach: "sdk",
  parameterize: "sdk",
  construct: "sdk",
  call: "sdk",
} as const;

type CallName = keyof typeof CALLS;
type Answered<By> = { [K in CallName]: (typeof CALLS)[K] extends By ? K : never }[CallName];
/** The calls server.ts answers itself. */
export type FrontCall = Answered<"front">;
/** The calls handlers.ts answers (a resource's only for BrowserSession). */
export type NativeCall = Answered<"native" | "resource">;
/** The calls the SDK's provider server answers (a resource's for any type but BrowserSession). */
export type SdkCall = Answered<"sdk" | "resource">;

/** The names of the calls answered by `by`, in the table's order. */
export function callsAnsweredBy<By extends string>(...by: By[]): Array<Answered<By>> {
  return (Object.keys(CALLS) as CallName[]).filter((name) => (by as string[]).includes(CALLS[name])) as Array<Answered<By>>;
}

export type Callback = (err: unknown, value?: unknown, metadata?: unknown) => void;
export type Call = { request: any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- a generated protobuf message, which has no type
/** A gRPC handler as `@grpc/grpc-js` calls it: unary with a callback, server-streaming with the call alone. */
export type Handler = (call: Call, callback: Callback) => void;

/**
 * The engine's message for a failed call. A create that leaves a session it could not end fails with the
 * one error of "created but not initialised", a SessionKeptError given the engine's shape (asInitFailure in
 * core/controller.ts): it goes out with the engine's "created but failed to initialise" details, so the
 * session stays in the state for destroy. Recognised by its code, not its class: the front door loads no
 * part of the core or the client before the call that needs it.
 */
export function grpcError(m: PulumiModules, err: unknown) {
  const e = err as Partial<Pick<SessionKeptError, "message" | "code" | "id" | "properties" | "reasons">> | undefined;
  const message = e?.message ?? String(err);
  const metadata = new m.grpc.Metadata();
  if (e?.code === "kept_in_stack" && e.id) {
    const detail = new m.proto.ErrorResourceInitFailed();
    detail.setId(e.id);
    detail.setProperties(m.struct.Struct.fromJavaScript(plainJson(e.properties)));
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
