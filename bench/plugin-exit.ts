/**
 * `npm run bench -- plugin-exit`: how often a plugin leaves before its engine lets it go, with the CPU saturated.
 *
 * The engine closes its address while it closes its plugins (the Cancel call, then a SIGINT), and it
 * reports a plugin that exits before it acknowledged Cancel as "exited prematurely", failing the command.
 * A plugin that takes a refused address for a dead engine (engine-conventions/liveness.ts before issue 43)
 * can leave in that window. Each cycle here plays one plugin's end as the engine plays it, without the
 * engine: a stand-in address and a plugin process that arms `exitWhenEngineGone` as the plugins do; the
 * address closes, the window passes, then the plugin is let go (its standard input ends, then SIGINT).
 * Busy processes keep every core saturated meanwhile. A cycle counts as premature when the plugin exited
 * before it was let go.
 *
 * Two ways of starting the plugin: with a pipe on standard input, as the engine starts its plugins (the
 * rule now goes by the pipe), and without one (the rule falls back to the address: today's behaviour for
 * such a process, and the behaviour of every plugin before the fix). `--module PATH` runs the cycles on
 * another build of liveness.js (for instance an earlier release's) instead of this one's.
 *
 *   npm run bench -- plugin-exit [--cycles 20] [--windows 100,500,2000] [--module dist/engine-conventions/liveness.js]
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

interface Cell {
  stdin: "pipe" | "none";
  windowMs: number;
  cycles: number;
  premature: number;
  /** Of the premature exits, those that said why on standard error. */
  explained: number;
}

const { values } = parseArgs({
  options: {
    cycles: { type: "string", default: "20" },
    windows: { type: "string", default: "100,500,2000" },
    module: { type: "string", default: path.join(__dirname, "..", "engine-conventions", "liveness.js") },
    parallel: { type: "string", default: "10" },
  },
});
const cycles = Number(values.cycles);
const windows = values.windows!.split(",").map(Number);
const parallel = Number(values.parallel);
const liveness = path.resolve(values.module!);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One busy process per core and one more, for the whole run. */
function saturate(): ChildProcess[] {
  return Array.from({ length: os.cpus().length + 1 }, () => spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
}

async function cycle(script: string, stdin: Cell["stdin"], windowMs: number): Promise<{ premature: boolean; explained: boolean }> {
  const server = net.createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const child = spawn(process.execPath, [script, address], { stdio: [stdin === "pipe" ? "pipe" : "ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  let exitedAlone = false;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  await new Promise<void>((r) => child.stdout!.once("data", () => r()));
  // The plugin serves a while, as in an update; then the engine closes its address and, `windowMs` later,
  // lets the plugin go.
  await sleep(300);
  await new Promise<void>((r) => server.close(() => r()));
  await sleep(windowMs);
  if (child.exitCode !== null || child.signalCode !== null) exitedAlone = true;
  child.stdin?.end();
  child.kill("SIGINT");
  await exited;
  return { premature: exitedAlone, explained: exitedAlone && /exits by itself/.test(stderr) };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-bench-plugin-exit-"));
  const script = path.join(dir, "pulumi-resource-bench");
  // What the plugin does at start (plugin/host.ts): serve, print its port, arm the exit with the engine.
  fs.writeFileSync(script, `require(${JSON.stringify(liveness)}).exitWhenEngineGone();\nsetInterval(() => undefined, 1 << 30);\nconsole.log("ready");\n`);
  const busy = saturate();
  const cells: Cell[] = [];
  try {
    for (const stdin of ["pipe", "none"] as const) {
      for (const windowMs of windows) {
        const cell: Cell = { stdin, windowMs, cycles, premature: 0, explained: 0 };
        for (let done = 0; done < cycles; done += parallel) {
          const batch = await Promise.all(Array.from({ length: Math.min(parallel, cycles - done) }, () => cycle(script, stdin, windowMs)));
          for (const r of batch) {
            if (r.premature) cell.premature++;
            if (r.explained) cell.explained++;
          }
        }
        cells.push(cell);
        process.stderr.write(`plugin-exit: stdin ${stdin}, window ${windowMs} ms: ${cell.premature}/${cell.cycles}\n`);
      }
    }
  } finally {
    for (const p of busy) p.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const load = os.loadavg()[0]!.toFixed(1);
  console.log(`plugin exits before the engine lets it go (${path.relative(process.cwd(), liveness)}; ${os.cpus().length} cores saturated, load ${load})`);
  console.log(["standard input", "window (ms)", "cycles", "premature", "said why"].map((h) => h.padEnd(16)).join(""));
  for (const c of cells) {
    console.log([c.stdin === "pipe" ? "engine's pipe" : "not a pipe", String(c.windowMs), String(c.cycles), String(c.premature), String(c.explained)].map((v) => v.padEnd(16)).join(""));
  }
}

void main();
