import { createRequire } from "node:module";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SessionProvider } from "../../dynamic/session";
import { type Diagnostic, encodeLogRequest, engineChannel, engineDiagnostics, loadGrpc } from "../../engine-conventions/diagnostics";
/* eslint-disable @typescript-eslint/no-explicit-any -- @pulumi/pulumi's generated gRPC messages, which have no types */

// The engine's side, built from the protocol modules @pulumi/pulumi ships: what the engine decodes is
// what these decode.
const fromPulumi = createRequire(require.resolve("@pulumi/pulumi/package.json"));
const grpc = fromPulumi("@grpc/grpc-js");
const engineRpc = fromPulumi("@pulumi/pulumi/proto/engine_grpc_pb");
const engineProto = fromPulumi("@pulumi/pulumi/proto/engine_pb");

interface Received {
  severity: number;
  message: string;
  urn: string;
  ephemeral: boolean;
  streamId: number;
}

/** A Log server on loopback, as the engine runs one for its plugins. */
async function fakeEngine(answer: "ok" | "fail" = "ok") {
  const received: Received[] = [];
  const server = new grpc.Server();
  server.addService(engineRpc.EngineService, {
    log(call: { request: any }, callback: (err: unknown, res?: unknown) => void) {
      const r = call.request;
      received.push({ severity: r.getSeverity(), message: r.getMessage(), urn: r.getUrn(), ephemeral: r.getEphemeral(), streamId: r.getStreamid() });
      if (answer === "fail") return callback({ code: grpc.status.UNAVAILABLE, details: "engine shutting down" });
      callback(null, new (fromPulumi("google-protobuf/google/protobuf/empty_pb").Empty)());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err: Error | null, p: number) => (err ? reject(err) : resolve(p))),
  );
  return { address: `127.0.0.1:${port}`, received, close: () => server.forceShutdown() };
}

const URN = "urn:pulumi:dev::proj::remote-browser:index:ReviewSessions$pulumi-nodejs:dynamic/remote-browser:BrowserSession::pr-7-chrome";

describe("the engine's Log channel", () => {
  let engine: Awaited<ReturnType<typeof fakeEngine>> | undefined;
  let stderr: string[];

  beforeEach(() => {
    stderr = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
    engine?.close();
    engine = undefined;
  });

  it("encodes requests the engine's own LogRequest decodes, field for field", () => {
    const long = "x".repeat(300); // a length that needs two varint bytes
    for (const d of [
      { severity: "info", message: "starting: 4s waited (state starting)", urn: URN, ephemeral: true },
      { severity: "warning", message: long, urn: undefined, ephemeral: false },
      { severity: "warning", message: "Grüße, 漢字", urn: URN, ephemeral: false },
    ] as Diagnostic[]) {
      const r = engineProto.LogRequest.deserializeBinary(encodeLogRequest(d));
      expect(r.getSeverity()).toBe(d.severity === "info" ? engineProto.LogSeverity.INFO : engineProto.LogSeverity.WARNING);
      expect(r.getMessage()).toBe(d.message);
      expect(r.getUrn()).toBe(d.urn ?? "");
      expect(r.getEphemeral()).toBe(d.ephemeral);
      expect(r.getStreamid()).toBe(0);
    }
  });

  it("puts status lines on the resource's URN as ephemeral info, and warnings as kept warnings", async () => {
    engine = await fakeEngine();
    const d = engineDiagnostics({ address: engine.address });
    await d.status(URN, "queued for capacity: 4/4 slots in use, 12s queued");
    await d.warning(URN, 'BrowserSession "pr-7-chrome": the account\'s running limit is reached');
    await d.warning(undefined, "a warning for the stack");
    expect(engine.received).toEqual([
      { severity: engineProto.LogSeverity.INFO, message: "queued for capacity: 4/4 slots in use, 12s queued", urn: URN, ephemeral: true, streamId: 0 },
      { severity: engineProto.LogSeverity.WARNING, message: 'BrowserSession "pr-7-chrome": the account\'s running limit is reached', urn: URN, ephemeral: false, streamId: 0 },
      { severity: engineProto.LogSeverity.WARNING, message: "a warning for the stack", urn: "", ephemeral: false, streamId: 0 },
    ]);
    expect(stderr).toEqual([]);
  });

  it("is where the dynamic provider reports by default: the engine named by the process's first argument", async () => {
    engine = await fakeEngine();
    const argv = process.argv;
    process.argv = [argv[0]!, argv[1]!, engine.address];
    try {
      const provider = new SessionProvider({ engineAlive: () => true });
      await provider.ctx.reporter(URN).warning("on the session's row");
    } finally {
      process.argv = argv;
    }
    expect(engine.received.map((r) => [r.urn, r.message])).toEqual([[URN, "on the session's row"]]);
  });

  it("keeps one connection for every message of the process", async () => {
    engine = await fakeEngine();
    const Client = loadGrpc() as Exclude<ReturnType<typeof loadGrpc>, Error>;
    let connections = 0;
    const counting = {
      ...Client,
      Client: class extends Client.Client {
        constructor(address: string, credentials: unknown) {
          super(address, credentials);
          connections++;
        }
      },
    };
    const d = engineDiagnostics({ channel: engineChannel(engine.address, counting) });
    for (let i = 0; i < 5; i++) await d.status(URN, `starting: ${i}s waited (state starting)`);
    expect(engine.received).toHaveLength(5);
    expect(connections).toBe(1);
  });

  it("sends no status line without a URN: there is no row to put it on", async () => {
    const seen: Diagnostic[] = [];
    const d = engineDiagnostics({ channel: async (x) => void seen.push(x) });
    await d.status(undefined, "starting: 1s waited (state starting)");
    expect(seen).toEqual([]);
  });

  it("degrades when @pulumi/pulumi's gRPC is missing or lacks the client API: no channel, nothing thrown", () => {
    const missing = loadGrpc(() => {
      throw Object.assign(new Error("Cannot find module '@grpc/grpc-js'"), { code: "MODULE_NOT_FOUND" });
    });
    expect(missing).toBeInstanceOf(Error);
    expect(engineChannel("127.0.0.1:1234", missing)).toBeNull();
    expect(loadGrpc(() => ({ credentials: { createInsecure: () => ({}) } }))).toBeInstanceOf(Error);
    expect(loadGrpc(() => ({ Client: class {}, credentials: { createInsecure: () => ({}) } }))).toBeInstanceOf(Error);
    expect(loadGrpc()).not.toBeInstanceOf(Error);
    // Outside an engine (no address as the first argument) there is nothing to connect to.
    expect(engineChannel(undefined, loadGrpc())).toBeNull();
    expect(engineChannel("--watch", loadGrpc())).toBeNull();
  });

  it("without a channel, warnings go to stderr and status lines are dropped", async () => {
    const d = engineDiagnostics({ channel: null });
    await expect(d.status(URN, "starting: 3s waited (state starting)")).resolves.toBeUndefined();
    await d.warning(URN, "the account's running limit is reached");
    expect(stderr).toEqual(["warning: the account's running limit is reached\n"]);
  });

  it("never fails the caller when the engine refuses or is gone; warnings then go to stderr", async () => {
    engine = await fakeEngine("fail");
    const d = engineDiagnostics({ channel: engineChannel(engine.address, loadGrpc()) });
    await expect(d.status(URN, "starting: 1s waited (state starting)")).resolves.toBeUndefined();
    await d.warning(URN, "refused by the engine");
    expect(engine.received.map((r) => r.message)).toEqual(["starting: 1s waited (state starting)", "refused by the engine"]);
    engine.close();
    engine = undefined;
    await expect(d.status(URN, "starting: 2s waited (state starting)")).resolves.toBeUndefined();
    await d.warning(URN, "engine gone");
    expect(stderr).toEqual(["warning: refused by the engine\n", "warning: engine gone\n"]);
  });
});
