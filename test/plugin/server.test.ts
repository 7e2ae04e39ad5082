import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { isSecret, reveal, secret } from "../../engine-conventions/wire";
import { run } from "../../release/run";
/* eslint-disable @typescript-eslint/no-explicit-any -- @pulumi/pulumi's generated gRPC client and messages, required without types */

/**
 * The plugin executable's native front door, spoken to over gRPC as the engine speaks to it: the calls the
 * SDK's provider server would get wrong (Configure, CheckConfig, DiffConfig, Create's time-out) and the
 * wire forms of the answers (secret envelopes, the "created but failed to initialise" details).
 */
const root = path.resolve(__dirname, "..", "..");
/* eslint-disable @typescript-eslint/no-require-imports -- @pulumi/pulumi's generated gRPC modules have no types and no ES exports */
const provrpc = require("@pulumi/pulumi/proto/provider_grpc_pb");
const provproto = require("@pulumi/pulumi/proto/provider_pb");
const statusproto = require("@pulumi/pulumi/proto/status_pb");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
/* eslint-enable @typescript-eslint/no-require-imports */

const TYPE = "remote-browser:index:BrowserSession";
const URN = `urn:pulumi:dev::grpc::${TYPE}::s`;

let emu: Emulator;
let plugin: ChildProcess;
let client: any;
let stderr = "";
/** Stands in for the engine's address: the plugin exits when that address refuses connections. */
let engine: net.Server;
/** The stand-in engine's address, as the engine gives it to the plugins it starts. */
const engineAddress = () => `127.0.0.1:${(engine.address() as net.AddressInfo).port}`;
/** The Handshake the engine sends a plugin it attaches to. */
function handshakeRequest() {
  const req = new provproto.ProviderHandshakeRequest();
  req.setEngineAddress(engineAddress());
  return req;
}

/** One unary call; rejects with the gRPC error. */
function call<T = any>(method: string, req: unknown): Promise<T> {
  return callOn(client, method, req);
}

/** The plugin executable, started as the engine starts it, and a gRPC client of its provider service, configured. */
async function startPlugin(engineAddress: string, onStderr: (d: Buffer) => void = () => undefined) {
  const child = spawn(path.join(root, "bin", "pulumi-resource-remote-browser"), [engineAddress], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, REMOTE_BROWSER_API_KEY: "" } });
  let err = "";
  child.stderr!.on("data", (d) => {
    err += d;
    onStderr(d);
  });
  const port = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.on("exit", (code) => reject(new Error(`the plugin exited (${code}):\n${err}`)));
  });
  const rpc = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const answer = await configureOn(rpc);
  expect(answer.getAcceptsecrets()).toBe(true);
  return { child, rpc };
}

/** Configure, as the engine configures the plugin: with the inputs CheckConfig handed back, the key in its secret envelope. */
function configureOn(rpc: any) {
  const configure = new provproto.ConfigureRequest();
  configure.setArgs(Struct.fromJavaScript({ apiKey: secret(emu.apiKey), baseUrl: emu.apiBaseUrl }));
  return callOn<any>(rpc, "configure", configure);
}

function callOn<T = any>(rpc: any, method: string, req: unknown): Promise<T> {
  return new Promise((resolve, reject) => rpc[method](req, (err: Error | null, res: T) => (err ? reject(err) : resolve(res))));
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(root, "dist", "plugin", "server.js"))) await run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: root });
  emu = await startEmulator({ prepMs: 50, prepJitterMs: 0 });
  engine = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const started = await startPlugin(engineAddress(), (d) => (stderr += d));
  plugin = started.child;
  client = started.rpc;
}, 120_000);

afterAll(async () => {
  client?.close();
  plugin?.kill("SIGKILL");
  await emu?.close();
  engine?.close();
});

beforeEach(() => {
  emu.control.preparation({ paused: false });
  emu.control.clearFaults();
});

function createRequest(properties: Record<string, unknown>, timeout = 0) {
  const req = new provproto.CreateRequest();
  req.setUrn(URN);
  req.setType(TYPE);
  req.setProperties(Struct.fromJavaScript(properties));
  req.setTimeout(timeout);
  return req;
}

describe("the provider's own settings", () => {
  it("CheckConfig refuses a bad setting on no property (the engine would print its value), naming it in the reason, and returns the key as a secret", async () => {
    const req = new provproto.CheckRequest();
    req.setUrn("urn:pulumi:dev::grpc::pulumi:providers:remote-browser::p");
    req.setNews(Struct.fromJavaScript({ apiKey: "rb_plain_0123456789", baseUrl: "https://api.example.com/v8", apiVersion: "v9" }));
    const res = await call("checkConfig", req);
    expect(res.getFailuresList().map((f: any) => [f.getProperty(), f.getReason()])).toEqual([["", expect.stringMatching(/the provider's apiVersion must be "v8" or "v7"/)]]);
    expect(isSecret(res.getInputs().toJavaScript().apiKey)).toBe(true);
  });

  it("DiffConfig names the changed settings without replacing the provider", async () => {
    const req = new provproto.DiffRequest();
    req.setOlds(Struct.fromJavaScript({ baseUrl: "https://a.example.com" }));
    req.setNews(Struct.fromJavaScript({ baseUrl: "https://b.example.com" }));
    const res = await call("diffConfig", req);
    expect(res.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
    expect(res.getDiffsList()).toEqual(["baseUrl"]);
    expect(res.getReplacesList()).toEqual([]);
  });
});

describe("BrowserSession over gRPC", () => {
  it("Create answers the session with its share link in a secret envelope", async () => {
    const res = await call("create", createRequest({ browser: "chrome" }));
    const props = res.getProperties().toJavaScript();
    const session = emu.control.sessions().find((s) => s.vmId === res.getId())!;
    expect(session.status).toBe("running");
    expect(isSecret(props.shareUrl)).toBe(true);
    expect(reveal(props.shareUrl)).toContain(session.linkId);
    expect(props.status).toBe("running");
  });

  it("Create gives up at the request's time-out (customTimeouts.create) and ends the session", async () => {
    emu.control.preparation({ paused: true });
    const before = emu.control.books().started;
    const err = await call("create", createRequest({ browser: "firefox" }, 1)).then(
      () => undefined,
      (e) => e,
    );
    expect(err?.details).toMatch(/not running after 1 s .*customTimeouts\.create/);
    expect(emu.control.books().started).toBe(before + 1);
    expect(emu.control.sessions().filter((s) => s.browser === "firefox" && s.status === "starting")).toEqual([]);
  });

  it("a create that cannot end the session it gave up on says so in the engine's 'failed to initialise' details, with the id", async () => {
    emu.control.preparation({ paused: true });
    emu.control.fault({ operation: "remove", kind: "error", count: 100 });
    const err = await call("create", createRequest({ browser: "edge" }, 1)).then(
      () => undefined,
      (e) => e,
    );
    emu.control.clearFaults();
    expect(err?.details).toMatch(/kept in the stack/);
    const bin = err.metadata.get("grpc-status-details-bin")[0] as Buffer;
    const status = statusproto.Status.deserializeBinary(bin);
    const detail = provproto.ErrorResourceInitFailed.deserializeBinary(status.getDetailsList()[0].getValue());
    const kept = emu.control.sessions().find((s) => s.browser === "edge")!;
    expect(detail.getId()).toBe(kept.vmId);
    expect(detail.getProperties().toJavaScript()).not.toHaveProperty("shareUrl");
  });

  it("Handshake answers as Configure does; Create, Read (a refresh) and Update mark the session to be read before every update", async () => {
    const hello = handshakeRequest();
    hello.setSupportsRefreshBeforeUpdate(true);
    const shaken = await call("handshake", hello);
    expect([shaken.getAcceptSecrets(), shaken.getAcceptResources(), shaken.getAcceptOutputs()]).toEqual([true, true, true]);
    // As the engine follows it.
    await configureOn(client);

    const created = await call("create", createRequest({ browser: "chrome", url: "https://refreshed.example.com/" }));
    expect(created.getRefreshBeforeUpdate()).toBe(true);
    const outs = created.getProperties().toJavaScript();
    const read = new provproto.ReadRequest();
    read.setId(created.getId());
    read.setUrn(URN);
    read.setType(TYPE);
    read.setProperties(created.getProperties());
    read.setInputs(Struct.fromJavaScript({ browser: "chrome", url: "https://refreshed.example.com/" }));
    const refreshed = await call("read", read);
    expect(refreshed.getId()).toBe(created.getId());
    expect(refreshed.getRefreshBeforeUpdate()).toBe(true);
    const update = new provproto.UpdateRequest();
    update.setId(created.getId());
    update.setUrn(URN);
    update.setType(TYPE);
    update.setOlds(Struct.fromJavaScript(outs));
    update.setNews(Struct.fromJavaScript({ browser: "chrome", url: "https://refreshed.example.com/" }));
    const updated = await call("update", update);
    expect(updated.getRefreshBeforeUpdate()).toBe(true);
    // The account's running slots are shared by this file's tests.
    emu.control.endSession(created.getId());
  });

  it("a preview's Create (which the engine sends once Handshake is answered) starts no session and answers the inputs, without an id", async () => {
    const before = emu.control.sessions().length;
    const req = createRequest({ browser: "chrome", url: "https://previewed.example.com/" });
    req.setPreview(true);
    const res = await call("create", req);
    expect(res.getId()).toBe("");
    expect(res.getProperties().toJavaScript()).toEqual({ browser: "chrome", url: "https://previewed.example.com/" });
    expect(emu.control.sessions().length).toBe(before);
  });

  it("Read by id alone is an import: the browser as the input, no share link; Diff then takes the state's inputs for what the import could not record", async () => {
    const created = await call("create", createRequest({ browser: "brave", url: "https://a.example.com/" }));
    const req = new provproto.ReadRequest();
    req.setId(created.getId());
    req.setUrn(URN);
    req.setType(TYPE);
    req.setProperties(Struct.fromJavaScript({}));
    const res = await call("read", req);
    expect(res.getId()).toBe(created.getId());
    expect(res.getInputs().toJavaScript()).toEqual({ browser: "brave" });
    expect(res.getProperties().toJavaScript()).not.toHaveProperty("shareUrl");
    // The engine's Diff after the import: the read's outputs as olds, the state's inputs as old_inputs.
    const diff = (oldInputs: Record<string, unknown>, news: Record<string, unknown>) => {
      const d = new provproto.DiffRequest();
      d.setId(created.getId());
      d.setUrn(URN);
      d.setType(TYPE);
      d.setOlds(res.getProperties());
      d.setOldInputs(Struct.fromJavaScript(oldInputs));
      d.setNews(Struct.fromJavaScript(news));
      return call("diff", d);
    };
    const declared = { browser: "brave", url: "https://a.example.com/" };
    expect((await diff(res.getInputs().toJavaScript(), declared)).getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    const changed = await diff(declared, { ...declared, url: "https://b.example.com/" });
    expect(changed.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
    expect(changed.getReplacesList()).toEqual(["url"]);
  });
});

describe("input from the engine that is never trusted", () => {
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e) => e as { details: string },
    );

  it("a 1 MB id to Read or Delete fails with a short message that does not repeat it (the stream stays up)", async () => {
    const huge = `vm-${"a".repeat(1024 * 1024)}`;
    const read = new provproto.ReadRequest();
    read.setId(huge);
    read.setUrn(URN);
    read.setType(TYPE);
    read.setProperties(Struct.fromJavaScript({}));
    const del = new provproto.DeleteRequest();
    del.setId(huge);
    del.setUrn(URN);
    del.setType(TYPE);
    del.setProperties(Struct.fromJavaScript({ vmId: huge }));
    for (const [method, req] of [
      ["read", read],
      ["delete", del],
    ] as const) {
      const err = await failure(call(method, req));
      expect(err?.details, method).toMatch(/the session id is 1048579 characters long, not a session id/);
      expect(err!.details.length, method).toBeLessThan(300);
    }
  });

  it("Invoke of a token that is a property of every object (__proto__, constructor, toString) is an unknown function", async () => {
    for (const tok of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const req = new provproto.InvokeRequest();
      req.setTok(tok);
      req.setArgs(Struct.fromJavaScript({}));
      const err = await failure(call("invoke", req));
      expect(err?.details, tok).toMatch(new RegExp(`^unknown function ${tok} \\(the remote-browser plugin serves remote-browser:index:getImages`));
    }
  });

  it("Configure with the key as plain stack config (pulumi import does not pass it through CheckConfig): a read by id is refused, naming the fix", async () => {
    const created = await call("create", createRequest({ browser: "chrome" }));
    const plain = new provproto.ConfigureRequest();
    plain.setArgs(Struct.fromJavaScript({ apiKey: emu.apiKey, baseUrl: emu.apiBaseUrl }));
    await call("configure", plain);
    const read = new provproto.ReadRequest();
    read.setId(created.getId());
    read.setUrn(URN);
    read.setType(TYPE);
    read.setProperties(Struct.fromJavaScript({}));
    try {
      const err = await failure(call("read", read));
      expect(err?.details).toMatch(/remote-browser:apiKey is plain stack config and the import would record it in the state in clear text.*pulumi config set --secret remote-browser:apiKey/);
      expect(err!.details).not.toContain(emu.apiKey);
    } finally {
      const again = new provproto.ConfigureRequest();
      again.setArgs(Struct.fromJavaScript({ apiKey: secret(emu.apiKey), baseUrl: emu.apiBaseUrl }));
      await call("configure", again);
    }
    expect((await call("read", read)).getId()).toBe(created.getId());
  });
});

describe("the data sources over gRPC", () => {
  it("Invoke of getImages answers the emulator's catalog; an argument is refused", async () => {
    const req = new provproto.InvokeRequest();
    req.setTok("remote-browser:index:getImages");
    req.setArgs(Struct.fromJavaScript({}));
    const res = await call("invoke", req);
    const images = res.getReturn().toJavaScript().images as Array<{ id: string }>;
    expect(images.map((i) => i.id)).toContain("chrome");
    req.setArgs(Struct.fromJavaScript({ browser: "chrome" }));
    const refused = await call("invoke", req);
    expect(refused.getFailuresList().map((f: any) => f.getProperty())).toEqual(["browser"]);
  });

  it("Invoke of getSessions lists the account's sessions with masked ids, filtered by state; a bad filter is named", async () => {
    const created = await call("create", createRequest({ browser: "edge" }));
    const req = new provproto.InvokeRequest();
    req.setTok("remote-browser:index:getSessions");
    req.setArgs(Struct.fromJavaScript({ states: ["running"] }));
    const res = await call("invoke", req);
    const sessions = res.getReturn().toJavaScript().sessions as Array<{ maskedId: string; status: string; browserName: string }>;
    const ours = sessions.filter((s) => s.browserName === "Microsoft Edge");
    expect(ours.length).toBeGreaterThan(0);
    expect(sessions.every((s) => s.status === "running")).toBe(true);
    expect(sessions.map((s) => s.maskedId)).not.toContain(created.getId());
    expect(ours.some((s) => s.maskedId.slice(-4) === created.getId().slice(-4))).toBe(true);
    req.setArgs(Struct.fromJavaScript({ states: ["runing"], since: "yesterday" }));
    const refused = await call("invoke", req);
    expect(
      refused
        .getFailuresList()
        .map((f: any) => f.getProperty())
        .sort(),
    ).toEqual(["since", "states"]);
    expect(
      refused
        .getFailuresList()
        .map((f: any) => f.getReason())
        .join("\n"),
    ).toMatch(/takes no argument since/);
  });
});

describe("the engine's List call (pulumi do ... list)", () => {
  function list(token: string, query: Record<string, unknown>, limit = 0): Promise<Array<{ id: string; name: string }>> {
    const req = new provproto.ListRequest();
    req.setToken(token);
    req.setQuery(Struct.fromJavaScript(query));
    req.setLimit(limit);
    return new Promise((resolve, reject) => {
      const items: Array<{ id: string; name: string }> = [];
      const stream = client.list(req);
      stream.on("data", (resp: any) => items.push({ id: resp.getResult().getId(), name: resp.getResult().getName() }));
      stream.on("error", reject);
      stream.on("end", () => resolve(items));
    });
  }

  it("streams the account's sessions from one list call, ids masked, filtered by the query and cut at the limit", async () => {
    const created = await call("create", createRequest({ browser: "firefox" }));
    const vmId: string = created.getId();
    const before = emu.control.books().statusCalls;
    const all = await list(TYPE, {});
    expect(emu.control.books().statusCalls).toBe(before + 1);
    const ours = all.find((i) => i.id.slice(-4) === vmId.slice(-4))!;
    expect(ours.id).not.toBe(vmId);
    expect(ours.id).toMatch(/^vm-\*+[0-9a-f]{4}$/);
    expect(ours.name).toMatch(/^Mozilla Firefox, running, started \S+Z \(id masked by the service\)$/);
    expect(all.map((i) => i.id)).not.toContain(vmId);
    const ended = await list(TYPE, { states: ["stopping", "deleted"] });
    expect(ended.every((i) => /, (stopping|deleted), /.test(i.name))).toBe(true);
    expect(ended.map((i) => i.id)).not.toContain(ours.id);
    expect(await list(TYPE, {}, 1)).toHaveLength(1);
  });

  it("fails naming the cause for a bad query and for another type", async () => {
    const bad = await list(TYPE, { states: ["runing"] }).catch((e) => e);
    expect(bad?.details).toMatch(/List: invalid arguments: states\.0/);
    const other = await list("remote-browser:index:ReviewSessions", {}).catch((e) => e);
    expect(other?.details).toMatch(/lists only remote-browser:index:BrowserSession/);
  });
});

describe("the plugin's life", () => {
  // The tests above leave sessions running under one URN (their creates are replacements of the sessions
  // their reads and diffs showed, so each starts one): these start from a free running limit.
  beforeEach(() => {
    for (const s of emu.control.sessions()) if (s.status === "running" || s.status === "starting") emu.control.endSession(s.vmId);
  });
  /** Runs `body` with a plugin of its own, configured, and `hello`, its engine's Handshake; kills it after. */
  async function withOwnPlugin(body: (own: { rpc: any; hello: () => Promise<unknown> }) => Promise<void>) {
    const { child, rpc } = await startPlugin(engineAddress());
    try {
      await body({ rpc, hello: () => callOn(rpc, "handshake", handshakeRequest()) });
    } finally {
      rpc.close();
      child.kill("SIGKILL");
    }
  }

  /** A create of a chrome session at `url` on `rpc` starts one that runs (ended afterwards, for the next test). */
  async function expectCreateRuns(rpc: any, url: string) {
    const created = await callOn(rpc, "create", createRequest({ browser: "chrome", url }));
    expect(emu.control.sessions().find((s) => s.vmId === created.getId())!.status).toBe("running");
    emu.control.endSession(created.getId());
  }

  // A plugin of its own: Cancel holds for the rest of the plugin's life, as it does for the engine's update.
  it("Cancel (the user's Ctrl-C) stops a create that is waiting, ends its session, and starts no other", async () => {
    await withOwnPlugin(async ({ rpc }) => {
      emu.control.preparation({ paused: true });
      const url = "https://cancelled.example.com/";
      const ours = () => emu.control.sessions().filter((s) => s.url === url);
      const creating = callOn(rpc, "create", createRequest({ browser: "chrome", url })).then(
        () => undefined,
        (e) => e,
      );
      await vi.waitFor(() => expect(ours().map((s) => s.status)).toEqual(["starting"]), { timeout: 20_000, interval: 50 });
      await callOn(rpc, "cancel", new Empty());
      const err = await creating;
      const [session] = ours();
      expect(err?.details).toContain(`the update was cancelled while session ${session!.vmId} was starting; the session was ended`);
      expect(session!.status).not.toMatch(/starting|running/);
      // Nothing new starts once the update is cancelled.
      const again = await callOn(rpc, "create", createRequest({ browser: "chrome", url })).then(
        () => undefined,
        (e) => e,
      );
      expect(again?.details).toMatch(/cancelled before the session was started; no session was started/);
      expect(ours()).toHaveLength(1);
    });
  }, 60_000);

  it("a Cancel that ended one engine's use of an attached plugin does not hold for the next engine's Handshake", async () => {
    await withOwnPlugin(async ({ rpc, hello }) => {
      const configure = () => configureOn(rpc);
      await hello();
      await configure();
      // The end of the first engine's run (a preview): Cancel, and the plugin is left running.
      await callOn(rpc, "cancel", new Empty());
      const refused = await callOn(rpc, "create", createRequest({ browser: "chrome", url: "https://next-engine.example.com/" })).catch((e) => e);
      expect(refused?.details).toMatch(/cancelled before the session was started/);
      // The next engine (the update) says hello and configures: its create runs.
      await hello();
      await configure();
      await expectCreateRuns(rpc, "https://next-engine.example.com/");
    });
  }, 60_000);

  it("an attached plugin: one engine's second Handshake (a provider instance more, as refresh-before-update loads) keeps the configuration it gave", async () => {
    await withOwnPlugin(async ({ rpc, hello }) => {
      await hello();
      await configureOn(rpc);
      // The same engine loads one more instance of the provider: it handshakes again, and configures
      // nothing new on this one (it reads with the one it configured).
      await hello();
      await expectCreateRuns(rpc, "https://second-handshake.example.com/");
    });
  }, 60_000);

  it("exits by itself once its engine's address refuses connections (a killed pulumi up), saying why on standard error", async () => {
    const own = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
    // Standard input not a pipe: the address is the sign (engine-conventions/liveness.ts).
    const child = spawn(path.join(root, "bin", "pulumi-resource-remote-browser"), [`127.0.0.1:${(own.address() as net.AddressInfo).port}`], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let why = "";
    child.stderr!.on("data", (d) => (why += d));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    expect(child.exitCode).toBeNull();
    await new Promise<void>((resolve) => own.close(() => resolve()));
    // Bounded only against a hang: the plugin probes about once a second.
    const code = await Promise.race([exited, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 30_000))]);
    if (code === "hung") child.kill("SIGKILL");
    expect(code).toBe(0);
    expect(why).toContain(`remote-browser: plugin process ${child.pid} exits by itself: the engine's address refuses connections`);
  }, 60_000);
});
