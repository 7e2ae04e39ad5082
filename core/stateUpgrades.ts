import { OwnerUnprovenError } from "./errors";
import { assertCurrentOwner, hash, mismatch, ownerFingerprint, serviceAddress, servicePart } from "./owner";
import type { OwnerIdentity, SameOwner } from "./owner";

/**
 * What the state of earlier releases holds that this one no longer writes, and how each is still read,
 * in one place. A session's state is not rewritten by an upgrade of the package: where the service shows
 * the session to the configured account, its next refresh records the current form (read.ts), so that a
 * stack's first refresh after the upgrade is its state upgrade.
 *
 * The owner record (owner.ts), by the release that wrote it:
 * - `0.1.0`: none. Nothing shows which account made the session, so "unknown" is never taken for "gone"
 *   (unprovenOwner below), and destroy does not read the account to compare.
 * - `contact-hash` (builds before the salted fingerprint): `acct-<12 hex>@svc-<12 hex>`, a hash of the
 *   lower-cased, trimmed contact. It is compared, and a mismatch refused, but it proves nothing: two
 *   accounts whose contacts differ only in case share it.
 * - `current`: owner.ts's salted fingerprint (or a record this version cannot read, which owner.ts refuses).
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
