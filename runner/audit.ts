import { MaskedIdIndex, hasEndedOrFailed } from "../client";
import type { RemoteBrowserClient } from "../client";
import { listedSession } from "../core/dataSources";
import type { ListedSession } from "../core/dataSources";
import type { PendingCreate, StackSessions } from "./audit-stacks";

/**
 * The account audit: the account's live sessions (one list call) set against what every stack of a
 * backend records. The list masks ids, so a session is matched to a recorded vmId when every visible
 * character agrees, and a pending create (whose id nobody recorded) only by its browser. Where the
 * matching cannot tell sessions apart, the audit says so and counts the least number that must be held by
 * none. It ends nothing and never replays a create: a key the service does not know starts a new session.
 *
 * Ended sessions take part in the matching too: a recorded vmId whose session has ended may agree with a live
 * session no stack holds, and counting only live entries would then call that orphan held. Where the list
 * cannot tell, the recorded vmIds concerned are read on their own (`readAccount`): one read said to have
 * ended cannot hold a live session.
 */

/** Who holds a live session. */
export type Holding =
  /** Recorded by a stack: the vmIds that agree with its masked id are all in these stacks. */
  | { kind: "held"; stacks: string[] }
  /** Not recorded, but a killed `up` of these stacks was creating a session of its browser. */
  | { kind: "pending"; stacks: string[] }
  /** Not recorded and no pending create of its browser. */
  | { kind: "none" }
  /** Masked ids collide: this is one of several sessions that fewer stack records (or pending creates) agree with. */
  | { kind: "unclear"; stacks: string[]; via: "recorded" | "pending" };

export interface AuditRow {
  session: ListedSession;
  ageMinutes: number;
  holding: Holding;
}

export interface AuditReport {
  rows: AuditRow[];
  /** Sessions in the account that hold a slot (starting or running). */
  live: number;
  held: number;
  pending: number;
  /** Sessions held by none for certain. */
  heldByNone: number;
  /** Sessions whose masked ids collide (or outnumber the pending creates of their browser): who holds each is unclear. */
  unclear: number;
  /** Of the unclear ones, the least number that must be held by none. */
  unclearHeldByNone: number;
  /** Sessions held by none older than the threshold, certain ones and the least number among the unclear. */
  heldByNoneTooOld: number;
  /** Masked ids that agree with more than one recorded vmId, or recorded vmIds that more than one listed session agrees with. */
  collisions: number;
  pendingCreates: PendingCreate[];
  stacks: number;
}

/** What a read of a recorded vmId on its own said: it holds a slot, or it does not (ended, failed, unknown). */
export type RecordedState = "live" | "gone";

/** A state the spec does not name counts as holding a slot: an orphan is worse missed than over-counted. */
const isLive = (s: ListedSession) => !hasEndedOrFailed(s.status);

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

/**
 * Sets the live sessions against the stacks' records. `browserNames` maps a browser id (as a pending
 * create's inputs name it) to its display name (as the list names it). Pure: the figures and the table
 * come from this alone.
 */
export function classify(
  sessions: ListedSession[],
  stacks: StackSessions & { count: number },
  browserNames: Map<string, string>,
  opts: { now: number; orphanMinutes: number },
  /** Recorded vmIds read on their own, where the list could not tell (readAccount). */
  recordedStates: ReadonlyMap<string, RecordedState> = new Map(),
): AuditReport {
  const live = sessions.filter(isLive);
  const ended = sessions.filter((s) => !isLive(s));
  const age = (s: ListedSession) => Math.max(0, (opts.now - Date.parse(s.created)) / 60_000);
  const rows: AuditRow[] = live.map((session) => ({ session, ageMinutes: age(session), holding: { kind: "none" } }));
  let heldByNone = 0;
  let unclearHeldByNone = 0;
  let heldByNoneTooOld = 0;
  let collisions = 0;
  const tooOld = (r: AuditRow) => r.ageMinutes > opts.orphanMinutes;

  // Sessions, live ones first and then ended ones, and the recorded vmIds their masked ids agree with, grouped
  // so that no vmId is shared across groups (a union of every pair that agrees).
  const index = new MaskedIdIndex(stacks.recorded.map((r) => r.vmId));
  const matchesOf = (s: ListedSession) => index.candidates(s.maskedId);
  const matches = [...rows.map((r) => matchesOf(r.session)), ...ended.map(matchesOf)];
  const group = matches.map((_, i) => i);
  const root = (i: number): number => (group[i] === i ? i : (group[i] = root(group[i]!)));
  const firstWith = new Map<string, number>();
  matches.forEach((ids, i) => {
    for (const id of ids) {
      const j = firstWith.get(id);
      if (j === undefined) firstWith.set(id, i);
      else group[root(i)] = root(j);
    }
  });
  const groups = new Map<number, number[]>();
  matches.forEach((ids, i) => {
    if (ids.length) groups.set(root(i), [...(groups.get(root(i)) ?? []), i]);
  });
  const stacksOf = (vmIds: string[]) => unique(stacks.recorded.filter((r) => vmIds.includes(r.vmId)).map((r) => r.stack)).sort();
  for (const everyMember of groups.values()) {
    const members = everyMember.filter((i) => i < rows.length);
    const endedMembers = everyMember.length - members.length;
    // A collision among ended sessions only touches no live one: a month of history has many.
    if (members.length === 0) continue;
    const vmIds = unique(everyMember.flatMap((i) => matches[i]!));
    if (everyMember.length > 1 || vmIds.length > 1) collisions++;
    const holders = stacksOf(vmIds);
    // Recorded vmIds a read showed live hold a live session; those not read may be one of the ended entries
    // instead; those a read showed gone hold none.
    const liveRead = vmIds.filter((id) => recordedStates.get(id) === "live").length;
    const notRead = vmIds.filter((id) => recordedStates.get(id) === undefined).length;
    const surelyHolding = liveRead + Math.max(0, notRead - endedMembers);
    const mayHold = liveRead + notRead;
    if (mayHold === 0) {
      for (const i of members) rows[i]!.holding = { kind: "none" };
      heldByNone += members.length;
      heldByNoneTooOld += members.filter((i) => tooOld(rows[i]!)).length;
    } else if (members.length <= surelyHolding) {
      for (const i of members) rows[i]!.holding = { kind: "held", stacks: stacksOf(matches[i]!) };
    } else {
      for (const i of members) rows[i]!.holding = { kind: "unclear", stacks: holders, via: "recorded" };
      unclearHeldByNone += Math.max(0, members.length - mayHold);
      heldByNoneTooOld += Math.max(0, members.filter((i) => tooOld(rows[i]!)).length - mayHold);
    }
  }

  // The rest: a pending create of the same browser may have started it (its id was never recorded).
  const unmatched = rows.filter((_, i) => matches[i]!.length === 0);
  const nameOf = (p: PendingCreate) => (p.browser === undefined ? undefined : (browserNames.get(p.browser) ?? p.browser));
  const byBrowser = new Map<string, AuditRow[]>();
  for (const r of unmatched) byBrowser.set(r.session.browserName, [...(byBrowser.get(r.session.browserName) ?? []), r]);
  for (const [name, candidates] of byBrowser) {
    const creating = stacks.pending.filter((p) => nameOf(p) === name || p.browser === undefined);
    const holders = unique(creating.map((p) => p.stack)).sort();
    if (creating.length === 0) {
      for (const r of candidates) r.holding = { kind: "none" };
      heldByNone += candidates.length;
      heldByNoneTooOld += candidates.filter(tooOld).length;
    } else if (candidates.length <= creating.length) {
      for (const r of candidates) r.holding = { kind: "pending", stacks: holders };
    } else {
      for (const r of candidates) r.holding = { kind: "unclear", stacks: holders, via: "pending" };
      unclearHeldByNone += candidates.length - creating.length;
      heldByNoneTooOld += Math.max(0, candidates.filter(tooOld).length - creating.length);
    }
  }

  return {
    rows,
    live: rows.length,
    held: rows.filter((r) => r.holding.kind === "held").length,
    pending: rows.filter((r) => r.holding.kind === "pending").length,
    heldByNone,
    unclear: rows.filter((r) => r.holding.kind === "unclear").length,
    unclearHeldByNone,
    heldByNoneTooOld,
    collisions,
    pendingCreates: stacks.pending,
    stacks: stacks.count,
  };
}

/**
 * Recorded vmIds the list cannot settle: those agreeing with a live listed session and with another listed
 * session too (live or ended), or sharing an agreeing live session with another recorded vmId. A recorded
 * vmId that agrees only with ended sessions needs no read: it holds no live one, whichever it is.
 */
export function ambiguousRecorded(sessions: ListedSession[], recorded: ReadonlyArray<{ vmId: string }>): string[] {
  const index = new MaskedIdIndex(recorded.map((r) => r.vmId));
  const agreeing = new Map<string, { entries: number; live: boolean; shared: boolean }>();
  for (const s of sessions) {
    const ids = index.candidates(s.maskedId);
    for (const id of ids) {
      const a = agreeing.get(id) ?? { entries: 0, live: false, shared: false };
      a.entries++;
      a.live ||= isLive(s);
      a.shared ||= ids.length > 1 && isLive(s);
      agreeing.set(id, a);
    }
  }
  return [...agreeing].filter(([, a]) => a.live && (a.entries > 1 || a.shared)).map(([id]) => id);
}

/**
 * The account's side of the audit: one list call; one read of each recorded vmId the list cannot settle
 * (ambiguousRecorded: rare, a masked-id collision); and one image call (no key) only when a pending create
 * names a browser id that has to be set against the list's display names. A read that fails leaves its vmId
 * unsettled, which the report counts as unclear.
 */
export async function readAccount(
  client: RemoteBrowserClient,
  pending: PendingCreate[],
  recorded: ReadonlyArray<{ vmId: string }> = [],
): Promise<{ sessions: ListedSession[]; browserNames: Map<string, string>; recordedStates: Map<string, RecordedState>; calls: number; reads: number }> {
  const sessions = (await client.sessions()).map(listedSession);
  let calls = 1;
  const recordedStates = new Map<string, RecordedState>();
  for (const vmId of ambiguousRecorded(sessions, recorded)) {
    calls++;
    const entry = await client.session(vmId).catch(() => null);
    if (entry !== null) recordedStates.set(vmId, entry && !hasEndedOrFailed(entry.status) ? "live" : "gone");
  }
  const reads = calls - 1;
  if (!pending.some((p) => p.browser !== undefined)) return { sessions, browserNames: new Map(), recordedStates, calls, reads };
  const images = await client.images();
  return { sessions, browserNames: new Map(images.images.map((i) => [i.id, i.name])), recordedStates, calls: calls + 1, reads };
}
