/**
 * The fixed rules a request is held to before it is sent, apart from the schemas and the transport that apply
 * them: the service's values (spec: the share locales, the request limits, the session states) and the hosts
 * to which a key may travel over plain http (this machine's). A program that declares sessions reads the
 * values through core/declaration.ts, and the config loader the hosts, without loading zod or undici.
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

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** Whether a host name is this machine: the transport and the config loader refuse a key over plain http to any other. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}
