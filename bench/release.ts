/**
 * `npm run bench -- release [--release DIR] [--runs N] [--stacks N]`: what the plugin costs its users at
 * every `pulumi preview`, `up`, `refresh` and `destroy`, which start it and wait for its port -- the release
 * binary and the Node.js script the npm package runs (bin/pulumi-resource-remote-browser), in one run on one
 * machine beside two references the benchmark builds itself:
 *
 * - a minimal Go plugin (bench/go-plugin: Pulumi's Go SDK and gRPC serving GetPluginInfo and GetSchema),
 *   what a provider written in Go starts like;
 * - Node.js's floor (bench/floorPlugin.ts: the same gRPC service with `@grpc/grpc-js` and the SDK's protocol
 *   modules, printing its port), under the release's Node.js and under the one running the script.
 *
 * It prints:
 * - the size of each archive in DIR (the output of `npm run release`; default: a linux-amd64 release of the
 *   current sources, built into .work/bench/release) and of its executable;
 * - each plugin's start, from its launch to its first gRPC answer (GetPluginInfo), median of N starts
 *   taken in turns: the time waited, and the CPU time its threads spent until then (from /proc's
 *   schedstat), which a loaded machine inflates far less; and its peak resident memory (the kernel's VmHWM)
 *   once it has answered GetPluginInfo and GetSchema; with ratios to the references;
 * - the memory of N plugins started at once, as a wave of N parallel stacks holds them (resident and
 *   proportional set sizes: the pages the processes share, such as the executable's, count once in the
 *   latter).
 *
 * Only the linux-amd64 binary can run here; the other platforms' rows give sizes only. The machine's load
 * is printed with the numbers: on a shared machine, compare runs taken at a similar load.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { sdkRequire } from "../engine-conventions/pulumiSdk";
import { findPulumiBin } from "../runner";
import { cacheRoot } from "../release/cache";
import { nodeBinary } from "../release/nodeBinary";
import { NODE_VERSION, PLATFORMS } from "../release/platforms";
import { writeRelease } from "../release/release";
import { fixed, median, ms, Printer, table } from "./report";

const root = path.resolve(__dirname, "..", "..");

export interface Plugin {
  name: string;
  command: string;
  args: string[];
  /** The references its ratios are taken to. */
  go?: Plugin;
  floor?: Plugin;
}

export interface Start {
  firstAnswerMs: number;
  /** CPU time of all its threads until the first answer. */
  firstAnswerCpuMs: number;
  peakRssMiB: number;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the SDK's generated gRPC modules, loaded by id, have no types */
const grpc = sdkRequire("@grpc/grpc-js") as any;
const { ResourceProviderClient } = sdkRequire("./proto/provider_grpc_pb") as any;
const { GetSchemaRequest } = sdkRequire("./proto/provider_pb") as any;
const { Empty } = sdkRequire("google-protobuf/google/protobuf/empty_pb") as any;
/* eslint-enable @typescript-eslint/no-explicit-any */

/** A started plugin, once it has answered GetPluginInfo and GetSchema. */
interface Running {
  child: ChildProcess;
  firstAnswerMs: number;
  firstAnswerCpuMs: number;
}

async function launch(plugin: Plugin, engine: string): Promise<Running> {
  const t0 = performance.now();
  const child: ChildProcess = spawn(plugin.command, [...plugin.args, engine], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d) => {
        out += d;
        const line = /^(\d+)\s*\n/.exec(out);
        if (line) resolve(line[1]);
      });
      child.on("exit", (code) => reject(new Error(`${plugin.name} exited (${code}) before printing its port`)));
    });
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const call = (method: string, req: unknown) => new Promise((resolve, reject) => client[method](req, (err: Error | null, resp: unknown) => (err ? reject(err) : resolve(resp))));
    const info = (await call("getPluginInfo", new Empty())) as { getVersion(): string };
    const firstAnswerMs = performance.now() - t0;
    const firstAnswerCpuMs = cpuMsOf(child.pid!);
    if (!info.getVersion()) throw new Error(`${plugin.name} answered GetPluginInfo without a version`);
    await call("getSchema", new GetSchemaRequest());
    client.close();
    return { child, firstAnswerMs, firstAnswerCpuMs };
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
}

/** A process's memory from /proc, KiB: `VmHWM` of status, `Rss` and `Pss` of smaps_rollup. */
function memoryOf(pid: number): { hwm: number; rss: number; pss: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kib = (text: string, key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? NaN);
  return { hwm: kib(status, "VmHWM"), rss: kib(rollup, "Rss"), pss: kib(rollup, "Pss") };
}

/** The CPU time a process's threads have spent, ms: the first field of each thread's schedstat (ns). */
function cpuMsOf(pid: number): number {
  let ns = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

export async function startOnce(plugin: Plugin, engine: string): Promise<Start> {
  const { child, firstAnswerMs, firstAnswerCpuMs } = await launch(plugin, engine);
  try {
    return { firstAnswerMs, firstAnswerCpuMs, peakRssMiB: memoryOf(child.pid!).hwm / 1024 };
  } finally {
    child.kill("SIGKILL");
  }
}

/** `n` plugins started at once, as a wave of `n` stacks starts them: their memory once all have answered. */
export async function wave(plugin: Plugin, n: number, engine: string): Promise<{ allAnsweredMs: number; rssMiB: number; pssMiB: number }> {
  const t0 = performance.now();
  const started = await Promise.allSettled(Array.from({ length: n }, () => launch(plugin, engine)));
  const allAnsweredMs = performance.now() - t0;
  const running = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  try {
    const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    const mem = running.map((r) => memoryOf(r.child.pid!));
    const sum = (key: "rss" | "pss") => mem.reduce((a, m) => a + m[key], 0) / 1024;
    return { allAnsweredMs, rssMiB: sum("rss"), pssMiB: sum("pss") };
  } finally {
    for (const r of running) r.child.kill("SIGKILL");
  }
}

/**
 * The Go reference, built from bench/go-plugin into the cache (once per version of its sources; Go's build
 * cache makes a rebuild quick), or why it cannot be.
 */
export function goReference(): string | Error {
  const dir = path.join(root, "bench", "go-plugin");
  const hash = crypto.createHash("sha256");
  for (const file of ["go.mod", "go.sum", "main.go"]) hash.update(fs.readFileSync(path.join(dir, file)));
  const binary = path.join(cacheRoot(), "bench", `go-plugin-${hash.digest("hex").slice(0, 16)}`, "pulumi-resource-go-reference");
  if (fs.existsSync(binary)) return binary;
  try {
    const tmp = `${binary}.tmp.${process.pid}`;
    fs.mkdirSync(path.dirname(binary), { recursive: true });
    execFileSync("go", ["build", "-trimpath", "-o", tmp, "."], { cwd: dir, env: { ...process.env, GOFLAGS: "-mod=readonly" }, stdio: ["ignore", "ignore", "pipe"] });
    fs.renameSync(tmp, binary);
    return binary;
  } catch (err) {
    const e = err as { stderr?: Buffer; message?: string };
    return new Error(`the Go reference could not be built (go build in bench/go-plugin): ${e.stderr?.toString().trim() || e.message}`);
  }
}

const ratio = (a: number, b: number | undefined) => (b === undefined || !Number.isFinite(b) || b === 0 ? "-" : `${(a / b).toFixed(1)}x`);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { release: { type: "string" }, runs: { type: "string", default: "7" }, stacks: { type: "string", default: "8" } } });
  const runs = Number(values.runs);
  const stacks = Number(values.stacks);
  if (!(runs >= 1) || !(stacks >= 1)) throw new Error("--runs and --stacks take a whole number of at least 1");
  let dir = values.release;
  if (!dir) {
    dir = path.join(root, ".work", "bench", "release");
    await writeRelease({ version: "0.0.0-bench", out: dir, platforms: "linux-amd64", sdks: false }, findPulumiBin(), (line) => console.error(`bench: ${line}`));
  }
  const printer = new Printer();
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");

  printer.heading("Release archives");
  const archives = fs
    .readdirSync(dir)
    .filter((f) => /^pulumi-resource-remote-browser-v.+\.tar\.gz$/.test(f))
    .sort();
  const sizeRows = archives.map((file) => {
    const listing = execFileSync("tar", ["-tvzf", path.join(dir!, file)], { encoding: "utf8" });
    const exe = listing.split("\n").find((l) => / pulumi-resource-remote-browser(\.exe)?$/.test(l));
    const exeBytes = Number(exe?.trim().split(/\s+/)[2] ?? NaN);
    const platform = /-v[^-]+(?:-[^-]+)*?-(\w+-\w+)\.tar\.gz$/.exec(file)?.[1] ?? file;
    return [platform, fixed(fs.statSync(path.join(dir!, file)).size / 2 ** 20, 1), fixed(exeBytes / 2 ** 20, 1), platform === "linux-amd64" ? "below" : "not here (sizes only)"];
  });
  printer.say(table([{ title: "platform", align: "left" }, { title: "archive MiB" }, { title: "executable MiB" }, { title: "start and memory", align: "left" }], sizeRows));

  const engine = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const address = `127.0.0.1:${(engine.address() as net.AddressInfo).port}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-bench-release-"));
  try {
    const releaseNode = nodeBinary(PLATFORMS.find((p) => p.os === "linux" && p.arch === "amd64")!);
    const floorScript = path.join(root, "dist", "bench", "floorPlugin.js");
    const go = goReference();
    const goPlugin: Plugin | undefined = go instanceof Error ? undefined : { name: "reference: Go plugin (bench/go-plugin)", command: go, args: [] };
    const releaseFloor: Plugin = { name: `reference: Node.js floor (Node ${NODE_VERSION}, the release's)`, command: releaseNode, args: [floorScript] };
    const scriptFloor: Plugin = { name: `reference: Node.js floor (Node ${process.versions.node}, the script's)`, command: process.execPath, args: [floorScript] };
    const plugins: Plugin[] = [];
    const linux = archives.find((f) => f.endsWith("-linux-amd64.tar.gz"));
    if (linux) {
      execFileSync("tar", ["-xzf", path.join(dir, linux), "-C", work, "pulumi-resource-remote-browser"]);
      plugins.push({ name: "release binary (linux-amd64)", command: path.join(work, "pulumi-resource-remote-browser"), args: [], go: goPlugin, floor: releaseFloor });
    }
    plugins.push({
      name: `Node.js script (npm package, Node ${process.versions.node})`,
      command: process.execPath,
      args: [path.join(root, "bin", "pulumi-resource-remote-browser")],
      go: goPlugin,
      floor: scriptFloor,
    });
    const all = [...plugins, ...(goPlugin ? [goPlugin] : []), releaseFloor, scriptFloor];

    printer.heading(`Plugin start (${runs} starts each, in turns; ${os.cpus().length} cores, load ${load()} at the start)`);
    const starts = new Map<Plugin, Start[]>(all.map((p) => [p, []]));
    for (let i = 0; i < runs; i++) for (const p of all) starts.get(p)!.push(await startOnce(p, address));
    const firstAnswer = (p: Plugin | undefined) => (p ? median(starts.get(p)!.map((s) => s.firstAnswerMs)) : undefined);
    const cpu = (p: Plugin | undefined) => (p ? median(starts.get(p)!.map((s) => s.firstAnswerCpuMs)) : undefined);
    const peak = (p: Plugin | undefined) => (p ? median(starts.get(p)!.map((s) => s.peakRssMiB)) : undefined);
    const rows = all.map((p) => {
      const mine = starts.get(p)!;
      return [
        p.name,
        ms(firstAnswer(p)!),
        ms(Math.max(...mine.map((s) => s.firstAnswerMs))),
        ms(cpu(p)!),
        fixed(peak(p)!, 0),
        ratio(firstAnswer(p)!, firstAnswer(p.go)),
        ratio(firstAnswer(p)!, firstAnswer(p.floor)),
        ratio(cpu(p)!, cpu(p.floor)),
        ratio(peak(p)!, peak(p.go)),
        ratio(peak(p)!, peak(p.floor)),
      ];
    });
    printer.say(
      table(
        [
          { title: "plugin", align: "left" },
          { title: "first answer ms (median)" },
          { title: "max ms" },
          { title: "CPU ms (median)" },
          { title: "peak RSS MiB after GetSchema (median)" },
          { title: "time / Go" },
          { title: "time / Node floor" },
          { title: "CPU / Node floor" },
          { title: "RSS / Go" },
          { title: "RSS / Node floor" },
        ],
        rows,
      ),
    );
    if (go instanceof Error) printer.say(`(no Go reference: ${go.message})`);
    printer.say(`(load ${load()} at the end)`);

    printer.heading(`${stacks} plugins at once (a wave of ${stacks} parallel stacks; load ${load()})`);
    const waveRows: string[][] = [];
    for (const p of all) {
      const w = await wave(p, stacks, address);
      waveRows.push([p.name, ms(w.allAnsweredMs), fixed(w.rssMiB, 0), fixed(w.pssMiB, 0), fixed(w.pssMiB / stacks, 0)]);
    }
    printer.say(table([{ title: "plugin", align: "left" }, { title: "all answered ms" }, { title: "RSS MiB, all" }, { title: "PSS MiB, all" }, { title: "PSS MiB each" }], waveRows));
  } finally {
    engine.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
