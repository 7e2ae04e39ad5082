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
 * What earlier releases recorded instead (nothing, or a hash of the contact), and how their records are
 * migrated: below, after the current form (the layouts, by version).
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
 * nothing: see the layouts below). `record` is what the session should record from now on (see read in controller.ts).
 */
export interface SameOwner {
  proven: boolean;
  record: string;
}

const CURRENT = /^acct2-([0-9a-f]{16})-([0-9a-f]{16})((?:\+[0-9a-f]{16})*)@(svc-[0-9a-f]{12})$/;

/**
 * Refuses to act on a session recorded under another account or service, or with a record this version
 * cannot read; otherwise says that the record proves ownership. Records of earlier layouts are migrated
 * instead (upgradeState below); the current one is checked here.
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
export function mismatch(vmId: string, doing: string, recorded: string, current: string, same: { sameService: boolean; sameAccount: boolean }): AccountMismatchError {
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
 * The layout of a recorded session, versioned. Each session records its layout's version beside its
 * outputs: the operations take it as `stateVersion` (controller.ts) and say which version they wrote, and
 * both fronts record it as a bookkeeping output (never a schema output, never compared by a diff), on
 * create, import and every refresh. A session's state is not rewritten by an upgrade of the
 * package: where the service shows the session to the configured account, its next refresh migrates the
 * record to the current layout (read in controller.ts), so that a stack's first refresh after the upgrade
 * is its state upgrade. Only the owner record differs between the layouts so far:
 *
 * 1. release 0.1.0: none. Nothing shows which account made the session, so "unknown" is never taken for
 *    "gone" (unprovenOwner below), and destroy does not read the account to compare.
 * 2. the builds between it and the salted fingerprint: `acct-<12 hex>@svc-<12 hex>`, a hash of the
 *    lower-cased, trimmed contact. It is compared, and a mismatch refused, but it proves nothing: two
 *    accounts whose contacts differ only in case share it.
 * 3. the salted fingerprint above (current).
 *
 * Neither of the first two releases recorded a version, nor did the first builds of the third layout:
 * their version is inferred from the owner record (inferredStateVersion). A record of a newer layout, or
 * whose version and owner record disagree, is refused, and the session is not touched.
 */
export const CURRENT_STATE_VERSION = 3;

/** What the state records of a session's layout: its owner record, and its version where one was recorded. */
export interface StateRecord {
  owner: unknown;
  /** Absent in the state written before versions were recorded. */
  version?: unknown;
}

/** Release 0.1.0's layout: no owner record. */
export interface SessionStateV1 {
  version: 1;
  owner?: undefined;
}
/** The contact-hash owner record, `acct-<12 hex>@svc-<12 hex>`. */
export interface SessionStateV2 {
  version: 2;
  owner: string;
}
/** The salted fingerprint, `acct2-<salt>-<digests>@svc-<12 hex>` (current). */
export interface SessionStateV3 {
  version: typeof CURRENT_STATE_VERSION;
  owner: string;
}
export type SessionState = SessionStateV1 | SessionStateV2 | SessionStateV3;
export type StateVersion = SessionState["version"];

/**
 * A record brought to a layout, with whether it proves that the configured key's account made the session
 * (only a current record that matches does; see SameOwner).
 */
export interface Migrated<S extends SessionState> {
  state: S;
  proven: boolean;
}

/**
 * A typed migration of a record from one layout to a newer one, given the configured account's identity
 * (the new owner record is computed from it). It refuses a record of another account or service.
 */
export type StateMigration<Old extends SessionState, New extends SessionState> = (vmId: string, old: Old, identity: OwnerIdentity, doing: string) => Migrated<New>;

/**
 * Each earlier layout goes straight to the current one (as terraform's UpgradeState and
 * pulumi-go-provider's StateMigration do): a version 4 would add 3 -> 4 and compose it after these.
 */
export const migrateV1: StateMigration<SessionStateV1, SessionStateV3> = (_vmId, _old, identity) => ({
  state: { version: 3, owner: ownerFingerprint(identity) },
  proven: false,
});

export const migrateV2: StateMigration<SessionStateV2, SessionStateV3> = (vmId, old, identity, doing) => {
  const mine = contactHashOf(identity.contact, identity.service);
  if (old.owner !== mine) {
    const [recAccount, recService] = old.owner.split("@");
    const [curAccount, curService] = mine.split("@");
    throw mismatch(vmId, doing, old.owner, mine, { sameService: recService === curService, sameAccount: recAccount === curAccount });
  }
  return { state: { version: 3, owner: ownerFingerprint(identity) }, proven: false };
};

/** The current layout's own check: no migration, the record kept up to date (assertCurrentOwner). */
export const checkV3: StateMigration<SessionStateV3, SessionStateV3> = (vmId, old, identity, doing) => {
  const { proven, record } = assertCurrentOwner(vmId, old.owner, identity, doing);
  return { state: { version: 3, owner: record }, proven };
};

/** A record of any layout in the current one: what a refresh records, and whether ownership is proven. */
export function upgradeState(vmId: string, state: SessionState, identity: OwnerIdentity, doing: string): Migrated<SessionStateV3> {
  switch (state.version) {
    case 1:
      return migrateV1(vmId, state, identity, doing);
    case 2:
      return migrateV2(vmId, state, identity, doing);
    case 3:
      return checkV3(vmId, state, identity, doing);
  }
}

const CONTACT_HASH = /^acct-[0-9a-f]{12}@svc-[0-9a-f]{12}$/;

/**
 * The layout version of a record written before versions were recorded (none in its state), inferred
 * from its owner record: none, 1; the contact hash, 2; anything else, 3 (a record of that layout this
 * version cannot read is refused by assertCurrentOwner, as before versions were recorded). Only for such
 * records: a recorded version is taken as it is, and checked against the owner record (recordedState).
 */
export function inferredStateVersion(owner: unknown): StateVersion {
  if (owner === undefined || owner === null) return 1;
  return CONTACT_HASH.test(String(owner)) ? 2 : 3;
}

/** Whether the owner record has the shape of the layout `version`. */
function ownerFits(version: StateVersion, owner: unknown): boolean {
  switch (version) {
    case 1:
      return owner === undefined || owner === null;
    case 2:
      return typeof owner === "string" && CONTACT_HASH.test(owner);
    case 3:
      return typeof owner === "string" && CURRENT.test(owner);
  }
}

/** A record's layout, or why this version cannot read it. Reads nothing but the record. */
function layoutOf(record: StateRecord): { state: SessionState } | { unreadable: string } {
  const owner = record.owner ?? undefined;
  const recorded = record.version;
  if (recorded === undefined || recorded === null) {
    // Unversioned: the owner record alone tells the layout (an unreadable one is refused by checkV3).
    const version = inferredStateVersion(owner);
    return { state: version === 1 ? { version } : { version, owner: String(owner) } };
  }
  if (typeof recorded !== "number" || !Number.isInteger(recorded) || recorded < 1) {
    return { unreadable: `records the state layout version ${JSON.stringify(recorded)}, which is no layout version` };
  }
  if (recorded > CURRENT_STATE_VERSION) {
    return {
      unreadable: `is of state layout version ${recorded}, which this version cannot read (it reads versions 1 to ${CURRENT_STATE_VERSION}; written by a newer release?)`,
    };
  }
  const version = recorded as StateVersion;
  if (!ownerFits(version, owner)) {
    const what = owner === undefined ? "no owner record" : `the owner record "${String(owner)}"`;
    return { unreadable: `is of state layout version ${version} but has ${what}, which that layout does not have (edited by hand?)` };
  }
  return { state: version === 1 ? { version } : { version, owner: String(owner) } };
}

/**
 * A recorded session's layout: the version it records, or, recorded before versions were, the one its
 * owner record shows. Refuses, touching nothing, a record of a newer layout or whose version and owner
 * record disagree (the configured identity names the account in the refusal).
 */
export function recordedState(vmId: string, record: StateRecord, identity: OwnerIdentity, doing: string): SessionState {
  const layout = layoutOf(record);
  if ("state" in layout) return layout.state;
  throw new AccountMismatchError(
    `${doing} session ${vmId}: its state ${layout.unreadable}, so this version cannot tell whether the configured key's account made it. ` +
      "The session stays in the stack and was not touched. Run this with the release that made the session.",
    String(record.owner ?? ""),
    ownerFingerprint(identity),
    { vmId },
  );
}

/**
 * Refuses to act on a session recorded under another account or service (or with a record this version
 * cannot read); otherwise says how far the record, of whichever layout, proves ownership, and what it
 * should record from now on: the record (owner and version) read and brought to the current layout. No
 * version recorded: it is inferred from the owner record.
 */
export function assertSameRecord(vmId: string, record: StateRecord, identity: OwnerIdentity, doing: string): Migrated<SessionStateV3> {
  return upgradeState(vmId, recordedState(vmId, record, identity, doing), identity, doing);
}

/**
 * Whether destroy has a record to compare the configured account with: state of 0.1.0 (layout 1) has
 * none. A record this version cannot read counts as one, which assertSameRecord refuses.
 */
export function recordsOwner(record: StateRecord): boolean {
  const layout = layoutOf(record);
  return !("state" in layout) || layout.state.version !== 1;
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
