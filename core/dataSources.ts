import { z } from "zod";
import { SESSION_STATES, isCreditMeter } from "../client";
import type { ApiVersion, ImagesAnswer, Pool, RemoteBrowserClient, SessionEntry, SessionStatus, UsageMeter, V7QuotaAnswer } from "../client";

/**
 * The data sources' answers, shaped once for both front doors: the TypeScript functions of the SDK
 * (sdk/functions.ts) and the plugin's invokes (plugin/functions.ts) return exactly these shapes.
 */

export interface Image {
  id: string;
  name: string;
  enabled: boolean;
}
export interface GetImagesResult {
  images: Image[];
}

export interface City {
  code: string;
  location: string;
}
export interface Location {
  code: string;
  name: string;
  defaultCity: string;
  cities: City[];
}
/** Whether residential connections are configured, and where (`null`: every country). */
export interface Residential {
  configured: boolean;
  countries: string[] | null;
}
export interface GetLocationsResult {
  locations: Location[];
  residential: Residential;
}

/** The usage meter in camelCase. */
export interface UsageMeterFields {
  runningSessionLimit: number;
  runningSessionsUsed: number;
  runningSessionsRemaining: number;
  cycleSessionLimit: number | null;
  cycleSessionsUsed: number;
  cycleSessionsRemaining: number | null;
  cycleStart: string;
  residentialCycleMbLimit: number | null;
  residentialBytesUsedCycle: number;
}
/** One subscription's share of the account's meter. */
export interface UsagePool extends UsageMeterFields {
  subscriptionId: string;
  planId: string;
  planName: string;
}
/** Version 7 credit plans: their meter, as the service reported it. */
export interface CreditUsage {
  creditsTotal: number | null;
  creditsUsed: number;
  creditsAvailable: number | null;
  concurrencyTotal: number;
  concurrencyUsed: number;
  concurrencyAvailable: number;
  cycleStart: string;
  cycleEnd: string;
}
/** Result of getUsage: the account's totals over all its subscriptions, and each subscription's pool. */
export interface GetUsageResult extends UsageMeterFields {
  hasPlan: boolean;
  /** One per subscription behind the totals (empty with API version 7, which has none). */
  pools: UsagePool[];
  /** `sessions` for the session meter; `credits` for a version 7 credit plan, whose running fields come from its concurrency. */
  meter: "sessions" | "credits";
  credits?: CreditUsage;
}

/**
 * One session of the account as the service lists it. `maskedId` is the session's id with part of it
 * hidden by the service: it tells sessions apart and can be matched against vmIds a stack recorded
 * (every visible character agrees), but it cannot be passed to the status or end operations.
 */
export interface ListedSession {
  maskedId: string;
  status: SessionStatus;
  browserName: string;
  created: string;
  /** Present while the session's requested location is recorded; false when no free exit was there. */
  locationApplied?: boolean;
  locationReason?: string;
}
export interface GetSessionsResult {
  sessions: ListedSession[];
}

/** The filters of getSessions, all optional: without them every session of the last month is listed. */
export const getSessionsArgsSchema = z.strictObject({
  /** Only sessions in one of these states (e.g. `["running"]`). */
  states: z.array(z.enum(SESSION_STATES)).min(1).optional(),
  /** Only sessions started at least this many minutes ago. */
  minAgeMinutes: z.number().nonnegative().optional(),
  /** Only sessions started at most this many minutes ago. */
  maxAgeMinutes: z.number().nonnegative().optional(),
});
export type GetSessionsArgs = z.infer<typeof getSessionsArgsSchema>;

/** Checks getSessions' arguments (or the List call's query: `what`); the message names each bad one. */
export function parseSessionsArgs(args: unknown, what = "getSessions"): GetSessionsArgs {
  const parsed = getSessionsArgsSchema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`);
  throw new Error(`${what}: invalid arguments: ${problems.join("; ")} (states: ${SESSION_STATES.join(", ")})`);
}

/** The account's sessions of the last month, newest first, as the service lists them, filtered. One list call. */
export async function sessionsResult(client: RemoteBrowserClient, args: GetSessionsArgs, now = Date.now()): Promise<GetSessionsResult> {
  const minute = 60_000;
  const keep = (e: SessionEntry): boolean => {
    const age = now - Date.parse(e.created);
    if (args.states && !(args.states as readonly string[]).includes(e.status)) return false;
    if (args.minAgeMinutes !== undefined && age < args.minAgeMinutes * minute) return false;
    if (args.maxAgeMinutes !== undefined && age > args.maxAgeMinutes * minute) return false;
    return true;
  };
  return { sessions: (await client.sessions()).filter(keep).map(listedSession) };
}

export function listedSession(e: SessionEntry): ListedSession {
  return {
    maskedId: e.id,
    status: e.status,
    browserName: e.name,
    created: e.created,
    ...(e.location_applied === undefined ? {} : { locationApplied: e.location_applied }),
    ...(e.location_reason === undefined ? {} : { locationReason: e.location_reason }),
  };
}

/** The images of the catalog, as getImages returns them. */
export function imagesResult(answer: ImagesAnswer): GetImagesResult {
  return { images: answer.images.map(({ id, name, enabled }) => ({ id, name, enabled })) };
}

/** The exit locations and the residential descriptor, as getLocations returns them. */
export function locationsResult(answer: ImagesAnswer): GetLocationsResult {
  return {
    locations: answer.vpnLocations.map((l) => ({
      code: l.code,
      name: l.name,
      defaultCity: l.default,
      cities: l.cities.map(({ code, location }) => ({ code, location })),
    })),
    residential: { configured: answer.residential.configured, countries: answer.residential.countries },
  };
}

/** The account's usage under the configured API version, as getUsage returns it. */
export async function usageResult(client: RemoteBrowserClient, apiVersion: ApiVersion): Promise<GetUsageResult> {
  if (apiVersion === "v7") return fromV7(await client.v7.quota());
  const q = await client.quota();
  return { ...meterFields(q), hasPlan: q.has_plan, pools: q.pools.map(poolFields), meter: "sessions" };
}

function meterFields(m: UsageMeter): UsageMeterFields {
  return {
    runningSessionLimit: m.running_session_limit,
    runningSessionsUsed: m.running_sessions_used,
    runningSessionsRemaining: m.running_sessions_remaining,
    cycleSessionLimit: m.cycle_session_limit,
    cycleSessionsUsed: m.cycle_sessions_used,
    cycleSessionsRemaining: m.cycle_sessions_remaining,
    cycleStart: m.cycle_start,
    residentialCycleMbLimit: m.residential_cycle_mb_limit,
    residentialBytesUsedCycle: m.residential_bytes_used_cycle,
  };
}

function poolFields(p: Pool): UsagePool {
  return { subscriptionId: p.subscription_id, planId: p.plan_id, planName: p.plan_name, ...meterFields(p) };
}

function fromV7(q: V7QuotaAnswer): GetUsageResult {
  const residential = {
    residentialCycleMbLimit: "residential_cycle_mb_limit" in q ? (q.residential_cycle_mb_limit as number | null) : null,
    residentialBytesUsedCycle: "residential_bytes_used_cycle" in q ? (q.residential_bytes_used_cycle as number) : 0,
  };
  if (isCreditMeter(q)) {
    return {
      runningSessionLimit: q.concurrency_total,
      runningSessionsUsed: q.concurrency_used,
      runningSessionsRemaining: q.concurrency_available,
      cycleSessionLimit: null,
      cycleSessionsUsed: q.credits_used,
      cycleSessionsRemaining: null,
      cycleStart: q.cycle_start,
      ...residential,
      hasPlan: q.has_plan,
      pools: [],
      meter: "credits",
      credits: {
        creditsTotal: q.credits_total,
        creditsUsed: q.credits_used,
        creditsAvailable: q.credits_available,
        concurrencyTotal: q.concurrency_total,
        concurrencyUsed: q.concurrency_used,
        concurrencyAvailable: q.concurrency_available,
        cycleStart: q.cycle_start,
        cycleEnd: q.cycle_end,
      },
    };
  }
  return {
    runningSessionLimit: q.running_session_limit,
    runningSessionsUsed: q.running_sessions_used,
    runningSessionsRemaining: q.running_sessions_remaining,
    cycleSessionLimit: q.cycle_session_limit,
    cycleSessionsUsed: q.cycle_sessions_used,
    cycleSessionsRemaining: q.cycle_sessions_remaining,
    cycleStart: q.cycle_start,
    ...residential,
    hasPlan: q.has_plan,
    pools: [],
    meter: "sessions",
  };
}
