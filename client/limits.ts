/**
 * The service's fixed values (spec: the share locales, the request limits, the session states), apart from
 * the schemas that use them: a program that declares sessions reads these through core/fields.ts without
 * loading zod and every schema.
 */

export const LOCALES = ["en", "de", "fr", "es", "it", "pt", "ja"] as const;
export type Locale = (typeof LOCALES)[number];

export const LIMITS = {
  urlMaxLength: 10_000,
  callbackUrlMaxLength: 2_000,
  idempotencyKeyMinLength: 1,
  idempotencyKeyMaxLength: 128,
} as const;

export const SESSION_STATES = ["starting", "running", "error", "stopping", "suspended", "deleted"] as const;
export type SessionState = (typeof SESSION_STATES)[number];
/** States in which a session has ended for good. */
export const ENDED_STATES: readonly SessionState[] = ["stopping", "suspended", "deleted"];
