import * as pulumi from "@pulumi/pulumi";
import { RemoteBrowserClient, isCreditMeter } from "../client";
import type { Pool, UsageMeter, V7QuotaAnswer } from "../client";
import { CONFIG_NAMESPACE, ProviderConfig, clientForConfig, loadConfig } from "../provider/config";
import { warnAboutPlainSecrets } from "./configWarnings";

/** Options of the data-source functions. All optional. */
export interface FunctionOptions {
  /** Overrides `remote-browser:baseUrl` / REMOTE_BROWSER_BASE_URL for this call. */
  baseUrl?: string;
}

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
export interface GetLocationsResult {
  locations: Location[];
  residential: { configured: boolean; countries: string[] | null };
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

function programConfig(opts?: FunctionOptions): ProviderConfig {
  warnAboutPlainSecrets();
  // runtime.getConfig reads secrets without the plaintext warning of Config.get; the key never leaves this call.
  // The options' baseUrl is read as the config's would be, so that the loader sees it.
  return loadConfig((key) => (key === "baseUrl" && opts?.baseUrl) || pulumi.runtime.getConfig(`${CONFIG_NAMESPACE}:${key}`));
}

async function withClient<T>(opts: FunctionOptions | undefined, fn: (c: RemoteBrowserClient, cfg: ProviderConfig) => Promise<T>): Promise<T> {
  const cfg = programConfig(opts);
  const client = clientForConfig(cfg);
  try {
    return await fn(client, cfg);
  } finally {
    await client.close();
  }
}

/** The service's browser images. Needs no API key. */
export function getImages(opts?: FunctionOptions): Promise<GetImagesResult> {
  return withClient(opts, async (c) => ({ images: (await c.images()).images.map(({ id, name, enabled }) => ({ id, name, enabled })) }));
}

/** The exit locations (countries with their cities) and the residential descriptor. Needs no API key. */
export function getLocations(opts?: FunctionOptions): Promise<GetLocationsResult> {
  return withClient(opts, async (c) => {
    const answer = await c.images();
    return {
      locations: answer.vpnLocations.map((l) => ({
        code: l.code,
        name: l.name,
        defaultCity: l.default,
        cities: l.cities.map(({ code, location }) => ({ code, location })),
      })),
      residential: { configured: answer.residential.configured, countries: answer.residential.countries },
    };
  });
}

/** The account's session and residential-data usage, in total and per subscription. */
export function getUsage(opts?: FunctionOptions): Promise<GetUsageResult> {
  return withClient(opts, async (c, cfg) => {
    if (cfg.apiVersion === "v7") return fromV7(await c.v7.quota());
    const q = await c.quota();
    return { ...meterFields(q), hasPlan: q.has_plan, pools: q.pools.map(poolFields), meter: "sessions" };
  });
}

/** {@link getImages} as an Output: takes its options as Inputs. */
export function getImagesOutput(opts?: pulumi.Input<FunctionOptions>): pulumi.Output<GetImagesResult> {
  return pulumi.output(opts).apply((o) => getImages(o));
}
/** {@link getLocations} as an Output: takes its options as Inputs. */
export function getLocationsOutput(opts?: pulumi.Input<FunctionOptions>): pulumi.Output<GetLocationsResult> {
  return pulumi.output(opts).apply((o) => getLocations(o));
}
/** {@link getUsage} as an Output: takes its options as Inputs. */
export function getUsageOutput(opts?: pulumi.Input<FunctionOptions>): pulumi.Output<GetUsageResult> {
  return pulumi.output(opts).apply((o) => getUsage(o));
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
