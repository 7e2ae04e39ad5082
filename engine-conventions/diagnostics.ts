import type { Diagnostics } from "../core/context";
import { engineAddress } from "./liveness";
import { loadGrpc, type GrpcModule } from "./sdkInternals";

export { loadGrpc } from "./sdkInternals";

/**
 * What the user sees from inside the provider while the engine runs it. The dynamic provider host shows
 * nothing of the provider's console, so messages go over the engine's own Log RPC, whose address the
 * engine hands every provider plugin as its first argument: warnings, and ephemeral status lines that
 * the CLI shows on a resource's row while it waits and drops once the step is done.
 *
 * The request is encoded here from `pulumirpc.LogRequest` (engine.proto, unchanged in its fields 1-5
 * since long before 3.139.0) and sent with gRPC taken from the installed `@pulumi/pulumi`: that leaves
 * only `@grpc/grpc-js`'s public client API between the provider and the engine, not the generated
 * modules under `@pulumi/pulumi/proto`, whose shape the supported range does not pin. Where gRPC cannot
 * be loaded, or outside an engine (tests), warnings go to stderr and status lines are dropped: a message
 * that cannot be shown never fails an operation.
 */
export type Severity = "info" | "warning";

export interface Diagnostic {
  severity: Severity;
  message: string;
  /** The resource the message belongs to; without one, the engine shows it on the stack. */
  urn?: string;
  /** A status line: shown while the resource's step runs, not kept in the update's diagnostics. */
  ephemeral: boolean;
}

/** Sends one message; rejects when it could not be delivered. */
export type Channel = (d: Diagnostic) => Promise<void>;

/**
 * The operations' reports as the engine shows them (core/context.ts): one connection to the engine's Log
 * RPC, opened at the first message and kept for every later one to the same engine. `channel` stands in for
 * that connection (tests): `null` as where none could be opened. `address` defaults to the engine's as
 * engineAddress() in liveness.ts knows it (Handshake's, else the plugin's first argument).
 */
export function engineDiagnostics(opts: { channel?: Channel | null; address?: string } = {}): Diagnostics {
  // One connection per engine address: an attached plugin hears of a new engine at each Handshake.
  let opened: { address: string | undefined; channel: Channel | null } | undefined;
  const open = (): Channel | null => {
    if (opts.channel !== undefined) return opts.channel;
    const address = opts.address ?? engineAddress();
    if (!opened || opened.address !== address) {
      const loaded = loadGrpc();
      opened = { address, channel: engineChannel(address, loaded) };
      if (!opened.channel && isEngineAddress(address)) {
        process.stderr.write(`warning: progress and warnings cannot reach the engine (${loaded instanceof Error ? loaded.message : "no gRPC"}); they go to this plugin's log\n`);
      }
    }
    return opened.channel;
  };
  const deliver = async (d: Diagnostic): Promise<boolean> => {
    const channel = open();
    if (!channel) return false;
    try {
      await channel(d);
      return true;
    } catch {
      // The engine may be gone; the caller decides whether the message has a second way out.
      return false;
    }
  };
  return {
    // A warning the update keeps in its diagnostics, on the resource `urn` when given; where it cannot
    // reach the engine, on standard error (the engine logs a plugin's).
    async warning(urn, message) {
      if (await deliver({ severity: "warning", message, urn, ephemeral: false })) return;
      process.stderr.write(`warning: ${message}\n`);
    },
    // Without a URN (a program of an older release) or a channel, there is no row to show it on: dropped.
    async status(urn, message) {
      if (!urn) return;
      await deliver({ severity: "info", message, urn, ephemeral: true });
    },
  };
}

function isEngineAddress(address: string | undefined): address is string {
  return !!address && /^[\w.-]+:\d+$/.test(address);
}

/** How long one message may take to reach the engine before it is given up. */
const SEND_DEADLINE_MS = 5_000;

/** One connection to the engine's Log RPC at `address`, or null when there is none to open. */
export function engineChannel(address: string | undefined, grpc: GrpcModule | Error): Channel | null {
  if (!isEngineAddress(address) || grpc instanceof Error) return null;
  let client: InstanceType<GrpcModule["Client"]>;
  try {
    client = new grpc.Client(address, grpc.credentials.createInsecure());
  } catch {
    return null;
  }
  const same = (b: Buffer) => b;
  return (d) =>
    new Promise<void>((resolve, reject) => {
      try {
        client.makeUnaryRequest("/pulumirpc.Engine/Log", same, same, encodeLogRequest(d), { deadline: Date.now() + SEND_DEADLINE_MS }, (err) => (err ? reject(err) : resolve()));
      } catch (err) {
        reject(err);
      }
    });
}

/** pulumirpc.LogSeverity */
const SEVERITY: Record<Severity, number> = { info: 1, warning: 2 };

/**
 * `pulumirpc.LogRequest` in protobuf's wire format: severity = 1 (enum), message = 2, urn = 3 (strings),
 * streamId = 4 (int32, left at 0), ephemeral = 5 (bool). Fields at their default are left out, as
 * protobuf does.
 */
export function encodeLogRequest(d: Diagnostic): Buffer {
  const parts: Buffer[] = [];
  const varint = (n: number) => {
    const bytes: number[] = [];
    while (n > 0x7f) {
      bytes.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    bytes.push(n);
    return Buffer.from(bytes);
  };
  const field = (no: number, wire: number) => varint((no << 3) | wire);
  const text = (no: number, s: string | undefined) => {
    if (!s) return;
    const b = Buffer.from(s, "utf8");
    parts.push(field(no, 2), varint(b.length), b);
  };
  parts.push(field(1, 0), varint(SEVERITY[d.severity]));
  text(2, d.message);
  text(3, d.urn);
  if (d.ephemeral) parts.push(field(5, 0), varint(1));
  return Buffer.concat(parts);
}
