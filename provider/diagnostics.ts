import { createRequire } from "node:module";

/**
 * Warnings the user sees in the engine's output. A dynamic provider's console output is not shown by
 * the engine, so warnings go over the engine's own Log RPC, whose address the engine hands every
 * provider plugin as its first argument. Outside an engine (tests), they go to the sink or stderr.
 */
type Sink = (message: string) => void;

let sink: Sink | undefined;
let engineLog: ((message: string) => Promise<void>) | null | undefined;

/** Replaces where warnings go (tests); `undefined` restores the default. */
export function setWarningSink(next: Sink | undefined): void {
  sink = next;
}

export async function warn(message: string): Promise<void> {
  if (sink) return sink(message);
  if (engineLog === undefined) engineLog = connectEngineLog();
  if (engineLog) {
    try {
      return await engineLog(message);
    } catch {
      // the engine may be gone; stderr still reaches the plugin's log
    }
  }
  process.stderr.write(`warning: ${message}\n`);
}

function connectEngineLog(): ((message: string) => Promise<void>) | null {
  const address = process.argv[2];
  if (!address || !/^[\w.-]+:\d+$/.test(address)) return null;
  try {
    // gRPC and the engine's protocol come with @pulumi/pulumi; resolve them from there.
    const req = createRequire(require.resolve("@pulumi/pulumi/package.json"));
    const grpc = req("@grpc/grpc-js");
    const engrpc = req("@pulumi/pulumi/proto/engine_grpc_pb");
    const engproto = req("@pulumi/pulumi/proto/engine_pb");
    const client = new engrpc.EngineClient(address, grpc.credentials.createInsecure());
    return (message: string) =>
      new Promise<void>((resolve, reject) => {
        const r = new engproto.LogRequest();
        r.setSeverity(engproto.LogSeverity.WARNING);
        r.setMessage(message);
        client.log(r, (err: Error | null) => (err ? reject(err) : resolve()));
      });
  } catch {
    return null;
  }
}
