/**
 * The benchmarks: `npm run bench` (scripts/bench.sh builds, provides the engine, then runs this).
 *
 *   npm run bench                          all four, full samples (about 11 minutes on 2 cores)
 *   npm run bench -- --quick               fewer samples and runs (about 2 minutes)
 *   npm run bench -- --only overhead       one of overhead, scale, memory, ratelimit (repeatable, or comma-separated)
 *   npm run bench -- --candidate 450,0.15,5000,225   also measure this poll schedule
 *                                          (minIntervalMs,growth,maxIntervalMs[,firstDelayMs])
 *
 * Other options: --samples N (sessions per strategy and preparation time), --reps N (engine runs per
 * stack), --spread F (preparation times spread evenly over nominal ± F; default 0.1, 0 = all exactly
 * nominal), --parallel N (PULUMI_PARALLEL of the scale runs, default 64), --no-default-parallel (skip
 * the runs at the engine's default parallelism), --counts N,... (the scale runs' stack sizes; default
 * 1,10,50), --work-dir DIR (instead of .work/bench), --chart PATH, --report FILE (print the tables of a
 * saved results.json again, measuring nothing).
 *
 * Prints aligned tables; writes `.work/bench/results.json`, `.work/bench/report.txt` and the chart
 * (`bench/overhead.png` on a full run with the overhead benchmark, `.work/bench/overhead.png` otherwise).
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { findPulumiBin } from "../runner";
import type { PollSchedule } from "../core/context";
import { type OverheadResult, modelledPoints, printOverhead, runOverhead } from "./overhead";
import { Printer } from "./report";
import { type ScaleResult, printScaleResult, runScale } from "./scale";
import { DEFAULT_CASES, QUICK_CASES, type RateLimitResult, printRateLimit, runRateLimit } from "./ratelimit";

const root = path.resolve(__dirname, "..", "..");
const KINDS = ["overhead", "scale", "memory", "ratelimit"] as const;
type Kind = (typeof KINDS)[number];

function parseCandidate(text: string | undefined): PollSchedule | undefined {
  if (!text) return undefined;
  const parts = text.split(",").map(Number);
  if ((parts.length !== 3 && parts.length !== 4) || parts.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(`--candidate takes minIntervalMs,growth,maxIntervalMs[,firstDelayMs], got "${text}"`);
  }
  const [minIntervalMs, growth, maxIntervalMs, firstDelayMs] = parts;
  return { minIntervalMs, growth, maxIntervalMs, ...(firstDelayMs === undefined ? {} : { firstDelayMs }) };
}

function positiveInt(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} takes a whole number, got "${text}"`);
  return n;
}

export interface Machine {
  cores: number;
  memory: string;
  cpu: string;
  os: string;
  node: string;
  pulumiCli: string;
  pulumiSdk: string;
  loadAverage: string;
}

function machine(): Machine {
  let cpu = os.cpus()[0]?.model ?? "unknown";
  try {
    const info = fs.readFileSync("/proc/cpuinfo", "utf8");
    const field = (key: string) => new RegExp(`^${key}\\s*:\\s*(.+)$`, "m").exec(info)?.[1].trim();
    const model = field("model name");
    if (model) {
      const family = field("cpu family");
      const mhz = field("cpu MHz");
      const virtual = /^flags\s*:.*\bhypervisor\b/m.test(info) ? ", virtual machine" : "";
      cpu = `${model} (family ${family ?? "?"}, model ${field("model") ?? "?"}, ${mhz ? Math.round(Number(mhz)) : "?"} MHz${virtual})`;
    }
  } catch {
    // not Linux
  }
  let pulumiCli = "unknown";
  try {
    pulumiCli = execFileSync(findPulumiBin(), ["version"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } }).trim();
  } catch {
    // reported as unknown
  }
  return {
    cores: os.availableParallelism(),
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    cpu,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    pulumiCli,
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the installed SDK's manifest, read for its version
    pulumiSdk: (require("@pulumi/pulumi/package.json") as { version: string }).version,
    loadAverage: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" "),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean" },
      only: { type: "string", multiple: true },
      samples: { type: "string" },
      reps: { type: "string" },
      spread: { type: "string" },
      parallel: { type: "string" },
      candidate: { type: "string" },
      "no-default-parallel": { type: "boolean" },
      counts: { type: "string" },
      "work-dir": { type: "string" },
      chart: { type: "string" },
      report: { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    process.stdout.write("usage: npm run bench -- [--quick] [--only overhead|scale|memory|ratelimit]... [--candidate min,growth,max[,first]]\n");
    process.stdout.write("       [--samples N] [--reps N] [--spread F] [--parallel N] [--no-default-parallel] [--chart PATH]\n");
    process.stdout.write("       [--counts N,...] [--work-dir DIR]\n");
    process.stdout.write("       npm run bench -- --report .work/bench/results.json   (print a saved run's tables again)\n");
    return;
  }
  if (values.report) {
    // Print the tables of a saved run again, without measuring.
    const saved = JSON.parse(fs.readFileSync(values.report, "utf8")) as Saved;
    const out = new Printer();
    printHeader(saved, out);
    if (saved.overhead) printOverhead(saved.overhead, out);
    if (saved.scale) printScaleResult(saved.scale, out);
    if (saved.ratelimit) printRateLimit(saved.ratelimit, out);
    printFooter(saved, out);
    return;
  }
  const only = (values.only ?? [])
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const k of only) if (!KINDS.includes(k as Kind)) throw new Error(`--only takes ${KINDS.join(", ")}, got "${k}"`);
  const selected = new Set<Kind>(only.length > 0 ? (only as Kind[]) : KINDS);
  const quick = !!values.quick;
  const spread = values.spread === undefined ? 0.1 : Number(values.spread);
  if (!(spread >= 0 && spread < 1)) throw new Error(`--spread takes a fraction in [0, 1), got "${values.spread}"`);

  // The scale and memory benchmarks need the engine: fail now rather than after the overhead benchmark.
  if (selected.has("scale") || selected.has("memory") || selected.has("ratelimit")) findPulumiBin();
  const workRoot = path.resolve(values["work-dir"] ?? path.join(root, ".work", "bench"));
  const counts = values.counts?.split(",").map((c) => positiveInt(c.trim(), 0, "counts"));
  if (counts?.some((c) => c < 1)) throw new Error(`--counts takes stack sizes of 1 or more, got "${values.counts}"`);
  fs.mkdirSync(workRoot, { recursive: true });
  const out = new Printer();
  const started = Date.now();
  const saved: Saved = { date: new Date(started).toISOString(), quick, machine: machine(), seconds: 0, loadAtEnd: "" };
  printHeader(saved, out);

  if (selected.has("overhead")) {
    saved.overhead = await runOverhead({
      prepTimesMs: [500, 2000, 5000, 20000],
      samples: positiveInt(values.samples, quick ? 9 : 25, "samples") || 1,
      spread,
      candidate: parseCandidate(values.candidate),
      staggerMs: 40,
    });
    printOverhead(saved.overhead, out);
  }
  if (selected.has("scale") || selected.has("memory")) {
    const scaleToo = selected.has("scale");
    saved.scale = await runScale({
      counts: counts ?? (scaleToo ? [1, 10, 50] : [1, 50]),
      reps: positiveInt(values.reps, quick ? 1 : 3, "reps") || 1,
      prepMs: 2000,
      parallel: positiveInt(values.parallel, 64, "parallel"),
      defaultParallelRow: scaleToo && !quick && !values["no-default-parallel"],
      workRoot,
      showScale: scaleToo,
      showMemory: selected.has("memory"),
    });
    printScaleResult(saved.scale, out);
  }
  if (selected.has("ratelimit")) {
    saved.ratelimit = await runRateLimit(quick ? QUICK_CASES : DEFAULT_CASES, 1500, workRoot);
    printRateLimit(saved.ratelimit, out);
  }

  saved.seconds = (Date.now() - started) / 1000;
  saved.loadAtEnd = loadAverage();
  printFooter(saved, out);
  const resultsFile = path.join(workRoot, "results.json");
  fs.writeFileSync(resultsFile, JSON.stringify(saved, null, 2));
  fs.writeFileSync(path.join(workRoot, "report.txt"), out.text());
  if (saved.overhead) {
    const data = path.join(workRoot, "overhead.json");
    fs.writeFileSync(data, JSON.stringify({ machine: saved.machine, quick, ...saved.overhead, model: modelledPoints(saved.overhead) }, null, 2));
    const chart = path.resolve(values.chart ?? (quick ? path.join(workRoot, "overhead.png") : path.join(root, "bench", "overhead.png")));
    const drawn = spawnSync("python3", [path.join(root, "bench", "chart.py"), data, chart], { stdio: ["ignore", "inherit", "inherit"] });
    if (drawn.status === 0) process.stderr.write(`bench: chart written to ${path.relative(process.cwd(), chart)}\n`);
    else process.stderr.write("bench: the chart was not drawn (python3 with matplotlib is needed: pip install matplotlib)\n");
  }
  const rel = (f: string) => path.relative(process.cwd(), f);
  process.stderr.write(`bench: tables in ${rel(path.join(workRoot, "report.txt"))}, data in ${rel(resultsFile)} (--report ${rel(resultsFile)} prints them again)\n`);
}

/** What a run saves in results.json; `--report` prints it again. */
interface Saved {
  date: string;
  quick: boolean;
  machine: Machine;
  overhead?: OverheadResult;
  scale?: ScaleResult;
  ratelimit?: RateLimitResult;
  seconds: number;
  loadAtEnd: string;
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

function printHeader(s: Saved, out: Printer): void {
  const m = s.machine;
  out.say(`# pulumi-remote-browser benchmarks${s.quick ? " (--quick)" : ""}`);
  out.say();
  out.say(`date:        ${s.date}`);
  out.say(`machine:     ${m.cores} cores, ${m.memory} memory, ${m.cpu}`);
  out.say(`system:      ${m.os}, load average at start ${m.loadAverage}`);
  out.say(`software:    Node.js ${m.node}, Pulumi CLI ${m.pulumiCli}, @pulumi/pulumi ${m.pulumiSdk}`);
  const load = Number(m.loadAverage.split(" ")[0]);
  if (load > m.cores) {
    out.say(`WARNING:     the machine was busy (load ${load.toFixed(1)} on ${m.cores} cores): timings are slower and noisier`);
  }
}

function printFooter(s: Saved, out: Printer): void {
  out.say();
  out.say(`(whole run: ${s.seconds.toFixed(0)} s; load average at the end ${s.loadAtEnd || "not recorded"})`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
