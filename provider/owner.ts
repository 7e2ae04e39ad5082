import { createHash } from "node:crypto";
import { versionedBaseUrl } from "../client";
import { AccountMismatchError } from "./errors";

/**
 * Which account on which service a session belongs to. The service answers "unknown session" alike for a
 * session that has ended long ago and for one that another account owns, and a key rotated to the wrong
 * account, or a base URL pointing at another environment, would then make refresh drop running sessions
 * and destroy report success while they run on, billed. So every session records the fingerprint of the
 * account and service that made it, and read and delete refuse to decide anything under another one.
 *
 * The fingerprint is short, stable and not secret: a hash of the account's contact address (from
 * `GET /user/api`) and a hash of the service's address (origin and path, without the API version: an
 * account is the same under v7 and v8). It never involves the key, so rotating a key within the same
 * account keeps every session's fingerprint. Format: `acct-<12 hex>@svc-<12 hex>`.
 */
export function ownerFingerprint(contact: string, baseUrl: string): string {
  return `acct-${hash("account", contact.trim().toLowerCase())}@svc-${hash("service", serviceAddress(baseUrl))}`;
}

/** The service's address without its version segment, trailing slash or query: `https://api.example.com`. */
export function serviceAddress(baseUrl: string): string {
  const u = new URL(versionedBaseUrl(baseUrl, "v8"));
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/v8$/, "")}`.toLowerCase();
}

/**
 * Refuses to act on a session recorded under another account or service. A session recorded before
 * fingerprints existed (no `recorded`) is taken as the current account's: see read.ts for how it gets one.
 */
export function assertSameOwner(vmId: string, recorded: unknown, current: string, doing: string): void {
  if (typeof recorded !== "string" || recorded === current) return;
  const [recAccount, recService] = recorded.split("@");
  const [curAccount, curService] = current.split("@");
  const what = [
    recAccount !== curAccount ? `account ${recAccount}, but the configured key belongs to account ${curAccount}` : undefined,
    recService !== curService ? `service ${recService}, but remote-browser:baseUrl points at service ${curService}` : undefined,
  ]
    .filter(Boolean)
    .join("; and to ");
  throw new AccountMismatchError(
    `${doing} session ${vmId}: it belongs to ${what} (fingerprints: session ${recorded}, configured ${current}). ` +
      "The session stays in the stack and was not touched. Set remote-browser:apiKey (or REMOTE_BROWSER_API_KEY) " +
      "and remote-browser:baseUrl to those of the account and service that made it, then run again.",
    recorded,
    current,
    { vmId },
  );
}

function hash(domain: string, value: string): string {
  return createHash("sha256").update(`pulumi-remote-browser ${domain}\0${value}`).digest("hex").slice(0, 12);
}
