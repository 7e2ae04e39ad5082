/** Session states of the API. `stopping`, `suspended` and `deleted` mean ended; `error` means it never ran. */
export type SessionStatus = "starting" | "running" | "error" | "stopping" | "suspended" | "deleted";

export const SESSION_STATUSES: readonly SessionStatus[] = ["starting", "running", "error", "stopping", "suspended", "deleted"];

export const ENDED_STATUSES: readonly SessionStatus[] = ["stopping", "suspended", "deleted"];

/** States that occupy a slot under the running limit. */
export function isActive(status: SessionStatus): boolean {
  return status === "starting" || status === "running";
}

export type ApiVersion = "v8" | "v7";

/** The status values every API answer carries. */
export type AnswerStatus = "ok" | "denied" | "upgrade" | "insecure" | "error";

/** Operation names used by the request log, the books and fault injection. */
export type Operation = "create" | "status" | "list" | "remove" | "image" | "account" | "quota" | "v7create" | "v7account" | "v7quota" | "viewer" | "unknown";

export const SHARE_LOCALES = ["en", "de", "fr", "es", "it", "pt", "ja"] as const;
export type ShareLocale = (typeof SHARE_LOCALES)[number];

export function isShareLocale(value: string): value is ShareLocale {
  return (SHARE_LOCALES as readonly string[]).includes(value);
}

/** Session fields of the usage meter, in the order the API documents them. */
export interface SessionMeter {
  cycle_session_limit: number | null;
  cycle_sessions_used: number;
  cycle_sessions_remaining: number | null;
  running_session_limit: number;
  running_sessions_used: number;
  running_sessions_remaining: number;
  cycle_start: string;
}

export interface UsageMeter extends SessionMeter {
  residential_cycle_mb_limit: number | null;
  residential_bytes_used_cycle: number;
}

/** Quota shape of version 7 plans billed in credits. */
export interface CreditMeter {
  credits_total: number | null;
  credits_used: number;
  credits_available: number | null;
  concurrency_total: number;
  concurrency_used: number;
  concurrency_available: number;
  cycle_start: string;
  cycle_end: string;
}

/** JSON body of any API answer. */
export type JsonObject = Record<string, unknown>;
