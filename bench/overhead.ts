/**
 * Benchmark 1: time-to-running overhead.
 *
 * For each preparation time, every strategy starts the same number of sessions side by side, each
 * strategy against its own emulator with the same settings and seed (so each sees exactly the same
 * preparation times, and its status calls are counted on its own). A session is created through the
 * client and waited for with `waitForRunning`, the loop `create` runs; only the schedule differs.
 *
 *   overhead = (time from sending create to noticing running) - (the emulator's runningAt - created)
 */
import { RemoteBrowserClient } from "../client";
import { startEmulator, type Emulator } from "../emulator";
import type { PollSchedule } from "../core/context";
import { DEFAULT_POLL_SCHEDULE, waitForRunning } from "../core/launch";
import { modelPoint } from "./model";
import { type Printer, fixed, mean, median, ms, quantile, table, yesNo } from "./report";

export interface Strategy {
  name: string;
  describe: string;
  schedule: PollSchedule;
}

export const STRATEGIES: readonly Strategy[] = [
  { name: "provider", describe: "DEFAULT_POLL_SCHEDULE, what create uses", schedule: { ...DEFAULT_POLL_SCHEDULE } },
  { name: "fixed 1 s", describe: "polls every 1 s", schedule: { minIntervalMs: 1000, growth: 0, maxIntervalMs: 1000 } },
  { name: "naive 5 s", describe: "polls every 5 s", schedule: { minIntervalMs: 5000, growth: 0, maxIntervalMs: 5000 } },
];

export interface OverheadOptions {
  prepTimesMs: readonly number[];
  /** Sessions per strategy and preparation time. */
  samples: number;
  /** Preparation times spread evenly over prepMs ± this fraction (0 = every session takes exactly prepMs). */
  spread: number;
  /** Extra schedule measured alongside, e.g. a proposed new default. */
  candidate?: PollSchedule;
  /** Gap between the starts of consecutive samples of one strategy. */
  staggerMs: number;
}

export interface SessionSample {
  vmId: string;
  truePrepMs: number;
  observedMs: number;
  overheadMs: number;
  /** Noticed running minus the emulator's runningAt (same clock). */
  noticeDelayMs: number;
  statusCalls: number;
  /** From the create answer to noticing running. */
  waitMs: number;
}

export interface StrategyPoint {
  strategy: string;
  prepMs: number;
  goalMs: number;
  samples: SessionSample[];
  medianOverheadMs: number;
  p90OverheadMs: number;
  meanOverheadMs: number;
  statusCallsPerSession: number;
  callsPerSecondWaiting: number;
}

export interface OverheadResult {
  options: OverheadOptions;
  strategies: { name: string; describe: string; schedule: PollSchedule }[];
  points: StrategyPoint[];
  /** The goals the run was judged by (the chart draws them). */
  goals?: { marginFactor: number; floorMs: number; fraction: number; callsPerSecond: number };
}

/**
 * The goal for the median overhead at one preparation time: max(250 ms, 10 % of the preparation time),
 * with a margin, so that a schedule that meets it in one run does not miss the bare goal in the next.
 */
export const OVERHEAD_MARGIN = 0.9;
export const overheadGoalMs = (prepMs: number) => OVERHEAD_MARGIN * Math.max(250, 0.1 * prepMs);
/** Status calls per second of waiting, all sessions of a strategy together. */
export const CALLS_PER_SECOND_GOAL = 1.3;

interface Running {
  tSent: number;
  tAnswered: number;
  tNoticed: number;
  vmId: string;
}

interface Created {
  tSent: number;
  tAnswered: number;
  vmId: string;
}

/** What the provider's create does first: one create call under an idempotency key. */
async function create(client: RemoteBrowserClient, key: string): Promise<Created> {
  const tSent = Date.now();
  const answer = await client.createSession({ browser: "chrome", idempotencyKey: key });
  return { tSent, tAnswered: Date.now(), vmId: answer.vmId };
}

/** ...then the wait loop, with the strategy's schedule. */
async function waitFor(client: RemoteBrowserClient, schedule: PollSchedule, c: Created): Promise<Running> {
  const outcome = await waitForRunning({ client, vmId: c.vmId, timeoutMs: 600_000, looks: { schedule } });
  const tNoticed = Date.now();
  if (outcome.kind !== "running") throw new Error(`session ${c.vmId} did not run: ${outcome.kind}`);
  return { ...c, tNoticed };
}

function samplesOf(emulator: Emulator, runs: Running[]): SessionSample[] {
  const truth = new Map(emulator.control.sessions().map((s) => [s.vmId, s]));
  const calls = new Map<string, number>();
  for (const r of emulator.control.requests()) {
    if (r.operation === "status" && r.vmId) calls.set(r.vmId, (calls.get(r.vmId) ?? 0) + 1);
  }
  return runs.map((run) => {
    const s = truth.get(run.vmId);
    if (!s || !s.runningAt) throw new Error(`the emulator has no running time for ${run.vmId}`);
    const created = Date.parse(s.created);
    const runningAt = Date.parse(s.runningAt);
    const truePrepMs = runningAt - created;
    const observedMs = run.tNoticed - run.tSent;
    return {
      vmId: run.vmId,
      truePrepMs,
      observedMs,
      overheadMs: observedMs - truePrepMs,
      noticeDelayMs: run.tNoticed - runningAt,
      statusCalls: calls.get(run.vmId) ?? 0,
      waitMs: run.tNoticed - run.tAnswered,
    };
  });
}

function summarise(strategy: string, prepMs: number, samples: SessionSample[]): StrategyPoint {
  const overheads = samples.map((s) => s.overheadMs);
  const calls = samples.reduce((a, s) => a + s.statusCalls, 0);
  const waited = samples.reduce((a, s) => a + s.waitMs, 0) / 1000;
  return {
    strategy,
    prepMs,
    goalMs: overheadGoalMs(prepMs),
    samples,
    medianOverheadMs: median(overheads),
    p90OverheadMs: quantile(overheads, 0.9),
    meanOverheadMs: mean(overheads),
    statusCallsPerSession: calls / samples.length,
    callsPerSecondWaiting: calls / waited,
  };
}

/**
 * The preparation times of the samples: evenly spaced over prepMs ± spread (the middle of each of
 * `samples` equal strata), so every run and every strategy sees the same times and the median does not
 * hang on the luck of a random draw. With spread 0 every session takes exactly prepMs.
 */
export function samplePrepTimes(prepMs: number, samples: number, spread: number): number[] {
  return Array.from({ length: samples }, (_, i) => Math.round(prepMs * (1 - spread + (2 * spread * (i + 0.5)) / samples)));
}

async function measurePrepTime(prepMs: number, strategies: readonly Strategy[], o: OverheadOptions): Promise<StrategyPoint[]> {
  const times = samplePrepTimes(prepMs, o.samples, o.spread);
  const lanes = await Promise.all(
    strategies.map(async (s) => {
      const emulator = await startEmulator({ prepMs, prepJitterMs: 0, runningLimit: 10_000, seed: 1 });
      const client = new RemoteBrowserClient({ baseUrl: emulator.apiBaseUrl, apiKey: emulator.apiKey });
      return { strategy: s, emulator, client };
    }),
  );
  try {
    const results = await Promise.all(
      lanes.map(async ({ strategy, emulator, client }) => {
        const waits: Promise<Running>[] = [];
        const t0 = Date.now();
        for (let i = 0; i < times.length; i++) {
          const startAt = t0 + i * o.staggerMs;
          if (Date.now() < startAt) await new Promise((r) => setTimeout(r, startAt - Date.now()));
          // The emulator reads its preparation time when a session is created, and this lane's creates
          // are one at a time, so this session prepares for exactly times[i].
          emulator.control.settings({ prepMs: times[i], prepJitterMs: 0 });
          const created = await create(client, `bench-${prepMs}-${i}`);
          waits.push(waitFor(client, strategy.schedule, created));
        }
        return Promise.all(waits);
      }),
    );
    return lanes.map((lane, i) => summarise(lane.strategy.name, prepMs, samplesOf(lane.emulator, results[i])));
  } finally {
    for (const lane of lanes) {
      for (const s of lane.emulator.control.sessions()) await lane.client.removeSession(s.vmId).catch(() => undefined);
      await lane.client.close();
      await lane.emulator.close();
    }
  }
}

export async function runOverhead(o: OverheadOptions): Promise<OverheadResult> {
  const strategies = [...STRATEGIES];
  if (o.candidate) strategies.push({ name: "candidate", describe: "the --candidate schedule", schedule: o.candidate });

  // Untimed warm-up: the first requests of a process pay for compiling the client, the schemas and the
  // emulator; that belongs to no preparation time.
  await measurePrepTime(100, [STRATEGIES[0]], { ...o, samples: 5, spread: 0 });

  const points: StrategyPoint[] = [];
  for (const prepMs of o.prepTimesMs) {
    const started = Date.now();
    const measured = await measurePrepTime(prepMs, strategies, o);
    points.push(...measured);
    process.stderr.write(`bench: overhead at ${prepMs / 1000} s preparation measured in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  return {
    options: o,
    strategies: strategies.map((s) => ({ name: s.name, describe: s.describe, schedule: s.schedule })),
    points,
    goals: { marginFactor: OVERHEAD_MARGIN, floorMs: 250, fraction: 0.1, callsPerSecond: CALLS_PER_SECOND_GOAL },
  };
}

/** What each point's schedule gives by computation (`bench/model.ts`) for the run's preparation times. */
export function modelledPoints(r: OverheadResult): { strategy: string; prepMs: number; medianOverheadMs: number; statusCalls: number; waitMs: number }[] {
  const schedules = new Map(r.strategies.map((s) => [s.name, s.schedule]));
  return r.points.flatMap((p) => {
    const schedule = schedules.get(p.strategy);
    if (!schedule) return [];
    const m = modelPoint(schedule, samplePrepTimes(p.prepMs, r.options.samples, r.options.spread));
    return [{ strategy: p.strategy, prepMs: p.prepMs, medianOverheadMs: m.medianOverheadMs, statusCalls: m.statusCalls, waitMs: m.waitMs }];
  });
}

export function scheduleText(s: PollSchedule): string {
  const first = s.firstDelayMs === undefined ? "" : `firstDelayMs: ${s.firstDelayMs}, `;
  return `{${first}minIntervalMs: ${s.minIntervalMs}, growth: ${s.growth}, maxIntervalMs: ${s.maxIntervalMs}}`;
}

/** Prints the overhead tables of a run (a fresh one, or one read back from results.json). */
export function printOverhead(r: OverheadResult, out: Printer): void {
  const o = r.options;
  out.heading("1. Time-to-running overhead");
  out.say(
    `${o.samples} sessions per strategy and preparation time, started ${o.staggerMs} ms apart; all strategies side by side, ` +
      `each against its own emulator. Preparation times spread evenly over ±${Math.round(o.spread * 100)} % of the nominal one, ` +
      "the same for every strategy.",
  );
  for (const s of r.strategies) {
    out.say(`  ${s.name.padEnd(10)} ${s.describe}: ${scheduleText(s.schedule)}`);
  }
  out.say("overhead = provider-observed create time - the emulator's true preparation time (runningAt - created)");
  out.say(`goal: median overhead <= ${OVERHEAD_MARGIN} × max(250 ms, 10 % of the preparation time); ` + `model: the median computed for the same preparation times (bench/model.ts)`);
  out.say();
  const points = r.points;
  const model = modelledPoints(r);
  const modelled = (p: StrategyPoint) => model.find((m) => m.strategy === p.strategy && m.prepMs === p.prepMs);

  const rows = points.map((p) => [
    `${p.prepMs / 1000}`,
    p.strategy,
    ms(p.medianOverheadMs),
    ms(modelled(p)?.medianOverheadMs ?? NaN),
    ms(p.p90OverheadMs),
    ms(p.meanOverheadMs),
    `${((p.medianOverheadMs / p.prepMs) * 100).toFixed(1)}`,
    fixed(p.statusCallsPerSession, 1),
    fixed(p.callsPerSecondWaiting, 2),
    ms(overheadGoalMs(p.prepMs)),
    yesNo(p.medianOverheadMs <= overheadGoalMs(p.prepMs)),
  ]);
  out.say(
    table(
      [
        { title: "prep s" },
        { title: "strategy", align: "left" },
        { title: "median ms" },
        { title: "model ms" },
        { title: "p90 ms" },
        { title: "mean ms" },
        { title: "median % of prep" },
        { title: "status calls/session" },
        { title: "calls/s waiting" },
        { title: `goal ms (${OVERHEAD_MARGIN} ×)` },
        { title: "median goal", align: "left" },
      ],
      rows,
    ),
  );

  out.say();
  out.say(`Status calls per second of waiting, all preparation times together (goal ≤ ${CALLS_PER_SECOND_GOAL} on average):`);
  out.say();
  const overall = r.strategies.map((s) => {
    const mine = points.filter((p) => p.strategy === s.name);
    const all = mine.flatMap((p) => p.samples);
    const calls = all.reduce((a, x) => a + x.statusCalls, 0);
    const waited = all.reduce((a, x) => a + x.waitMs, 0) / 1000;
    const overheadGoals = mine.filter((p) => p.medianOverheadMs <= overheadGoalMs(p.prepMs)).length;
    const computed = mine.map(modelled).filter((m) => m !== undefined);
    const modelRate = computed.reduce((a, m) => a + m.statusCalls, 0) / (computed.reduce((a, m) => a + m.waitMs, 0) / 1000);
    return [s.name, `${calls}`, fixed(waited, 1), fixed(calls / waited, 2), fixed(modelRate, 2), yesNo(calls / waited <= CALLS_PER_SECOND_GOAL), `${overheadGoals} of ${mine.length}`];
  });
  out.say(
    table(
      [
        { title: "strategy", align: "left" },
        { title: "status calls" },
        { title: "s waited" },
        { title: "calls/s" },
        { title: "model calls/s" },
        { title: "calls goal", align: "left" },
        { title: "overhead goals met" },
      ],
      overall,
    ),
  );
}
