import type { PulumiModules } from "../engine-conventions/sdkInternals";
import { plainJson } from "../engine-conventions/wire";

/** What the front door (server.ts) and the handlers it loads share: a handler's shape and the wire's rules. */

export type Callback = (err: unknown, value?: unknown, metadata?: unknown) => void;
export type Call = { request: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
/** A gRPC handler as `@grpc/grpc-js` calls it: unary with a callback, server-streaming with the call alone. */
export type Handler = (call: Call, callback: Callback) => void;

/**
 * The engine's message for a failed call. A create that leaves a session it could not end carries the
 * engine's "created but failed to initialise" details, so the session stays in the state for destroy.
 */
export function grpcError(m: PulumiModules, err: unknown) {
  const e = err as { message?: string; id?: string; properties?: Record<string, unknown>; reasons?: string[] };
  const message = e?.message ?? String(err);
  const metadata = new m.grpc.Metadata();
  if (e?.id) {
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
