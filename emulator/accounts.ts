import type { PoolLimits } from "./meters";

export type V7Plan = "sessions" | "credits";

/** What the control surface accepts to add an account. Omitted fields take the defaults below. */
export interface AccountSpec {
  apiKey: string;
  /** @default "dev+<accountId>@example.test" */
  contact?: string;
  /** @default true */
  programmaticAccess?: boolean;
  /** @default true */
  hasPlan?: boolean;
  /** @default 5 */
  runningLimit?: number;
  /** null = no cap. @default null */
  cycleLimit?: number | null;
  /** @default true */
  locationAccess?: boolean;
  /** Residential data per cycle in MB; null = no residential allowance. @default 1024 */
  residentialMb?: number | null;
  /** Quota shape of version 7 start answers. @default "sessions" */
  v7Plan?: V7Plan;
  /** Credits per cycle for the "credits" plan; null = unlimited. @default null */
  credits?: number | null;
}

export interface Pool extends PoolLimits {
  subscriptionId: string;
  planId: string;
  planName: string;
}

/** The first successful answer stored under an idempotency key, with the request it answered. */
export interface IdempotencyRecord {
  canonicalRequest: string;
  answer: string;
  vmId: string;
}

export interface Account {
  id: string;
  apiKey: string;
  contact: string;
  programmaticAccess: boolean;
  hasPlan: boolean;
  locationAccess: boolean;
  v7Plan: V7Plan;
  credits: number | null;
  pools: Pool[];
  idempotency: Map<string, IdempotencyRecord>;
}

export const DEFAULT_RUNNING_LIMIT = 5;
export const DEFAULT_RESIDENTIAL_MB = 1024;

function split(total: number): [number, number] {
  return [Math.ceil(total / 2), Math.floor(total / 2)];
}

/**
 * Every plan is backed by two subscriptions (a base plan and an add-on) so that clients have real
 * `pools[]` to add up. An account without a plan has no subscription at all.
 */
export function buildPools(accountNumber: number, hasPlan: boolean, limits: PoolLimits): Pool[] {
  if (!hasPlan) return [];
  const [runA, runB] = split(limits.runningLimit);
  const [cycA, cycB] = limits.cycleLimit === null ? [null, null] : split(limits.cycleLimit);
  const [resA, resB] = limits.residentialMb === null ? [null, null] : split(limits.residentialMb);
  return [
    {
      subscriptionId: `sub_${accountNumber}_base`,
      planId: "team-monthly",
      planName: "Team (monthly)",
      runningLimit: runA,
      cycleLimit: cycA,
      residentialMb: resA,
    },
    {
      subscriptionId: `sub_${accountNumber}_addon`,
      planId: "sessions-addon",
      planName: "Extra sessions add-on",
      runningLimit: runB,
      cycleLimit: cycB,
      residentialMb: resB,
    },
  ];
}

export class Accounts {
  private readonly byKey = new Map<string, Account>();
  private readonly byId = new Map<string, Account>();
  private counter = 0;

  add(spec: AccountSpec): Account {
    if (this.byKey.has(spec.apiKey)) throw new Error("apiKey: an account with this key already exists");
    const number = ++this.counter;
    const id = `acct-${number}`;
    const hasPlan = spec.hasPlan ?? true;
    const account: Account = {
      id,
      apiKey: spec.apiKey,
      contact: spec.contact ?? `dev+${id}@example.test`,
      programmaticAccess: spec.programmaticAccess ?? true,
      hasPlan,
      locationAccess: spec.locationAccess ?? true,
      v7Plan: spec.v7Plan ?? "sessions",
      credits: spec.credits ?? null,
      pools: buildPools(number, hasPlan, {
        runningLimit: spec.runningLimit ?? DEFAULT_RUNNING_LIMIT,
        cycleLimit: spec.cycleLimit === undefined ? null : spec.cycleLimit,
        residentialMb: spec.residentialMb === undefined ? DEFAULT_RESIDENTIAL_MB : spec.residentialMb,
      }),
      idempotency: new Map(),
    };
    this.byKey.set(account.apiKey, account);
    this.byId.set(account.id, account);
    return account;
  }

  byApiKey(key: string): Account | undefined {
    return this.byKey.get(key);
  }

  get(id: string): Account | undefined {
    return this.byId.get(id);
  }

  all(): Account[] {
    return [...this.byId.values()];
  }

  /** Re-splits an account's totals over its pools (used for the default account's settings). */
  setLimits(account: Account, limits: Partial<Pick<PoolLimits, "runningLimit" | "cycleLimit">>): void {
    const current = totals(account);
    const number = Number(account.id.slice("acct-".length));
    account.pools = buildPools(number, account.hasPlan, {
      runningLimit: limits.runningLimit ?? current.runningLimit,
      cycleLimit: limits.cycleLimit === undefined ? current.cycleLimit : limits.cycleLimit,
      residentialMb: current.residentialMb,
    });
  }
}

function totals(account: Account): PoolLimits {
  const pools = account.pools;
  return {
    runningLimit: pools.reduce((acc, p) => acc + p.runningLimit, 0),
    cycleLimit: pools.some((p) => p.cycleLimit === null) ? null : pools.reduce((acc, p) => acc + (p.cycleLimit ?? 0), 0),
    residentialMb: pools.every((p) => p.residentialMb === null) ? null : pools.reduce((acc, p) => acc + (p.residentialMb ?? 0), 0),
  };
}

const SPEC_FIELDS = new Set(["apiKey", "contact", "programmaticAccess", "hasPlan", "runningLimit", "cycleLimit", "locationAccess", "residentialMb", "v7Plan", "credits"]);

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** Validates an account spec from the control surface; returns a message naming the bad field. */
export function parseAccountSpec(input: unknown): AccountSpec | string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return "body must be a JSON object";
  const o = input as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!SPEC_FIELDS.has(key)) return `${key}: unknown field`;
  if (typeof o.apiKey !== "string" || o.apiKey.length === 0) return "apiKey: required non-empty string";
  if (o.contact !== undefined && typeof o.contact !== "string") return "contact: must be a string";
  for (const flag of ["programmaticAccess", "hasPlan", "locationAccess"] as const) {
    if (o[flag] !== undefined && typeof o[flag] !== "boolean") return `${flag}: must be a boolean`;
  }
  if (o.runningLimit !== undefined && !isCount(o.runningLimit)) return "runningLimit: must be an integer >= 0";
  for (const nullable of ["cycleLimit", "residentialMb", "credits"] as const) {
    const v = o[nullable];
    if (v !== undefined && v !== null && !isCount(v)) return `${nullable}: must be an integer >= 0 or null`;
  }
  if (o.v7Plan !== undefined && o.v7Plan !== "sessions" && o.v7Plan !== "credits") {
    return 'v7Plan: must be "sessions" or "credits"';
  }
  return o as unknown as AccountSpec;
}
