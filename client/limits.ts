/**
 * The service's fixed values (spec: the share locales, the request limits, the session states), apart from
 * the schemas that use them: a program that declares sessions reads these through core/declaration.ts without
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

/**
 * A session's state as a service may report it: one the spec names, or one it does not (the spec lists the
 * states but does not promise there are no others). An unnamed state is taken for neither running nor ended:
 * a wait goes on looking, refresh keeps the session, the audit counts it as holding a slot.
 */
export type SessionStatus = SessionState | (string & {});

/** Whether the session has ended for good, or never started (`error`): refresh drops it, a wait stops. */
export function hasEndedOrFailed(status: SessionStatus): boolean {
  return status === "error" || (ENDED_STATES as readonly string[]).includes(status);
}
