import type { AnswerStatus, JsonObject } from "./types";

/** A JSON answer before it is written: HTTP code, body and the session it concerns (for the log). */
export interface Reply {
  httpStatus: number;
  body: JsonObject;
  headers?: Record<string, string>;
  vmId?: string;
  /** Pre-serialised body, used to replay an idempotent answer byte for byte. */
  raw?: string;
}

function reply(status: AnswerStatus, extra: JsonObject, httpStatus = 200): Reply {
  return { httpStatus, body: { status, ...extra } };
}

export const answers = {
  ok: (fields: JsonObject = {}): Reply => reply("ok", fields),
  denied: (message: string, httpStatus = 200): Reply => reply("denied", { message }, httpStatus),
  upgrade: (message: string): Reply => reply("upgrade", { message }),
  insecure: (reason: string, message: string, httpStatus = 200): Reply => reply("insecure", { reason, message }, httpStatus),
  error: (message: string): Reply => reply("error", { message }),
  rateLimited: (message: string, retryAfterSeconds: number): Reply => ({
    ...reply("insecure", { reason: "rate_limited", message }, 429),
    headers: { "retry-after": String(retryAfterSeconds) },
  }),
};
