import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseEngineAddress, isDynamicProviderHost, isPluginProcess, engineGoneReason, engineWatcher } from "../../engine-conventions/liveness";
import { withPreload } from "../../runner/environment";
import { isRunning, processInfo } from "../helpers/processes";

/** Polls `probe` until it holds; the bound is there only to end a run on a real hang. */
async function until(probe: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function listening(onConnection: () => void = () => undefined): Promise<{ server: net.Server; address: string }> {
  const server = net.createServer((s) => {
    onConnection();
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, address: `127.0.0.1:${(server.address() as net.AddressInfo).port}` };
}

const close = (server: net.Server) => new Promise<void>((r) => server.close(() => r()));

describe("the engine watcher", () => {
  it("holds while the engine's address accepts connections and turns once it refuses them", async () => {
    let connections = 0;
    const { server, address } = await listening(() => connections++);
    const alive = engineWatcher({ address, intervalMs: 20 });
    await until(() => connections >= 3, "three probes");
    expect(alive()).toBe(true);
    await close(server);
    await until(() => !alive(), "the watcher to see the engine gone");
    expect(alive()).toBe(false);
  });

  it("sees the engine gone when armed after it went (the parent it records is then not the engine)", async () => {
    const { server, address } = await listening();
    await close(server);
    const alive = engineWatcher({ address, intervalMs: 20 });
    await until(() => !alive(), "the watcher to see the engine gone");
  });

  it("takes only an engine's loopback address for one", () => {
    expect(parseEngineAddress("127.0.0.1:43781")).toEqual({ host: "127.0.0.1", port: 43781 });
    expect(parseEngineAddress("[::1]:80")).toEqual({ host: "::1", port: 80 });
    for (const arg of [undefined, "", "43781", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "example.com:80", "--flag", "/tmp/x:1"]) {
      expect(parseEngineAddress(arg), String(arg)).toBeUndefined();
    }
  });
});

describe("the rule by which a plugin takes its engine to be gone", () => {
  it("goes by the engine's pipe alone where there is one: its end is the engine's, a refused address and a changed tree are not", () => {
    const open = { enginePipe: "open" as const };
    expect(engineGoneReason({ ...open, addressRefused: false, treeIntact: true })).toBeUndefined();
    // The window in which the engine has closed its address but still holds the plugin (issue 43).
    expect(engineGoneReason({ ...open, addressRefused: true, treeIntact: true })).toBeUndefined();
    expect(engineGoneReason({ ...open, addressRefused: true, treeIntact: false })).toBeUndefined();
    expect(engineGoneReason({ enginePipe: "ended", addressRefused: false, treeIntact: true })).toMatch(/standard input, the engine's pipe, ended/);
  });

  it("without a pipe, goes by the address and the process tree, either one", () => {
    const none = { enginePipe: "none" as const };
    expect(engineGoneReason({ ...none, addressRefused: false, treeIntact: true })).toBeUndefined();
    expect(engineGoneReason({ ...none, treeIntact: true })).toBeUndefined();
    expect(engineGoneReason({ ...none, addressRefused: true, treeIntact: true })).toMatch(/address refuses connections/);
    expect(engineGoneReason({ ...none, addressRefused: false, treeIntact: false })).toMatch(/parent process changed/);
  });
});

describe("the preload that ends a plugin with its engine", () => {
  it("arms in the dynamic provider and resource plugins given an engine address, and nowhere else", () => {
    const node = "/usr/bin/node";
    expect(isPluginProcess([node, "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js", "127.0.0.1:4000"])).toBe(true);
    expect(isPluginProcess([node, "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider", "127.0.0.1:4000"])).toBe(true);
    expect(isPluginProcess([node, "/p/bin/pulumi-resource-remote-browser", "127.0.0.1:4000"])).toBe(true);
    expect(isPluginProcess([node, "/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js"])).toBe(false);
    expect(isPluginProcess([node, "/p/program.js", "127.0.0.1:4000"])).toBe(false);
    expect(isPluginProcess([node])).toBe(false);
  });

  it("knows the dynamic provider host by one pattern, as its launcher runs it (index.js) and as a folder", () => {
    // The provider module (dynamic/index.ts) and the preload go by the same test: the module once armed only
    // on the first form.
    expect(isDynamicProviderHost("/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js")).toBe(true);
    expect(isDynamicProviderHost("C:\\p\\node_modules\\@pulumi\\pulumi\\cmd\\dynamic-provider\\index.js")).toBe(true);
    expect(isDynamicProviderHost("/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider")).toBe(true);
    expect(isDynamicProviderHost("/p/cmd/dynamic-provider-x/index.js")).toBe(false);
    expect(isDynamicProviderHost("/p/cmd/run-plugin/index.js")).toBe(false);
    expect(isDynamicProviderHost(undefined)).toBe(false);
  });

  it("is added to NODE_OPTIONS once, after the user's own options, quoted", () => {
    expect(withPreload(undefined, "/a b/x.js")).toBe('--require "/a b/x.js"');
    expect(withPreload(" --max-old-space-size=512 ", "/x.js")).toBe('--max-old-space-size=512 --require "/x.js"');
    expect(withPreload('--require "/x.js"', "/x.js")).toBe('--require "/x.js"');
  });
});

/**
 * Plugin processes started the way the engine starts them (own process group, the engine's address as the
 * first argument) by a stand-in engine that the test kills with SIGKILL, as a killed `pulumi up` is.
 */
describe("a plugin process whose engine was killed", () => {
  let dir: string;
  const started: number[] = [];

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-liveness-"));
    // The watcher's sources as plain CommonJS, so that a separate process runs exactly this checkout's code.
    for (const name of ["liveness", "pulumiSdk", "exit-with-engine"]) {
      const source = fs.readFileSync(path.join(__dirname, "..", "..", "engine-conventions", `${name}.ts`), "utf8");
      const out = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
      fs.writeFileSync(path.join(dir, `${name}.js`), out.outputText);
    }
    // What @pulumi/pulumi's dynamic provider does until its first call: serve, and load nothing of ours.
    // On SIGUSR2 it arms the watcher the way the provider module does when it loads (silently: its output
    // goes to the dead engine).
    const plugin = path.join(dir, "cmd", "dynamic-provider", "index.js");
    fs.mkdirSync(path.dirname(plugin), { recursive: true });
    fs.writeFileSync(
      plugin,
      `setInterval(() => undefined, 1 << 30);
       process.on("SIGUSR2", () => { require(${JSON.stringify(path.join(dir, "liveness.js"))}).exitWhenEngineGone(undefined, 20); });
       console.log("ready");`,
    );
    fs.writeFileSync(
      path.join(dir, "engine.js"),
      `const net = require("node:net");
       const { spawn } = require("node:child_process");
       const server = net.createServer((s) => s.destroy()).listen(0, "127.0.0.1", () => {
         const [preload, plugin] = process.argv.slice(2);
         const args = [...(preload ? ["--require", preload] : []), plugin, "127.0.0.1:" + server.address().port];
         const child = spawn(process.execPath, args, { detached: true, stdio: ["pipe", "pipe", "inherit"] });
         child.stdout.once("data", () => console.log(JSON.stringify({ engine: process.pid, plugin: child.pid })));
       });`,
    );
  });
  afterEach(() => {
    for (const pid of started.splice(0)) if (isRunning(pid)) process.kill(pid, "SIGKILL");
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Starts the stand-in engine and its plugin; resolves once the plugin runs. */
  async function engineWithPlugin(preload?: string): Promise<{ engine: ChildProcess; plugin: number }> {
    const engine = spawn(process.execPath, [path.join(dir, "engine.js"), preload ?? "", path.join(dir, "cmd", "dynamic-provider", "index.js")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      engine.stdout!.once("data", (d) => resolve(String(d)));
      engine.once("exit", (code) => reject(new Error(`the stand-in engine exited (${code})`)));
    });
    const { plugin } = JSON.parse(line) as { plugin: number };
    started.push(engine.pid!, plugin);
    return { engine, plugin };
  }

  async function kill(engine: ChildProcess, plugin: number): Promise<void> {
    const exited = new Promise((r) => engine.once("exit", r));
    engine.kill("SIGKILL");
    await exited;
    await until(() => processInfo(plugin)?.ppid !== engine.pid, "the plugin to be re-parented");
  }

  it("stays while its engine holds its pipe, though the engine's address refuses connections, and exits saying why once the pipe ends", async () => {
    // The engine closes its servers while it closes its plugins: a plugin that left when its address refused
    // was "exited prematurely" to the engine, and the command failed. Here the test is the engine.
    const { server, address } = await listening();
    const plugin = path.join(dir, "pulumi-resource-held");
    fs.writeFileSync(
      plugin,
      `const { exitWhenEngineGone } = require(${JSON.stringify(path.join(dir, "liveness.js"))});
       const { parseEngineAddress, probeAddress } = require(${JSON.stringify(path.join(dir, "liveness.js"))});
       exitWhenEngineGone(undefined, 20);
       setInterval(() => undefined, 1 << 30);
       // Told once the address refused and five more of the exit's checks have passed.
       probeAddress(parseEngineAddress(process.argv[2]), 20).gone.then(() => setTimeout(() => console.log("refused, still here"), 100));
       console.log("ready");`,
    );
    const child = spawn(process.execPath, [plugin, address], { stdio: ["pipe", "pipe", "pipe"] });
    started.push(child.pid!);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += String(d)));
    child.stderr!.on("data", (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((r) => child.once("exit", r));
    await until(() => stdout.includes("ready"), "the plugin to start");
    await close(server);
    await until(() => stdout.includes("refused, still here") || child.exitCode !== null, "the address to refuse");
    expect(child.exitCode, stderr).toBeNull();
    child.stdin!.end();
    expect(await exited).toBe(0);
    expect(stderr).toMatch(new RegExp(`remote-browser: plugin process ${child.pid} exits by itself: its standard input, the engine's pipe, ended`));
  });

  it("exits when the provider module loads after the engine died", async () => {
    const { engine, plugin } = await engineWithPlugin();
    await kill(engine, plugin);
    process.kill(plugin, "SIGUSR2");
    await until(() => !isRunning(plugin), "the orphaned plugin to exit");
  });

  it("exits before anything of the package was loaded, with the runner's preload", async () => {
    const { engine, plugin } = await engineWithPlugin(path.join(dir, "exit-with-engine.js"));
    expect(isRunning(plugin)).toBe(true);
    await kill(engine, plugin);
    await until(() => !isRunning(plugin), "the orphaned plugin to exit");
  });
});
