import { z } from "zod";

/**
 * Schemas of every request and answer of the service, version 8 and version 7.
 * Answers tolerate fields they do not name (the service may add some); a missing or mistyped field
 * is reported by its path. Requests are strict: an unknown field is a programming error here.
 */

import { LIMITS, LOCALES, SESSION_STATES } from "./limits";
import type { SessionStatus } from "./limits";
export { ENDED_STATES, LIMITS, LOCALES, SESSION_STATES, hasEndedOrFailed } from "./limits";
export type { Locale, SessionState, SessionStatus } from "./limits";

// ---- answers: the common envelope ----

export const answerStatusSchema = z.enum(["ok", "denied", "upgrade", "insecure", "error"]);
export type AnswerStatus = z.infer<typeof answerStatusSchema>;

/** What every answer has; read first, so that a refusal is reported as such and not as a shape error. */
export const envelopeSchema = z.object({
  status: answerStatusSchema,
  message: z.string().optional(),
  reason: z.string().optional(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

const ok = z.literal("ok");
const count = z.number().int().nonnegative();
const cap = count.nullable();
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a date in the form YYYY-MM-DD");

// ---- v8 ----

export const imageSchema = z.object({ id: z.string(), name: z.string(), enabled: z.boolean() });
export const citySchema = z.object({ code: z.string(), location: z.string() });
export const vpnLocationSchema = z.object({
  code: z.string(),
  name: z.string(),
  default: z.string(),
  cities: z.array(citySchema),
});
export const residentialSchema = z.object({
  configured: z.boolean(),
  countries: z.array(z.string()).nullable(),
});
export const imagesAnswerSchema = z.object({
  status: ok,
  images: z.array(imageSchema),
  vpnLocations: z.array(vpnLocationSchema),
  residential: residentialSchema,
});
export type ImagesAnswer = z.infer<typeof imagesAnswerSchema>;

export const sessionMeterSchema = z.object({
  running_session_limit: count,
  running_sessions_used: count,
  running_sessions_remaining: count,
  cycle_session_limit: cap,
  cycle_sessions_used: count,
  cycle_sessions_remaining: cap,
  cycle_start: isoDay,
});
export type SessionMeter = z.infer<typeof sessionMeterSchema>;

export const usageMeterSchema = sessionMeterSchema.extend({
  residential_cycle_mb_limit: cap,
  residential_bytes_used_cycle: count,
});
export type UsageMeter = z.infer<typeof usageMeterSchema>;

export const poolSchema = usageMeterSchema.extend({
  subscription_id: z.string(),
  plan_id: z.string(),
  plan_name: z.string(),
});
export type Pool = z.infer<typeof poolSchema>;

export const createRequestSchema = z.strictObject({
  browser: z.string().min(1),
  url: z.string().max(LIMITS.urlMaxLength).optional(),
  language: z.string().min(1).optional(),
  layout: z.string().min(1).optional(),
  country: z.string().min(1).optional(),
  egress: z.literal("residential").optional(),
  shareLanguage: z.enum(LOCALES).optional(),
  callbackUrl: z.string().max(LIMITS.callbackUrlMaxLength).optional(),
  idempotencyKey: z.string().min(LIMITS.idempotencyKeyMinLength).max(LIMITS.idempotencyKeyMaxLength).optional(),
});
export type CreateRequest = z.infer<typeof createRequestSchema>;

export const createAnswerSchema = z.object({
  status: ok,
  vmId: z.string().min(1),
  location_applied: z.boolean(),
  location_reason: z.string().optional(),
  shareUrl: z.string().optional(),
  shareUrlPath: z.string().optional(),
  quota: sessionMeterSchema,
});
export type CreateAnswer = z.infer<typeof createAnswerSchema>;

export const sessionEntrySchema = z.object({
  id: z.string(),
  // A state the spec does not name is kept as given (limits.ts: SessionStatus), not refused: refusing the
  // whole answer would fail a refresh or a wait over a word the provider can treat with care.
  status: z.union([z.enum(SESSION_STATES), z.string().min(1)]) as z.ZodType<SessionStatus>,
  name: z.string(),
  created: z.string(),
  location_applied: z.boolean().optional(),
  location_reason: z.string().optional(),
});
export type SessionEntry = z.infer<typeof sessionEntrySchema>;

export const sessionsAnswerSchema = z.object({ status: ok, data: z.array(sessionEntrySchema) });

export const removeRequestSchema = z.strictObject({ id: z.string().min(1) });
export const removeAnswerSchema = z.object({ status: ok });

export const quotaAnswerSchema = usageMeterSchema.extend({
  status: ok,
  has_plan: z.boolean(),
  pools: z.array(poolSchema),
});
export type QuotaAnswer = z.infer<typeof quotaAnswerSchema>;

export const accountAnswerSchema = quotaAnswerSchema.extend({
  contact: z.string(),
  feature_programmatic_access: z.boolean(),
});
export type AccountAnswer = z.infer<typeof accountAnswerSchema>;

// ---- v7 ----

export const v7CreateRequestSchema = z.strictObject({
  browser: z.string().min(1),
  url: z.string().max(LIMITS.urlMaxLength).optional(),
  language: z.string().min(1).optional(),
  layout: z.string().min(1).optional(),
  country: z
    .string()
    .regex(/^[a-z]{2}$/i, "a two-letter country code")
    .optional(),
  shareLanguage: z.enum(LOCALES).optional(),
  callbackUrl: z.string().max(LIMITS.callbackUrlMaxLength).optional(),
});
export type V7CreateRequest = z.infer<typeof v7CreateRequestSchema>;

export const creditMeterSchema = z.object({
  credits_total: count.nullable(),
  credits_used: count,
  credits_available: count.nullable(),
  concurrency_total: count,
  concurrency_used: count,
  concurrency_available: count,
  cycle_start: isoDay,
  cycle_end: isoDay,
});
export type CreditMeter = z.infer<typeof creditMeterSchema>;

/** Version 7 answered a create with one of two meters, depending on the account's plan. */
export const v7QuotaSchema = z.union([sessionMeterSchema, creditMeterSchema]);
export type V7Quota = z.infer<typeof v7QuotaSchema>;
export function isCreditMeter(q: V7Quota): q is CreditMeter {
  return "credits_used" in q;
}

export const v7CreateAnswerSchema = z.object({
  status: ok,
  vmId: z.string().min(1),
  shareUrl: z.string().optional(),
  shareUrlPath: z.string().optional(),
  quota: v7QuotaSchema,
});
export type V7CreateAnswer = z.infer<typeof v7CreateAnswerSchema>;

/** Version 7 account answers: a usage meter of either shape, and no pools. */
const v7UsageSchema = z.union([usageMeterSchema, creditMeterSchema, sessionMeterSchema]);
export const v7QuotaAnswerSchema = z.intersection(z.object({ status: ok, has_plan: z.boolean() }), v7UsageSchema);
export type V7QuotaAnswer = z.infer<typeof v7QuotaAnswerSchema>;
export const v7AccountAnswerSchema = z.intersection(z.object({ status: ok, has_plan: z.boolean(), contact: z.string(), feature_programmatic_access: z.boolean() }), v7UsageSchema);
export type V7AccountAnswer = z.infer<typeof v7AccountAnswerSchema>;
