import type { AccountSpec } from "./accounts";
import { parseAccountSpec } from "./accounts";
import { findImage, isKnownLocation } from "./catalog";
import type { BookCounters, RequestLogEntry } from "./books";
import type { ActiveFault, FaultSpec } from "./faults";
import { parseFaultSpec } from "./faults";
import type { PreparationControl, Session } from "./sessions";
import { VM_ID_PREFIX } from "./sessions";
import type { EmulatorState } from "./state";
import type { ApiVersion, SessionStatus, ShareLocale } from "./types";
import { SESSION_STATUSES, isShareLocale } from "./types";

/** A session's true state, unmasked. The API key is never shown: `accountId` names the owner. */
export interface SessionView {
  vmId: string;
  accountId: string;
  status: SessionStatus;
  browser: string;
  url: string | null;
  language: string;
  layout: string;
  country: string | null;
  egress: string | null;
  shareLanguage: string;
  callbackUrl: string | null;
  linkId: string;
  idempotencyKey: string | null;
  /** ISO 8601 timestamps. */
  created: string;
  runningAt: string | null;
  endedAt: string | null;
  locationApplied: boolean;
  locationReason: string | null;
  /** City exit held by the session, if any. */
  exitCode: string | null;
  apiVersion: ApiVersion;
  residentialBytes: number;
}

/** A session to put back as it was recorded: what the control surface accepts to seed one. */
export interface SessionSeed {
  vmId: string;
  /** The owning account. @default the default account */
  accountId?: string;
  /** `starting` or `running`. @default "running" */
  status?: SessionStatus;
  browser: string;
  url?: string | null;
  language?: string;
  layout?: string;
  country?: string | null;
  egress?: string | null;
  shareLanguage?: string;
  callbackUrl?: string | null;
  /** The share link's id: the part after `?`. */
  linkId: string;
  idempotencyKey?: string | null;
  /** ISO 8601. @default now */
  created?: string;
  locationApplied?: boolean;
  apiVersion?: ApiVersion;
}

export interface SettingsChange {
  prepMs?: number;
  prepJitterMs?: number;
  stopMs?: number;
  rateLimit?: number;
  maxBodyBytes?: number;
  residentialBytesPerSecond?: number;
  /** Default account's running limit. */
  runningLimit?: number;
  /** Default account's cycle limit; null = no cap. */
  cycleLimit?: number | null;
  /** Exit capacity by city code, or by country code for each of its cities. */
  locationCapacity?: Record<string, number>;
}

export interface SettingsView {
  prepMs: number;
  prepJitterMs: number;
  stopMs: number;
  rateLimit: number;
  maxBodyBytes: number;
  residentialBytesPerSecond: number;
  runningLimit: number;
  cycleLimit: number | null;
  locationCapacity: Record<string, number>;
}

export interface AccountChange {
  contact?: string;
}

export interface PreparationChange {
  /** The next N sessions created end their preparation in `error`. */
  failNext?: number;
  /** While paused, sessions stay `starting`; unpausing finishes the held ones at once. */
  paused?: boolean;
}

/**
 * In-process twin of the HTTP control surface under `/_emulator`. Every method is synchronous and
 * throws an {@link EmulatorControlError} for bad input or an unknown session.
 */
export interface EmulatorControl {
  sessions(): SessionView[];
  books(): BookCounters;
  requests(): RequestLogEntry[];
  clearRequests(): void;
  /** Applies the change (if any) and returns the effective settings. */
  settings(change?: SettingsChange): SettingsView;
  fault(spec: FaultSpec): ActiveFault;
  faults(): ActiveFault[];
  clearFaults(): void;
  preparation(change?: PreparationChange): PreparationControl;
  /** Ends a session out of band: it is `deleted` at once and its share link stops working. */
  endSession(vmId: string): SessionView;
  /** Forces a state; forcing `starting` restarts preparation. */
  setState(vmId: string, status: SessionStatus): SessionView;
  /** Moves a session's creation time (ISO 8601), e.g. into the previous cycle or beyond the last month. */
  setCreated(vmId: string, created: string): SessionView;
  addAccount(spec: AccountSpec): { accountId: string };
  /** Changes what an account's owner can change in the service's settings: its contact address. */
  updateAccount(accountId: string, change: AccountChange): { accountId: string; contact: string };
  /** Puts back a session recorded elsewhere (e.g. in a stack's exported state), with its vmId and share link. */
  seedSession(seed: SessionSeed): SessionView;
  /** Clears sessions, logs, faults, counters and idempotency keys; restores start settings; keeps accounts. */
  reset(): void;
}

export class EmulatorControlError extends Error {
  override readonly name = "EmulatorControlError";
  constructor(
    message: string,
    readonly code: "EMULATOR_CONTROL_INVALID" | "EMULATOR_CONTROL_NOT_FOUND",
  ) {
    super(message);
  }
}

const invalid = (message: string) => new EmulatorControlError(message, "EMULATOR_CONTROL_INVALID");

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

export function sessionView(s: Session): SessionView {
  return {
    vmId: s.vmId,
    accountId: s.accountId,
    status: s.status,
    browser: s.browser,
    url: s.url,
    language: s.language,
    layout: s.layout,
    country: s.country,
    egress: s.egress,
    shareLanguage: s.shareLanguage,
    callbackUrl: s.callbackUrl,
    linkId: s.linkId,
    idempotencyKey: s.idempotencyKey,
    created: new Date(s.created).toISOString(),
    runningAt: iso(s.runningAt),
    endedAt: iso(s.endedAt),
    locationApplied: s.locationApplied,
    locationReason: s.locationReason,
    exitCode: s.exitCode,
    apiVersion: s.apiVersion,
    residentialBytes: s.residentialBytes,
  };
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

function checkSettings(change: unknown): SettingsChange {
  if (typeof change !== "object" || change === null || Array.isArray(change)) throw invalid("body must be a JSON object");
  const c = change as Record<string, unknown>;
  const counts = ["prepMs", "prepJitterMs", "stopMs", "rateLimit", "maxBodyBytes", "residentialBytesPerSecond", "runningLimit"];
  for (const key of Object.keys(c)) {
    if (counts.includes(key)) {
      if (!isCount(c[key])) throw invalid(`${key}: must be an integer >= 0`);
    } else if (key === "cycleLimit") {
      if (c.cycleLimit !== null && !isCount(c.cycleLimit)) throw invalid("cycleLimit: must be an integer >= 0 or null");
    } else if (key === "locationCapacity") {
      const lc = c.locationCapacity;
      if (typeof lc !== "object" || lc === null || Array.isArray(lc)) throw invalid("locationCapacity: must be an object");
      for (const [code, n] of Object.entries(lc)) if (!isCount(n)) throw invalid(`locationCapacity.${code}: must be an integer >= 0`);
    } else {
      throw invalid(`${key}: unknown setting`);
    }
  }
  return c as SettingsChange;
}

function checkSeed(seed: unknown): SessionSeed {
  if (typeof seed !== "object" || seed === null || Array.isArray(seed)) throw invalid("body must be a JSON object");
  const s = seed as Record<string, unknown>;
  if (typeof s.vmId !== "string" || !s.vmId.startsWith(VM_ID_PREFIX)) throw invalid(`vmId: must be a string starting with ${VM_ID_PREFIX}`);
  if (typeof s.linkId !== "string" || !/^[\w-]{8,}$/.test(s.linkId)) throw invalid("linkId: must be a share link id (8 or more word characters)");
  if (typeof s.browser !== "string" || !findImage(s.browser)) throw invalid("browser: must be a browser image id");
  if (s.status !== undefined && s.status !== "starting" && s.status !== "running") throw invalid("status: must be starting or running");
  if (s.shareLanguage !== undefined && !isShareLocale(s.shareLanguage as string)) throw invalid("shareLanguage: not a share locale");
  if (s.created !== undefined && (typeof s.created !== "string" || Number.isNaN(Date.parse(s.created)))) {
    throw invalid("created: must be an ISO 8601 timestamp");
  }
  if (s.apiVersion !== undefined && s.apiVersion !== "v8" && s.apiVersion !== "v7") throw invalid("apiVersion: must be v8 or v7");
  return s as unknown as SessionSeed;
}

export function createControl(state: EmulatorState): EmulatorControl {
  const find = (vmId: string): Session => {
    const s = state.sessions.get(vmId);
    if (!s) throw new EmulatorControlError(`unknown session ${vmId}`, "EMULATOR_CONTROL_NOT_FOUND");
    return s;
  };
  const settingsView = (): SettingsView => {
    const meter = state.meter(state.defaultAccount);
    return {
      prepMs: state.settings.prepMs,
      prepJitterMs: state.settings.prepJitterMs,
      stopMs: state.settings.stopMs,
      rateLimit: state.settings.rateLimit,
      maxBodyBytes: state.settings.maxBodyBytes,
      residentialBytesPerSecond: state.settings.residentialBytesPerSecond,
      runningLimit: meter.running_session_limit,
      cycleLimit: meter.cycle_session_limit,
      locationCapacity: state.exits.capacities(),
    };
  };

  return {
    sessions: () => state.sessions.all().map(sessionView),
    books: () => state.books.snapshot(state.sessions.all()),
    requests: () => state.books.requests(),
    clearRequests: () => state.books.clearRequests(),
    settings(change = {}) {
      const c = checkSettings(change);
      for (const code of Object.keys(c.locationCapacity ?? {})) {
        if (code === "auto" || !isKnownLocation(code)) throw invalid(`locationCapacity.${code}: unknown location code`);
      }
      const { runningLimit, cycleLimit, locationCapacity, ...plain } = c;
      state.sessions.accrue();
      Object.assign(state.settings, plain);
      if (runningLimit !== undefined || cycleLimit !== undefined) {
        state.accounts.setLimits(state.defaultAccount, {
          ...(runningLimit !== undefined ? { runningLimit } : {}),
          ...(cycleLimit !== undefined ? { cycleLimit } : {}),
        });
      }
      for (const [code, n] of Object.entries(locationCapacity ?? {})) state.exits.setCapacity(code, n);
      return settingsView();
    },
    fault(spec) {
      const parsed = parseFaultSpec(spec);
      if (typeof parsed === "string") throw invalid(parsed);
      return state.faults.add(parsed);
    },
    faults: () => state.faults.list(),
    clearFaults: () => state.faults.clear(),
    preparation(change = {}) {
      if (typeof change !== "object" || change === null || Array.isArray(change)) throw invalid("body must be a JSON object");
      for (const key of Object.keys(change)) if (key !== "failNext" && key !== "paused") throw invalid(`${key}: unknown field`);
      if (change.failNext !== undefined && !isCount(change.failNext)) throw invalid("failNext: must be an integer >= 0");
      if (change.paused !== undefined && typeof change.paused !== "boolean") throw invalid("paused: must be a boolean");
      return state.sessions.setPreparation(change);
    },
    endSession(vmId) {
      const s = find(vmId);
      state.sessions.endNow(s);
      return sessionView(s);
    },
    setState(vmId, status) {
      const s = find(vmId);
      if (!SESSION_STATUSES.includes(status)) throw invalid(`status: must be one of ${SESSION_STATUSES.join(", ")}`);
      state.sessions.force(s, status);
      return sessionView(s);
    },
    setCreated(vmId, created) {
      const s = find(vmId);
      const ms = typeof created === "string" ? Date.parse(created) : NaN;
      if (Number.isNaN(ms)) throw invalid("created: must be an ISO 8601 timestamp");
      s.created = ms;
      return sessionView(s);
    },
    addAccount(spec) {
      const parsed = parseAccountSpec(spec);
      if (typeof parsed === "string") throw invalid(parsed);
      if (state.accounts.byApiKey(parsed.apiKey)) throw invalid("apiKey: an account with this key already exists");
      return { accountId: state.accounts.add(parsed).id };
    },
    updateAccount(accountId, change) {
      const account = state.accounts.get(accountId);
      if (!account) throw new EmulatorControlError(`unknown account ${accountId}`, "EMULATOR_CONTROL_NOT_FOUND");
      if (typeof change !== "object" || change === null || Array.isArray(change)) throw invalid("body must be a JSON object");
      for (const key of Object.keys(change)) if (key !== "contact") throw invalid(`${key}: unknown field`);
      if (change.contact !== undefined) {
        if (typeof change.contact !== "string" || change.contact.length === 0) throw invalid("contact: must be a non-empty string");
        account.contact = change.contact;
      }
      return { accountId: account.id, contact: account.contact };
    },
    seedSession(seed) {
      const s = checkSeed(seed);
      if (state.sessions.get(s.vmId)) throw invalid(`vmId: session ${s.vmId} exists already`);
      const account = s.accountId === undefined ? state.defaultAccount : state.accounts.get(s.accountId);
      if (!account) throw new EmulatorControlError(`unknown account ${s.accountId}`, "EMULATOR_CONTROL_NOT_FOUND");
      const image = findImage(s.browser);
      const country = s.country ?? null;
      const locationApplied = s.locationApplied ?? true;
      const session = state.sessions.restore(
        {
          vmId: s.vmId,
          accountId: account.id,
          poolIndex: 0,
          apiVersion: s.apiVersion ?? "v8",
          browser: s.browser,
          browserName: image?.name ?? s.browser,
          url: s.url ?? null,
          language: s.language ?? "en",
          layout: s.layout ?? "us",
          country,
          egress: s.egress ?? null,
          shareLanguage: (s.shareLanguage ?? "en") as ShareLocale,
          callbackUrl: s.callbackUrl ?? null,
          linkId: s.linkId,
          idempotencyKey: s.idempotencyKey ?? null,
          created: s.created === undefined ? Date.now() : Date.parse(s.created),
          locationRequested: country !== null,
          locationApplied,
          locationReason: locationApplied ? null : "unavailable",
          exitCode: null,
        },
        s.status ?? "running",
      );
      return sessionView(session);
    },
    reset: () => state.reset(),
  };
}
