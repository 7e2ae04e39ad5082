/**
 * Benchmarks 2 and 3: `pulumi up` and `pulumi destroy` through the real engine (the project's runner,
 * in this process, one action at a time) of N BrowserSessions against the engine's own baseline, N
 * trivial dynamic resources; and the resident memory of the dynamic provider process meanwhile.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "../emulator";
import type { Emulator } from "../emulator";
import { runProgram } from "../runner";
import { type MemoryPeak, ProviderMemorySampler } from "./procmem";
import { type StackKind, program } from "./programs";
import { type Printer, fixed, median, sec, table, yesNo } from "./report";

export interface ScaleOptions {
  counts: readonly number[];
  reps: number;
  prepMs: number;
  /** PULUMI_PARALLEL for the main runs; 0 = the engine's default. */
  parallel: number;
  /** Also run 50 of each at the engine's default parallelism. */
  defaultParallelRow: boolean;
  workRoot: string;
  showScale: boolean;
  showMemory: boolean;
}

export interface StackRun {
  kind: StackKind;
  count: number;
  rep: number;
  parallel: number;
  upMs: number;
  destroyMs: number;
  upMemory: MemoryPeak;
  destroyMemory: MemoryPeak;
  createCalls: number;
  statusCalls: number;
  removeCalls: number;
  running: number;
  neverEnded: number;
}

export interface ScaleResult {
  options: ScaleOptions;
  engineDefaultParallel: number;
  runs: StackRun[];
  defaultParallelRuns: StackRun[];
}

const PROJECT = "bench-scale";

export async function runScale(o: ScaleOptions): Promise<ScaleResult> {
  const workDir = path.join(o.workRoot, "scale");
  fs.rmSync(workDir, { recursive: true, force: true });
  const emulator = await startEmulator({ prepMs: o.prepMs, prepJitterMs: 0, runningLimit: 500, seed: 7 });
  const engineDefaultParallel = 4 * os.availableParallelism();
  const runs: StackRun[] = [];
  const defaultParallelRuns: StackRun[] = [];
  try {
    // Untimed warm-up: the first engine run of a process pays for cold caches on both sides.
    for (const kind of ["baseline", "sessions"] as const) await runStack(emulator, workDir, kind, 1, -1, o.parallel);
    for (let rep = 0; rep < o.reps; rep++) {
      for (const count of o.counts) {
        // Alternate the order, so a drift of the machine does not land on one kind only.
        const kinds: StackKind[] = (rep + count) % 2 === 0 ? ["baseline", "sessions"] : ["sessions", "baseline"];
        for (const kind of kinds) {
          const run = await runStack(emulator, workDir, kind, count, rep, o.parallel);
          runs.push(run);
          process.stderr.write(
            `bench: ${kind} x${count} (rep ${rep + 1}/${o.reps}): up ${sec(run.upMs)} s, destroy ${sec(run.destroyMs)} s, ` + `provider peak RSS ${fixed(run.upMemory.hwmPeakMiB, 1)} MiB\n`,
          );
        }
      }
    }
    if (o.defaultParallelRow) {
      for (const kind of ["baseline", "sessions"] as const) {
        const run = await runStack(emulator, workDir, kind, 50, 0, 0);
        defaultParallelRuns.push(run);
        process.stderr.write(`bench: ${kind} x50 at the engine's default parallelism: up ${sec(run.upMs)} s, destroy ${sec(run.destroyMs)} s\n`);
      }
    }
  } finally {
    await emulator.close();
  }
  return { options: o, engineDefaultParallel, runs, defaultParallelRuns };
}

/** Prints the scale and memory tables of a run (a fresh one, or one read back from results.json). */
export function printScaleResult(r: ScaleResult, out: Printer): void {
  if (r.options.showScale) printScale(r, out);
  if (r.options.showMemory) printMemory(r, out);
}

async function runStack(emulator: Emulator, workDir: string, kind: StackKind, count: number, rep: number, parallel: number): Promise<StackRun> {
  emulator.control.reset();
  const stackName = `${kind}-${count}-p${parallel}-r${rep < 0 ? "warm" : rep}`;
  const common = {
    program: program(kind, count),
    projectName: PROJECT,
    stackName,
    workDir,
    config: {
      "remote-browser:baseUrl": { value: emulator.apiBaseUrl },
      "remote-browser:apiKey": { value: emulator.apiKey, secret: true },
    },
    // PULUMI_PARALLEL is the default of `--parallel`; 0 leaves the engine's own default (4 x GOMAXPROCS).
    env: { PULUMI_PARALLEL: String(parallel) },
  };

  const up = await timed(() => runProgram({ ...common, action: "up" }));
  const afterUp = emulator.control.books();
  if (kind === "sessions" && afterUp.running !== count) {
    throw new Error(`${stackName}: ${afterUp.running} of ${count} sessions running after up`);
  }
  const destroy = await timed(() => runProgram({ ...common, action: "destroy" }));
  const afterDestroy = emulator.control.books();
  await runProgram({ ...common, action: "rm" });
  if (afterDestroy.neverEnded !== 0) throw new Error(`${stackName}: ${afterDestroy.neverEnded} sessions left running after destroy`);
  return {
    kind,
    count,
    rep,
    parallel,
    upMs: up.ms,
    destroyMs: destroy.ms,
    upMemory: up.memory,
    destroyMemory: destroy.memory,
    createCalls: afterUp.createCalls,
    statusCalls: afterUp.statusCalls,
    removeCalls: afterDestroy.removeCalls,
    running: afterUp.running,
    neverEnded: afterDestroy.neverEnded,
  };
}

async function timed(fn: () => Promise<unknown>): Promise<{ ms: number; memory: MemoryPeak }> {
  const sampler = new ProviderMemorySampler();
  sampler.start();
  const t0 = performance.now();
  try {
    await fn();
  } catch (err) {
    sampler.stop();
    throw err;
  }
  const ms = performance.now() - t0;
  return { ms, memory: sampler.stop() };
}

function pick(runs: readonly StackRun[], kind: StackKind, count: number): StackRun[] {
  return runs.filter((r) => r.kind === kind && r.count === count);
}

export interface ScaleSummary {
  count: number;
  baseUpMs: number;
  sessUpMs: number;
  baseDestroyMs: number;
  sessDestroyMs: number;
  statusCallsPerSession: number;
}

export function summarise(runs: readonly StackRun[], counts: readonly number[]): ScaleSummary[] {
  return counts.map((count) => {
    const base = pick(runs, "baseline", count);
    const sess = pick(runs, "sessions", count);
    return {
      count,
      baseUpMs: median(base.map((r) => r.upMs)),
      sessUpMs: median(sess.map((r) => r.upMs)),
      baseDestroyMs: median(base.map((r) => r.destroyMs)),
      sessDestroyMs: median(sess.map((r) => r.destroyMs)),
      statusCallsPerSession: median(sess.map((r) => r.statusCalls / r.count)),
    };
  });
}

function printScale(r: ScaleResult, out: Printer): void {
  const o = r.options;
  out.heading("2. Stack scale through the real engine");
  out.say(
    `pulumi up and pulumi destroy through the runner (wall time of runProgram: workspace, stack select, config, ` +
      `the engine's action and, for up, reading the stack outputs), median of ${o.reps} run(s) each, order alternated.`,
  );
  out.say(
    `Emulator preparation time ${o.prepMs / 1000} s exactly (no jitter). Engine parallelism: PULUMI_PARALLEL=${o.parallel || "unset"} ` +
      `(the engine's default here would be ${r.engineDefaultParallel}, 4 x cores).`,
  );
  out.say("baseline = the same number of trivial dynamic resources whose provider answers at once.");
  out.say();
  const rows = summarise(r.runs, o.counts).map((s) => [
    `${s.count}`,
    sec(s.baseUpMs),
    sec(s.sessUpMs),
    sec(s.sessUpMs - s.baseUpMs),
    sec(s.sessUpMs - s.baseUpMs - o.prepMs),
    fixed(s.sessUpMs / s.baseUpMs, 2),
    sec(s.baseDestroyMs),
    sec(s.sessDestroyMs),
    sec(s.sessDestroyMs - s.baseDestroyMs),
    fixed(s.sessDestroyMs / s.baseDestroyMs, 2),
    fixed(s.statusCallsPerSession, 1),
  ]);
  out.say(
    table(
      [
        { title: "N" },
        { title: "base up s" },
        { title: "sessions up s" },
        { title: "up diff s" },
        { title: "diff - prep s" },
        { title: "up ratio" },
        { title: "base destroy s" },
        { title: "sessions destroy s" },
        { title: "destroy diff s" },
        { title: "destroy ratio" },
        { title: "status calls/session" },
      ],
      rows,
    ),
  );
  const at50 = summarise(r.runs, [50])[0];
  if (Number.isFinite(at50.sessUpMs)) {
    const upLimit = at50.baseUpMs + o.prepMs + 2000;
    const destroyLimit = at50.baseDestroyMs + 2000;
    out.say();
    out.say(
      table(
        [{ title: "goal", align: "left" }, { title: "limit s" }, { title: "measured s" }, { title: "margin s" }, { title: "", align: "left" }],
        [
          ["up of 50 ≤ baseline + prep + 2 s", sec(upLimit), sec(at50.sessUpMs), sec(upLimit - at50.sessUpMs), yesNo(at50.sessUpMs <= upLimit)],
          ["destroy of 50 ≤ baseline + 2 s", sec(destroyLimit), sec(at50.sessDestroyMs), sec(destroyLimit - at50.sessDestroyMs), yesNo(at50.sessDestroyMs <= destroyLimit)],
        ],
      ),
    );
  }
  if (r.defaultParallelRuns.length > 0) {
    const d = summarise(r.defaultParallelRuns, [50])[0];
    out.say();
    out.say(`The same 50 at the engine's default parallelism (${r.engineDefaultParallel} on this machine), one run each:`);
    out.say();
    out.say(
      table(
        [{ title: "N" }, { title: "base up s" }, { title: "sessions up s" }, { title: "up diff s" }, { title: "base destroy s" }, { title: "sessions destroy s" }, { title: "destroy diff s" }],
        [[`50`, sec(d.baseUpMs), sec(d.sessUpMs), sec(d.sessUpMs - d.baseUpMs), sec(d.baseDestroyMs), sec(d.sessDestroyMs), sec(d.sessDestroyMs - d.baseDestroyMs)]],
      ),
    );
  }
}

function printMemory(r: ScaleResult, out: Printer): void {
  const largest = Math.max(...r.options.counts);
  out.heading(`3. Memory of the dynamic provider process (goal: report it at ${largest} sessions)`);
  out.say(
    "Peak resident set of the engine's `node .../cmd/dynamic-provider` process: VmHWM (the kernel's own peak) and the " +
      `largest VmRSS of samples every 100 ms, during the action; median over ${r.options.reps} run(s).`,
  );
  out.say();
  const rows: string[][] = [];
  for (const count of r.options.counts) {
    for (const action of ["up", "destroy"] as const) {
      const get = (kind: StackKind) => pick(r.runs, kind, count).map((x) => (action === "up" ? x.upMemory : x.destroyMemory));
      const base = get("baseline");
      const sess = get("sessions");
      const hwmB = median(base.map((m) => m.hwmPeakMiB));
      const hwmS = median(sess.map((m) => m.hwmPeakMiB));
      rows.push([
        `${count}`,
        action,
        fixed(hwmB, 1),
        fixed(median(base.map((m) => m.sampledPeakMiB)), 1),
        fixed(hwmS, 1),
        fixed(median(sess.map((m) => m.sampledPeakMiB)), 1),
        fixed(hwmS - hwmB, 1),
        fixed(hwmS / hwmB, 2),
        `${Math.max(0, ...sess.map((m) => m.processes))}`,
      ]);
    }
  }
  out.say(
    table(
      [
        { title: "N" },
        { title: "action", align: "left" },
        { title: "base HWM MiB" },
        { title: "base sampled MiB" },
        { title: "sessions HWM MiB" },
        { title: "sessions sampled MiB" },
        { title: "diff MiB" },
        { title: "ratio" },
        { title: "provider processes" },
      ],
      rows,
    ),
  );
}
