/**
 * The time-to-running overhead a poll schedule should show in the overhead benchmark, computed instead
 * of measured: the same preparation times (`samplePrepTimes`), the same `nextPollDelay`, and fixed small
 * costs for the calls. It is how a schedule is chosen before the benchmark confirms it, and why a
 * measured median can be trusted not to be luck: with preparation times spread over a narrow window the
 * median depends on where the polls fall in that window, which the computation shows exactly.
 */
import type { PollSchedule } from "../core/context";
import { nextPollDelay } from "../core/launch";

/** What a call costs besides the wait itself; the defaults are what an idle 2-core machine shows on loopback. */
export interface ModelCosts {
  /** From sending create to its answer; the service stamps `created` half-way. */
  createMs: number;
  /** One status call; the service reads the state half-way. */
  pollMs: number;
  /** How late a timer fires. */
  timerMs: number;
}

export const IDLE_COSTS: Readonly<ModelCosts> = Object.freeze({ createMs: 3, pollMs: 2, timerMs: 1 });

export interface ModelSample {
  prepMs: number;
  overheadMs: number;
  statusCalls: number;
  /** From the create answer to noticing running. */
  waitMs: number;
}

/** One session: create, then poll with the schedule until a poll reaches the service after `prepMs`. */
export function modelSession(schedule: PollSchedule, prepMs: number, costs: ModelCosts = IDLE_COSTS): ModelSample {
  const created = costs.createMs / 2;
  let t = 0; // since the create answer, when the wait begins
  let calls = 0;
  for (;;) {
    t += nextPollDelay(t, schedule) + costs.timerMs;
    calls++;
    const seenAt = costs.createMs + t + costs.pollMs / 2;
    t += costs.pollMs;
    if (seenAt - created >= prepMs) break;
  }
  return { prepMs, overheadMs: costs.createMs + t - prepMs, statusCalls: calls, waitMs: t };
}

/** The median of sorted values, as `bench/report.ts` takes it (the middle one, or the mean of the two). */
function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = (s.length - 1) / 2;
  return (s[Math.floor(mid)] + s[Math.ceil(mid)]) / 2;
}

export interface ModelPoint {
  prepMs: number;
  medianOverheadMs: number;
  statusCalls: number;
  waitMs: number;
}

export function modelPoint(schedule: PollSchedule, prepTimesMs: readonly number[], costs: ModelCosts = IDLE_COSTS): ModelPoint {
  const samples = prepTimesMs.map((p) => modelSession(schedule, p, costs));
  return {
    prepMs: prepTimesMs.length ? Math.round(prepTimesMs.reduce((a, b) => a + b, 0) / prepTimesMs.length) : NaN,
    medianOverheadMs: median(samples.map((s) => s.overheadMs)),
    statusCalls: samples.reduce((a, s) => a + s.statusCalls, 0),
    waitMs: samples.reduce((a, s) => a + s.waitMs, 0),
  };
}
