import type { CreditMeter, SessionMeter, SessionStatus, UsageMeter } from "./types";
import { isActive } from "./types";

/** The part of a session the meters look at. */
export interface MeteredSession {
  poolIndex: number;
  status: SessionStatus;
  created: number;
  residentialBytes: number;
}

/** Limits of one subscription. */
export interface PoolLimits {
  runningLimit: number;
  cycleLimit: number | null;
  residentialMb: number | null;
}

export const BYTES_PER_MB = 1024 * 1024;

/** Cycles are calendar months (UTC): the API's `cycle_start` is a date and v7's `cycle_end` is a month later. */
export function cycleStart(now: number): Date {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

export function cycleEnd(now: number): Date {
  const start = cycleStart(now);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function inCurrentCycle(created: number, now: number): boolean {
  return created >= cycleStart(now).getTime();
}

export function poolMeter(pool: PoolLimits, poolIndex: number, sessions: readonly MeteredSession[], now: number): UsageMeter {
  let running = 0;
  let cycle = 0;
  let bytes = 0;
  for (const s of sessions) {
    if (s.poolIndex !== poolIndex) continue;
    if (isActive(s.status)) running++;
    if (inCurrentCycle(s.created, now)) {
      cycle++;
      bytes += s.residentialBytes;
    }
  }
  return {
    cycle_session_limit: pool.cycleLimit,
    cycle_sessions_used: cycle,
    cycle_sessions_remaining: pool.cycleLimit === null ? null : Math.max(0, pool.cycleLimit - cycle),
    running_session_limit: pool.runningLimit,
    running_sessions_used: running,
    running_sessions_remaining: Math.max(0, pool.runningLimit - running),
    cycle_start: isoDate(cycleStart(now)),
    residential_cycle_mb_limit: pool.residentialMb,
    residential_bytes_used_cycle: bytes,
  };
}

/**
 * Account totals are the sums of the pool meters, so totals and `pools[]` can never disagree.
 * A cycle cap is null as soon as one pool has none; residential is null only when no pool has an allowance.
 */
export function sumMeters(meters: readonly UsageMeter[], now: number): UsageMeter {
  const uncappedCycle = meters.length > 0 && meters.some((m) => m.cycle_session_limit === null);
  const noResidential = meters.every((m) => m.residential_cycle_mb_limit === null);
  const sum = (pick: (m: UsageMeter) => number | null): number => meters.reduce((acc, m) => acc + (pick(m) ?? 0), 0);
  return {
    cycle_session_limit: uncappedCycle ? null : sum((m) => m.cycle_session_limit),
    cycle_sessions_used: sum((m) => m.cycle_sessions_used),
    cycle_sessions_remaining: uncappedCycle ? null : sum((m) => m.cycle_sessions_remaining),
    running_session_limit: sum((m) => m.running_session_limit),
    running_sessions_used: sum((m) => m.running_sessions_used),
    running_sessions_remaining: sum((m) => m.running_sessions_remaining),
    cycle_start: isoDate(cycleStart(now)),
    residential_cycle_mb_limit: noResidential ? null : sum((m) => m.residential_cycle_mb_limit),
    residential_bytes_used_cycle: sum((m) => m.residential_bytes_used_cycle),
  };
}

/** The seven fields of the `quota` object in a start answer. */
export function sessionQuota(meter: UsageMeter): SessionMeter {
  return {
    running_session_limit: meter.running_session_limit,
    running_sessions_used: meter.running_sessions_used,
    running_sessions_remaining: meter.running_sessions_remaining,
    cycle_session_limit: meter.cycle_session_limit,
    cycle_sessions_used: meter.cycle_sessions_used,
    cycle_sessions_remaining: meter.cycle_sessions_remaining,
    cycle_start: meter.cycle_start,
  };
}

/** Version 7 credit plans: one credit per session started in the cycle; concurrency is the running meter. */
export function creditMeter(creditsTotal: number | null, meter: UsageMeter, now: number): CreditMeter {
  const used = meter.cycle_sessions_used;
  return {
    credits_total: creditsTotal,
    credits_used: used,
    credits_available: creditsTotal === null ? null : Math.max(0, creditsTotal - used),
    concurrency_total: meter.running_session_limit,
    concurrency_used: meter.running_sessions_used,
    concurrency_available: meter.running_sessions_remaining,
    cycle_start: meter.cycle_start,
    cycle_end: isoDate(cycleEnd(now)),
  };
}

/** Residential bytes still available in one pool; 0 when the pool has no allowance. */
export function residentialRoom(meter: UsageMeter): number {
  if (meter.residential_cycle_mb_limit === null) return 0;
  return Math.max(0, meter.residential_cycle_mb_limit * BYTES_PER_MB - meter.residential_bytes_used_cycle);
}
