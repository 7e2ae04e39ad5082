import { createHash, createHmac, randomBytes } from "node:crypto";
import { versionedBaseUrl, type AccountAnswer, type V7AccountAnswer } from "../client";
import { AccountMismatchError, OwnerUnprovenError } from "../client/errors";

/**
 * Which account on which service a session belongs to. The service answers "unknown session" alike for a
 * session that has ended long ago and for one that another account owns, and a key rotated to the wrong
 * account, or a base URL pointing at another environment, would then make refresh drop running sessions
 * and destroy report success while they run on, billed. So every session records the fingerprint of the
 * account and service that made it, and read and delete refuse to decide anything under another one.
 *
 * The account is known by its subscriptions (`pools[].subscription_id` of `GET /user/api`): identifiers
 * the service gives no two accounts and that a change of the contact address leaves alone. A contact
 * address is no identity -- two accounts may differ only in its case or spacing, and an account may change
 * it. It is the fallback only where one side has no subscription to compare (an account without a plan,
 * or API version 7, whose answers have no pools), and then compared exactly as the service writes it.
 *
 * Each fingerprint has its own random salt and records keyed digests, never the identifiers: the value in
 * a state is not secret, but it cannot be linked to the same account in another session or stack, and
 * no table of likely contacts or subscription ids can be computed ahead of it. (Anyone holding a state can
 * still test a guess against one record: the salt is beside it. Nothing here relies on the record being
 * unguessable; it is an identity to compare with, not a credential.) The service's part is a plain hash
 * of its address (origin and path, without the API version: an account is the same under v7 and v8), so
 * a mismatch can say which of the two differs. No part involves the key: rotating a key within the same
 * account keeps every session's fingerprint.
 *
 * Format: `acct2-<16 hex salt>-<16 hex contact digest>[+<16 hex subscription digest>...]@svc-<12 hex>`.
 * What earlier releases recorded instead (nothing, or a hash of the contact), and how it is still read:
 * below, after the current form.
 */

/** What the service says identifies the configured key's account, and where it is. */
export interface OwnerIdentity {
  /** The contact address exactly as the account answer gives it. */
  contact: string;
  /** The subscriptions behind the account (none without a plan, or with API version 7). */
  subscriptions: readonly string[];
  /** See {@link serviceAddress}. */
  service: string;
}

export function identityOf(account: AccountAnswer | V7AccountAnswer, baseUrl: string): OwnerIdentity {
  const pools = "pools" in account && Array.isArray(account.pools) ? account.pools : [];
  return { contact: account.contact, subscriptions: pools.map((p) => p.subscription_id), service: serviceAddress(baseUrl) };
}

/** A new fingerprint of the identity, with a fresh salt unless one is given. */
export function ownerFingerprint(identity: OwnerIdentity, salt: string = randomBytes(8).toString("hex")): string {
  const subs = [...new Set(identity.subscriptions)].map((s) => `+${digest(salt, "subscription", s)}`).join("");
  return `acct2-${salt}-${digest(salt, "contact", identity.contact)}${subs}@${servicePart(identity.service)}`;
}

/** The service's address without its version segment, trailing slash or query: `https://api.example.com`. */
export function serviceAddress(baseUrl: string): string {
  const u = new URL(versionedBaseUrl(baseUrl, "v8"));
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/v8$/, "")}`.toLowerCase();
}

/**
 * The owner check's answer for a session of the configured account. `proven`: the record shows that this
 * account made the session, so that "unknown" may be taken for "gone" (records of earlier releases prove
 * nothing: see ownerRecordKind below). `record` is what the session should record from now on (see read in controller.ts).
 */
export interface SameOwner {
  proven: boolean;
  record: string;
}

const CURRENT = /^acct2-([0-9a-f]{16})-([0-9a-f]{16})((?:\+[0-9a-f]{16})*)@(svc-[0-9a-f]{12})$/;

/**
 * Refuses to act on a session recorded under another account or service, or with a record this version
 * cannot read; otherwise says that the record proves ownership. Records of earlier releases are read by
 * assertSameOwner below, which hands the others here.
 */
export function assertCurrentOwner(vmId: string, text: string, identity: OwnerIdentity, doing: string): SameOwner {
  const current = CURRENT.exec(text);
  if (current) {
    const [, salt, contact, subs, service] = current as unknown as [string, string, string, string, string];
    const mine = ownerFingerprint(identity, salt);
    const recordedSubs = subs.split("+").filter(Boolean);
    const sameService = service === servicePart(identity.service);
    const sameAccount =
      recordedSubs.length > 0 && identity.subscriptions.length > 0
        ? identity.subscriptions.some((s) => recordedSubs.includes(digest(salt, "subscription", s)))
        : contact === digest(salt, "contact", identity.contact);
    if (!sameService || !sameAccount) throw mismatch(vmId, doing, text, mine, { sameService, sameAccount });
    // Kept up to date with the account (a new contact, a subscription added), unless the answer has no
    // subscriptions to record: then the ones recorded stay the stronger proof.
    return { proven: true, record: identity.subscriptions.length > 0 ? mine : text };
  }
  throw new AccountMismatchError(
    `${doing} session ${vmId}: its recorded owner fingerprint "${text}" is of a kind this version cannot read (written by a ` +
      "newer release?), so it cannot tell whether the configured key's account made it. The session stays in the stack and was not touched. " +
      "Run this with the release that made the session.",
    text,
    ownerFingerprint(identity),
    { vmId },
  );
}

/** The refusal to act on a session of another account or service, naming both fingerprints. */
export function mismatch(
  vmId: string,
  doing: string,
  recorded: string,
  current: string,
  same: { sameService: boolean; sameAccount: boolean },
): AccountMismatchError {
  const [recAccount, recService] = recorded.split("@");
  const [curAccount, curService] = current.split("@");
  const what = [
    same.sameAccount ? undefined : `account ${recAccount}, but the configured key belongs to account ${curAccount}`,
    same.sameService ? undefined : `service ${recService}, but remote-browser:baseUrl points at service ${curService}`,
  ]
    .filter(Boolean)
    .join("; and to ");
  return new AccountMismatchError(
    `${doing} session ${vmId}: it belongs to ${what} (fingerprints: session ${recorded}, configured ${current}). ` +
      "The session stays in the stack and was not touched. Set remote-browser:apiKey (or REMOTE_BROWSER_API_KEY) " +
      "and remote-browser:baseUrl to those of the account and service that made it, then run again.",
    recorded,
    current,
    { vmId },
  );
}

/** The service's part of a fingerprint, the same in every format. */
export function servicePart(service: string): string {
  return `svc-${hash("service", service)}`;
}

function digest(salt: string, domain: string, value: string): string {
  return createHmac("sha256", salt).update(`pulumi-remote-browser ${domain}\0${value}`).digest("hex").slice(0, 16);
}

/** A short unkeyed digest of `value` in `domain` (the service's part, and the records of earlier releases). */
export function hash(domain: string, value: string): string {
  return createHash("sha256").update(`pulumi-remote-browser ${domain}\0${value}`).digest("hex").slice(0, 12);
}

/**
 * What the state of earlier releases holds that this one no longer writes, and how each is still read,
 * in one place. A session's state is not rewritten by an upgrade of the package: where the service shows
 * the session to the configured account, its next refresh records the current form (read in controller.ts), so that a
 * stack's first refresh after the upgrade is its state upgrade.
 *
 * The owner record (above), by the release that wrote it:
 * - `0.1.0`: none. Nothing shows which account made the session, so "unknown" is never taken for "gone"
 *   (unprovenOwner below), and destroy does not read the account to compare.
 * - `contact-hash` (builds before the salted fingerprint): `acct-<12 hex>@svc-<12 hex>`, a hash of the
 *   lower-cased, trimmed contact. It is compared, and a mismatch refused, but it proves nothing: two
 *   accounts whose contacts differ only in case share it.
 * - `current`: the salted fingerprint above (or a record this version cannot read, which assertCurrentOwner refuses).
 */
export type OwnerRecordKind = "0.1.0" | "contact-hash" | "current";

const CONTACT_HASH = /^acct-[0-9a-f]{12}@svc-[0-9a-f]{12}$/;

export function ownerRecordKind(recorded: unknown): OwnerRecordKind {
  if (recorded === undefined || recorded === null) return "0.1.0";
  return CONTACT_HASH.test(String(recorded)) ? "contact-hash" : "current";
}

/**
 * Refuses to act on a session recorded under another account or service (or with a fingerprint this
 * version cannot read); otherwise says how far the record, of whichever release, proves ownership.
 */
export function assertSameOwner(vmId: string, recorded: unknown, identity: OwnerIdentity, doing: string): SameOwner {
  switch (ownerRecordKind(recorded)) {
    case "0.1.0":
      return { proven: false, record: ownerFingerprint(identity) };
    case "contact-hash": {
      const text = String(recorded);
      const mine = contactHashOf(identity.contact, identity.service);
      if (text !== mine) {
        const [recAccount, recService] = text.split("@");
        const [curAccount, curService] = mine.split("@");
        throw mismatch(vmId, doing, text, mine, { sameService: recService === curService, sameAccount: recAccount === curAccount });
      }
      return { proven: false, record: ownerFingerprint(identity) };
    }
    case "current":
      return assertCurrentOwner(vmId, String(recorded), identity, doing);
  }
}

/** Whether destroy has a record to compare the configured account with: state of 0.1.0 has none. */
export function recordsOwner(props: Record<string, unknown>): boolean {
  return props.owner !== undefined;
}

/** The `contact-hash` record of an account, as those builds wrote it. Only compared with, never written. */
export function legacyFingerprint(contact: string, baseUrl: string): string {
  return contactHashOf(contact, serviceAddress(baseUrl));
}

function contactHashOf(contact: string, service: string): string {
  return `acct-${hash("account", contact.trim().toLowerCase())}@${servicePart(service)}`;
}

/**
 * The service does not know a session, and its record proves no owner: it may have ended, or belong to
 * another account (whose key answers "unknown" alike) and run on, billed. Dropping it could lose a running
 * session, so it stays in the stack until the user says which.
 */
export function unprovenOwner(vmId: string, recorded: unknown, doing: string): OwnerUnprovenError {
  const record =
    recorded === undefined || recorded === null
      ? "its state records no owner fingerprint (it was written by release 0.1.0)"
      : `its state records only the older owner fingerprint ${String(recorded)}, which accounts whose contact addresses differ only in case share`;
  return new OwnerUnprovenError(
    `${doing} session ${vmId}: the service does not know it under the configured key, and ${record}, so nothing shows that the ` +
      "configured key's account made it: it may have ended, or belong to another account and still run. It stays in the stack. " +
      "Either set remote-browser:apiKey (or REMOTE_BROWSER_API_KEY) and remote-browser:baseUrl to those of the account and service " +
      "that made it and run again, or, if you know the session has ended, remove it from the stack with " +
      "`pulumi state delete <urn>` (`pulumi stack --show-urns` lists the URNs).",
    { vmId },
  );
}
