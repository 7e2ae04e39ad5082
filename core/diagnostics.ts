import { loadGrpc } from "./sdkInternals";
import type { GrpcModule } from "./sdkInternals";

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

let sink: Channel | undefined;
let engine: Channel | null | undefined;

/**
 * Replaces the connection to the engine (tests): `null` as where no channel could be opened,
 * `undefined` to open one again on the next message.
 */
export function setEngineChannel(next: Channel | null | undefined): void {
  engine = next;
}

/** Replaces where every message goes (tests); `undefined` restores the engine's channel. */
export function setDiagnosticsSink(next: ((d: Diagnostic) => void | Promise<void>) | undefined): void {
  sink = next && (async (d) => next(d));
}

/** Replaces where warnings go (tests), dropping status lines; `undefined` restores the default. */
export function setWarningSink(next: ((message: string) => void) | undefined): void {
  setDiagnosticsSink(next && ((d) => void (d.ephemeral ? undefined : next(d.message))));
}

/** A warning the update keeps in its diagnostics, on the resource `urn` when given. */
export async function warn(urn: string | undefined, message: string): Promise<void> {
  const d: Diagnostic = { severity: "warning", message, urn, ephemeral: false };
  if (await deliver(d)) return;
  process.stderr.write(`warning: ${message}\n`);
}

/**
 * A status line on the resource `urn`'s row, replaced by the next one and gone when the step ends.
 * Without a URN (a program of an older release) or a channel, there is no row to show it on: dropped.
 */
export async function status(urn: string | undefined, message: string): Promise<void> {
  if (!urn) return;
  await deliver({ severity: "info", message, urn, ephemeral: true });
}

async function deliver(d: Diagnostic): Promise<boolean> {
  const channel = sink ?? openEngineChannel();
  if (!channel) return false;
  try {
    await channel(d);
    return true;
  } catch {
    // The engine may be gone; the caller decides whether the message has a second way out.
    return false;
  }
}

function openEngineChannel(): Channel | null {
  if (engine === undefined) {
    const loaded = loadGrpc();
    engine = engineChannel(process.argv[2], loaded);
    if (!engine && isEngineAddress(process.argv[2])) {
      process.stderr.write(`warning: progress and warnings cannot reach the engine (${loaded instanceof Error ? loaded.message : "no gRPC"}); they go to this plugin's log\n`);
    }
  }
  return engine;
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
        client.makeUnaryRequest("/pulumirpc.Engine/Log", same, same, encodeLogRequest(d), { deadline: Date.now() + SEND_DEADLINE_MS }, (err) =>
          err ? reject(err) : resolve(),
        );
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
