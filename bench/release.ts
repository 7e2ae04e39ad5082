/**
 * `npm run bench -- release [--release DIR] [--runs N]`: what the release costs its users, per platform and
 * against the Node.js script the npm package runs as its plugin (bin/pulumi-resource-remote-browser):
 *
 * - the size of each archive in DIR (the output of `npm run release`; default: a linux-amd64 release of the
 *   current sources, built into .work/bench/release) and of its executable;
 * - the plugin's start, from its launch to its first gRPC answer (GetPluginInfo), median of N starts;
 * - its peak resident memory (the kernel's VmHWM) once it has answered GetPluginInfo and GetSchema.
 *
 * Only the linux-amd64 binary can run here; the other platforms' rows give sizes only.
 */
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { sdkRequire } from "../core/pulumiSdk";
import { findPulumiBin } from "../runner";
import { writeRelease } from "../release/release";
import { fixed, median, ms, Printer, table } from "./report";

const root = path.resolve(__dirname, "..", "..");

interface Start {
  firstAnswerMs: number;
  peakRssMiB: number;
}

/** One start of `command`: the time to its first gRPC answer, and its peak RSS after two calls. */
async function startOnce(command: string, args: string[], engine: string): Promise<Start> {
  const grpc = sdkRequire("@grpc/grpc-js") as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const { ResourceProviderClient } = sdkRequire("./proto/provider_grpc_pb") as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const { GetSchemaRequest } = sdkRequire("./proto/provider_pb") as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const { Empty } = sdkRequire("google-protobuf/google/protobuf/empty_pb") as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const t0 = performance.now();
  const child: ChildProcess = spawn(command, [...args, engine], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d) => {
        out += d;
        const line = /^(\d+)\s*\n/.exec(out);
        if (line) resolve(line[1]);
      });
      child.on("exit", (code) => reject(new Error(`${command} exited (${code}) before printing its port`)));
    });
    const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const call = (method: string, req: unknown) =>
      new Promise((resolve, reject) => client[method](req, (err: Error | null, resp: unknown) => (err ? reject(err) : resolve(resp))));
    const info = (await call("getPluginInfo", new Empty())) as { getVersion(): string };
    const firstAnswerMs = performance.now() - t0;
    if (!info.getVersion()) throw new Error(`${command} answered GetPluginInfo without a version`);
    await call("getSchema", new GetSchemaRequest());
    const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
    const hwmKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    client.close();
    return { firstAnswerMs, peakRssMiB: hwmKiB / 1024 };
  } finally {
    child.kill("SIGKILL");
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { release: { type: "string" }, runs: { type: "string", default: "5" } } });
  const runs = Number(values.runs);
  let dir = values.release;
  if (!dir) {
    dir = path.join(root, ".work", "bench", "release");
    await writeRelease({ version: "0.0.0-bench", out: dir, platforms: "linux-amd64", sdks: false }, findPulumiBin(), (line) => console.error(`bench: ${line}`));
  }
  const printer = new Printer();

  printer.heading("Release archives");
  const archives = fs.readdirSync(dir).filter((f) => /^pulumi-resource-remote-browser-v.+\.tar\.gz$/.test(f)).sort();
  const sizeRows = archives.map((file) => {
    const listing = execFileSync("tar", ["-tvzf", path.join(dir!, file)], { encoding: "utf8" });
    const exe = listing.split("\n").find((l) => / pulumi-resource-remote-browser(\.exe)?$/.test(l));
    const exeBytes = Number(exe?.trim().split(/\s+/)[2] ?? NaN);
    const platform = /-v[^-]+(?:-[^-]+)*?-(\w+-\w+)\.tar\.gz$/.exec(file)?.[1] ?? file;
    return [platform, fixed(fs.statSync(path.join(dir!, file)).size / 2 ** 20, 1), fixed(exeBytes / 2 ** 20, 1)];
  });
  printer.say(table([{ title: "platform", align: "left" }, { title: "archive MiB" }, { title: "executable MiB" }], sizeRows));

  printer.heading(`Plugin start (${runs} starts each; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})`);
  const engine = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const address = `127.0.0.1:${(engine.address() as net.AddressInfo).port}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-bench-release-"));
  try {
    const linux = archives.find((f) => f.endsWith("-linux-amd64.tar.gz"));
    const candidates: Array<[string, string, string[]]> = [["Node.js script (npm package)", process.execPath, [path.join(root, "bin", "pulumi-resource-remote-browser")]]];
    if (linux) {
      execFileSync("tar", ["-xzf", path.join(dir, linux), "-C", work, "pulumi-resource-remote-browser"]);
      candidates.unshift(["release binary (linux-amd64)", path.join(work, "pulumi-resource-remote-browser"), []]);
    }
    const rows: string[][] = [];
    for (const [name, command, args] of candidates) {
      const starts: Start[] = [];
      for (let i = 0; i < runs; i++) starts.push(await startOnce(command, args, address));
      rows.push([name, ms(median(starts.map((s) => s.firstAnswerMs))), ms(Math.max(...starts.map((s) => s.firstAnswerMs))), fixed(Math.max(...starts.map((s) => s.peakRssMiB)), 0)]);
    }
    printer.say(
      table([{ title: "plugin", align: "left" }, { title: "first answer ms (median)" }, { title: "max ms" }, { title: "peak RSS MiB" }], rows),
    );
  } finally {
    engine.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
