/**
 * Benchmark 7: stacks under the service's per-key rate limit. For a few sizes N and limits R, `up` then
 * `destroy` of N sessions in one stack, and of a wave of stacks on one key at once, each stack driven by
 * its own runner process (as CI jobs are), so that each has its own provider process and request budget.
 *
 * The floor is the time the limit alone allows for the calls a provider must make: for `up`, per session
 * one create and one status read that finds it running, and per stack one read of the account; for
 * `destroy`, one remove per session and one account read per stack. Calls divided by R. The goal: every resource succeeds at the first
 * try, and the time from the first call of a step to its last is within 1.5 × that floor.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator } from "../emulator";
import type { Emulator, RequestLogEntry } from "../emulator";
import { runRunner } from "./runnerProcess";
import { type Printer, fixed, sec, table } from "./report";

const root = path.resolve(__dirname, "..", "..");
const program = path.join(root, "dist", "bench", "ratelimit-program.js");
const passphrase = randomBytes(24).toString("hex");

export interface RateLimitCase {
  stacks: number;
  sessions: number;
  rate: number;
}

export interface RateLimitRow extends RateLimitCase {
  prepMs: number;
  /** From the first runner starting to the last one ending. */
  upWallMs: number;
  /** From the first API call of the step to its last. */
  upSpanMs: number;
  upCalls: number;
  upRefused: number;
  destroyWallMs: number;
  destroySpanMs: number;
  destroyCalls: number;
  destroyRefused: number;
  /** Resources whose step did not succeed at the first try (of all of them). */
  failedUp: number;
  failedDestroy: number;
  started: number;
  leftRunning: number;
}

export interface RateLimitResult {
  rows: RateLimitRow[];
}

export const DEFAULT_CASES: readonly RateLimitCase[] = [
  { stacks: 1, sessions: 10, rate: 5 },
  { stacks: 1, sessions: 30, rate: 5 },
  { stacks: 1, sessions: 50, rate: 10 },
  { stacks: 4, sessions: 6, rate: 5 },
  { stacks: 4, sessions: 10, rate: 10 },
];

export const QUICK_CASES: readonly RateLimitCase[] = [
  { stacks: 1, sessions: 30, rate: 5 },
  { stacks: 4, sessions: 6, rate: 5 },
];

/** Calls of the key in the log, and the span from the first to the last. */
function calls(log: RequestLogEntry[]): { all: number; refused: number; spanMs: number } {
  const api = log.filter((r) => r.operation !== "viewer" && r.operation !== "unknown");
  if (api.length === 0) return { all: 0, refused: 0, spanMs: 0 };
  const ts = api.map((r) => r.t);
  return { all: api.length, refused: api.filter((r) => r.httpStatus === 429).length, spanMs: Math.max(...ts) - Math.min(...ts) };
}

/** The calls `up` must make (a create and a status read per session, an account read per stack) / R. */
export const upFloorMs = (c: RateLimitCase) => ((2 * c.stacks * c.sessions + c.stacks) / c.rate) * 1000;
/** The calls `destroy` must make (a remove per session, an account read per stack) / R. */
export const destroyFloorMs = (c: RateLimitCase) => ((c.stacks * c.sessions + c.stacks) / c.rate) * 1000;

async function runCase(c: RateLimitCase, prepMs: number, workRoot: string): Promise<RateLimitRow> {
  const emulator: Emulator = await startEmulator({ prepMs, prepJitterMs: 0, rateLimit: c.rate, runningLimit: 1_000 });
  const work = path.join(workRoot, "ratelimit", `s${c.stacks}-n${c.sessions}-r${c.rate}`);
  fs.rmSync(work, { recursive: true, force: true });
  const env = { RL_API_KEY: emulator.apiKey, PULUMI_CONFIG_PASSPHRASE: passphrase, PULUMI_PARALLEL: "64" };
  const stacks = Array.from({ length: c.stacks }, (_, i) => {
    const name = `pr-${i + 1}`;
    const workDir = path.join(work, name);
    fs.mkdirSync(workDir, { recursive: true });
    const common = [
      "--stack",
      name,
      "--project",
      "ratelimit",
      "--work-dir",
      workDir,
      "--quiet",
      "--config",
      `remote-browser:baseUrl=${emulator.apiBaseUrl}`,
      "--secret-env",
      "remote-browser:apiKey=RL_API_KEY",
    ];
    return { name, workDir, common };
  });
  try {
    const step = async (action: "up" | "destroy") => {
      emulator.control.clearRequests();
      const start = Date.now();
      const results = await Promise.all(
        stacks.map((s) =>
          runRunner(
            action === "up" ? ["up", "--program", program, ...s.common, "--config", `count=${c.sessions}`, "--config", `url=https://example.com/${s.name}`] : ["destroy", ...s.common],
            s.workDir,
            env,
          ),
        ),
      );
      const wallMs = Date.now() - start;
      for (const r of results) if (r.code !== 0) process.stderr.write(`bench: ${action} failed:\n${r.out.slice(-800)}\n`);
      return { wallMs, results, ...calls(emulator.control.requests()) };
    };
    const total = c.stacks * c.sessions;
    const up = await step("up");
    const runningAfterUp = emulator.control.sessions().filter((s) => s.status === "running").length;
    const destroy = await step("destroy");
    const books = emulator.control.books();
    const leftRunning = books.neverEnded;
    for (const s of stacks) await runRunner(["rm", ...s.common], s.workDir, env);
    return {
      ...c,
      prepMs,
      upWallMs: up.wallMs,
      upSpanMs: up.spanMs,
      upCalls: up.all,
      upRefused: up.refused,
      destroyWallMs: destroy.wallMs,
      destroySpanMs: destroy.spanMs,
      destroyCalls: destroy.all,
      destroyRefused: destroy.refused,
      failedUp: total - Math.min(total, runningAfterUp),
      failedDestroy: leftRunning,
      started: books.started,
      leftRunning,
    };
  } finally {
    await emulator.close();
  }
}

export async function runRateLimit(cases: readonly RateLimitCase[], prepMs: number, workRoot: string): Promise<RateLimitResult> {
  const rows: RateLimitRow[] = [];
  for (const c of cases) {
    const row = await runCase(c, prepMs, workRoot);
    rows.push(row);
    process.stderr.write(
      `bench: rate limit ${c.rate}/s, ${c.stacks} x ${c.sessions}: up ${sec(row.upSpanMs)} s of calls (floor ${sec(upFloorMs(row))} s), ` +
        `destroy ${sec(row.destroySpanMs)} s (floor ${sec(destroyFloorMs(row))} s), failed ${row.failedUp + row.failedDestroy}\n`,
    );
  }
  return { rows };
}

export function printRateLimit(r: RateLimitResult, out: Printer): void {
  out.heading("7. Under the service's rate limit");
  out.say("N sessions per stack, R requests per second per key (the emulator's --rate-limit), preparation");
  out.say(`${r.rows[0]?.prepMs ?? "?"} ms, PULUMI_PARALLEL 64, each stack its own runner process. Calls span: from the`);
  out.say("step's first API call to its last; floor: the calls a provider must make / R (up: a create and a");
  out.say("status read per session and an account read per stack; destroy: a remove per session and an account");
  out.say("read per stack).");
  out.say();
  const rows = r.rows.map((x) => {
    const total = x.stacks * x.sessions;
    return [
      `${x.stacks} x ${x.sessions}`,
      `${x.rate}`,
      sec(x.upWallMs, 1),
      sec(x.upSpanMs, 1),
      sec(upFloorMs(x), 1),
      fixed(x.upSpanMs / upFloorMs(x)),
      fixed(x.upCalls / total, 1),
      fixed(x.upRefused / total, 1),
      sec(x.destroyWallMs, 1),
      sec(x.destroySpanMs, 1),
      sec(destroyFloorMs(x), 1),
      fixed(x.destroySpanMs / destroyFloorMs(x)),
      fixed(x.destroyCalls / total, 1),
      `${(((x.failedUp + x.failedDestroy) / total) * 100).toFixed(0)} %`,
      x.upSpanMs <= 1.5 * upFloorMs(x) && x.destroySpanMs <= 1.5 * destroyFloorMs(x) && x.failedUp + x.failedDestroy === 0 && x.started === total ? "met" : "MISSED",
    ];
  });
  out.say(
    table(
      [
        { title: "stacks x N", align: "left" },
        { title: "R/s" },
        { title: "up wall s" },
        { title: "up calls s" },
        { title: "floor s" },
        { title: "x floor" },
        { title: "calls/session" },
        { title: "refused/session" },
        { title: "destroy wall s" },
        { title: "destroy calls s" },
        { title: "floor s" },
        { title: "x floor" },
        { title: "calls/session" },
        { title: "failed" },
        { title: "goal (1.5 x, none failed)" },
      ],
      rows,
    ),
  );
  out.say();
  out.say("calls/session counts every call of the step, refused ones included; the wall time adds the engine's own");
  out.say("start and steps (about 4 s for a stack on 2 idle cores, see section 2).");
}
