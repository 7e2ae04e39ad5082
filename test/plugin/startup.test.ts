import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../release/run";
/* eslint-disable @typescript-eslint/no-explicit-any -- @pulumi/pulumi's generated gRPC client, required without types */

/**
 * What the plugin loads, reads and connects to before it prints its port, and what each later call adds:
 * every `pulumi` command waits for that port, so the start carries gRPC and the protocol modules only and
 * each other part comes with the first call that needs it (plugin/server.ts). Read from the process itself
 * (test/fixtures/plugin-start/record.js, preloaded: its module cache, its file reads and its connections),
 * not from a clock: the speed is the benchmark's (`npm run bench -- release`).
 */
const root = path.resolve(__dirname, "..", "..");
/* eslint-disable @typescript-eslint/no-require-imports -- @pulumi/pulumi's generated gRPC modules have no types and no ES exports */
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const provproto = require("@pulumi/pulumi/proto/provider_pb");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
/* eslint-enable @typescript-eslint/no-require-imports */

interface Snapshot {
  label: string;
  modules: string[];
  reads: string[];
  connects: string[];
}

/** What a start may not load: each part the first call that needs it brings. */
const LATER = {
  "the native handlers": "dist/plugin/handlers.js",
  "the core": "dist/core/context.js",
  "the service's client": "dist/client/",
  undici: "node_modules/undici/",
  zod: "node_modules/zod/",
  "the served schema": "dist/plugin/packageSchema.js",
  "the components' provider": "dist/plugin/provider.js",
  "the ReviewSessions component": "dist/plugin/reviewSessions.js",
  "the SDK's provider server": "@pulumi/pulumi/provider/server.js",
  "the SDK's runtime": "@pulumi/pulumi/runtime/",
};
/** What no call may load: the SDK's entry point (the Automation API and more), the schema analyzer, TypeScript. */
const NEVER = {
  "the SDK's entry point": "@pulumi/pulumi/index.js",
  "the SDK's Automation API": "@pulumi/pulumi/automation/",
  "the schema analyzer": "@pulumi/pulumi/provider/experimental/",
  "the TypeScript compiler": "node_modules/typescript/",
};

const loaded = (s: Snapshot, part: string) => s.modules.filter((m) => m.split(path.sep).join("/").includes(part));
const loadedOf = (s: Snapshot, parts: Record<string, string>) =>
  Object.entries(parts)
    .filter(([, part]) => loaded(s, part).length > 0)
    .map(([name]) => name);

let child: ChildProcess;
let client: any;
let stdout = "";
let engine: net.Server;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-start-"));
const recordFile = path.join(work, "record.json");

const snapshots = (): Snapshot[] => (fs.existsSync(recordFile) ? JSON.parse(fs.readFileSync(recordFile, "utf8")) : []);

/** The plugin's record once it has taken one more snapshot (at SIGUSR2). */
async function snapshotNow(): Promise<Snapshot> {
  const before = snapshots().length;
  child.kill("SIGUSR2");
  for (let i = 0; i < 200; i++) {
    const now = snapshots();
    if (now.length > before) return now.at(-1)!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the plugin took no snapshot at SIGUSR2");
}

function call<T = any>(method: string, req: unknown): Promise<T> {
  return new Promise((resolve, reject) => client[method](req, (err: Error | null, res: T) => (err ? reject(err) : resolve(res))));
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(root, "dist", "plugin", "host.js"))) await run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: root });
  engine = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const address = `127.0.0.1:${(engine.address() as net.AddressInfo).port}`;
  child = spawn(process.execPath, ["--require", path.join(root, "test", "fixtures", "plugin-start", "record.js"), path.join(root, "bin", "pulumi-resource-remote-browser"), address], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PRB_START_RECORD: recordFile, REMOTE_BROWSER_API_KEY: "" },
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      stdout += d;
      const line = /^(\d+)\n/.exec(stdout);
      if (line) resolve(line[1]!);
    });
    child.on("exit", (code) => reject(new Error(`the plugin exited (${code}) before printing its port:\n${stderr}`)));
  });
  client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}, 60_000);

afterAll(() => {
  client?.close();
  child?.kill("SIGKILL");
  engine?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("the plugin's start", () => {
  it("loads gRPC, the provider and plugin protocol modules and the front door before it prints its port, and nothing of what later calls need", () => {
    const atPort = snapshots()[0]!;
    expect(atPort.label).toBe("port");
    for (const part of ["node_modules/@grpc/grpc-js/", "@pulumi/pulumi/proto/provider_grpc_pb.js", "@pulumi/pulumi/proto/plugin_pb.js", "dist/plugin/server.js"]) {
      expect(loaded(atPort, part), part).not.toEqual([]);
    }
    expect(loadedOf(atPort, LATER)).toEqual([]);
    expect(loadedOf(atPort, NEVER)).toEqual([]);
    // The engine's own modules of @pulumi/pulumi: the protocol modules alone.
    const sdk = atPort.modules.filter((m) => m.split(path.sep).join("/").includes("/@pulumi/pulumi/")).map((m) => m.split("/@pulumi/pulumi/")[1]);
    expect(
      sdk.every((m) => m!.startsWith("proto/")),
      sdk.join(", "),
    ).toBe(true);
  });

  it("reads no file but the modules it loads, and connects nowhere, before it prints its port (the engine's watch starts after)", async () => {
    const atPort = snapshots()[0]!;
    const modules = new Set(atPort.modules);
    expect(atPort.reads.filter((file) => !modules.has(file))).toEqual([]);
    expect(atPort.connects).toEqual([]);
    // Once the port is printed, the watch of the engine probes its address (engine-conventions/liveness.ts).
    const later = await snapshotNow();
    expect(later.connects.length).toBeGreaterThan(0);
  });

  it("GetPluginInfo loads nothing more; GetSchema serves the schema the build wrote, loading neither its derivation, zod, the handlers nor the SDK's server", async () => {
    const info = await call("getPluginInfo", new Empty());
    expect(info.getVersion()).toMatch(/^\d+\.\d+\.\d+/);
    const afterInfo = await snapshotNow();
    expect(loadedOf(afterInfo, LATER)).toEqual([]);

    const text = (await call("getSchema", new provproto.GetSchemaRequest())).getSchema();
    const schema = JSON.parse(text);
    expect(Object.keys(schema.resources)).toEqual(expect.arrayContaining(["remote-browser:index:BrowserSession", "remote-browser:index:ReviewSessions"]));
    expect(text).toBe(JSON.stringify(JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8"))));
    // As the SDK's server answers: schema version 0 only.
    const newer = new provproto.GetSchemaRequest();
    newer.setVersion(1);
    await expect(call("getSchema", newer)).rejects.toThrow(/unsupported schema version 1/);
    const afterSchema = await snapshotNow();
    expect(loadedOf(afterSchema, LATER)).toEqual([]);
    expect(loadedOf(afterSchema, NEVER)).toEqual([]);
  });

  it("Configure loads the native handlers and the core, and still not the SDK's server", async () => {
    const configure = new provproto.ConfigureRequest();
    configure.setArgs(Struct.fromJavaScript({}));
    expect((await call("configure", configure)).getAcceptsecrets()).toBe(true);
    const after = await snapshotNow();
    expect(loadedOf(after, LATER)).toEqual(expect.arrayContaining(["the native handlers", "the core", "the service's client"]));
    expect(loadedOf(after, LATER)).not.toEqual(expect.arrayContaining(["the SDK's provider server"]));
    expect(loadedOf(after, NEVER)).toEqual([]);
  });

  it("a call of the SDK's server (Attach) loads it with the components, never the SDK's entry point or TypeScript, and starts no second server", async () => {
    const attach = new (require("@pulumi/pulumi/proto/plugin_pb").PluginAttach)(); // eslint-disable-line @typescript-eslint/no-require-imports -- loaded here, after the snapshot of what the plugin had loaded
    attach.setAddress("127.0.0.1:1");
    await call("attach", attach);
    const after = await snapshotNow();
    expect(loadedOf(after, LATER)).toEqual(expect.arrayContaining(["the SDK's provider server", "the components' provider", "the ReviewSessions component"]));
    expect(loadedOf(after, NEVER)).toEqual([]);
    // The SDK's `main` was stopped at its registration: it printed no port of its own.
    expect(stdout.trim().split("\n")).toHaveLength(1);
  });
});
