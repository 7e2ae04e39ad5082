import {
  type AccountAnswer,
  type CreateAnswer,
  type CreateRequest,
  type ImagesAnswer,
  type QuotaAnswer,
  type SessionEntry,
  type V7AccountAnswer,
  type V7CreateAnswer,
  type V7CreateRequest,
  type V7QuotaAnswer,
  accountAnswerSchema,
  createAnswerSchema,
  createRequestSchema,
  imagesAnswerSchema,
  quotaAnswerSchema,
  removeAnswerSchema,
  removeRequestSchema,
  sessionsAnswerSchema,
  v7AccountAnswerSchema,
  v7CreateAnswerSchema,
  v7CreateRequestSchema,
  v7QuotaAnswerSchema,
} from "./schemas";
import { RemoteBrowserError } from "./errors";
import { Transport, type TransportOptions, type Call } from "./transport";
import { HeldTurn } from "./rate-budget";
import type { z } from "zod";

export type ApiVersion = "v8" | "v7";

/**
 * Joins a service address and a version: the address may already end in `/v8` or `/v7`
 * (the form the service documents) or be the bare service root.
 */
export function versionedBaseUrl(baseUrl: string, version: ApiVersion): string {
  return `${baseUrl.replace(/\/+$/, "").replace(/\/v\d+$/, "")}/${version}`;
}

export interface ClientOptions extends Omit<TransportOptions, "baseUrl"> {
  /** The service address, with or without its version segment. */
  baseUrl: string;
}

/** Version 8 of the API: every operation the provider and the data sources use. */
export class RemoteBrowserClient {
  readonly transport: Transport;
  readonly v7: V7Client;
  /** The polls of sessions waited for, gathered on one tick (StatusBoard, below). */
  readonly polls: StatusBoard;

  constructor(opts: ClientOptions) {
    this.transport = new Transport({ ...opts, baseUrl: versionedBaseUrl(opts.baseUrl, "v8") });
    // Both versions' calls count against the one budget of the key.
    this.v7 = new V7Client(new Transport({ ...opts, budget: this.transport.budget, baseUrl: versionedBaseUrl(opts.baseUrl, "v7") }));
    this.polls = new StatusBoard({
      turn: async () => void (await this.transport.budget.acquire("poll")),
      read: (vmId, taken) => this.readSession(vmId, { priority: "poll", turn: taken ? new HeldTurn() : undefined }),
      list: () => this.listSessions({ priority: "poll", turn: new HeldTurn() }),
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.transport.close(), this.v7.close()]);
  }

  /** Browser images, exit locations and the residential descriptor. Needs no key. */
  images(signal?: AbortSignal): Promise<ImagesAnswer> {
    return this.transport.send({
      operation: "list images",
      method: "GET",
      path: "image",
      auth: false,
      idempotent: true,
      schema: imagesAnswerSchema,
      signal,
    });
  }

  /**
   * Starts a session. Retried on transient faults only when the request carries an idempotency key,
   * so that a lost answer can never start a second session.
   */
  createSession(req: CreateRequest, o: Pick<Call<CreateAnswer>, "signal" | "onServerTime" | "retryWithinMs"> = {}): Promise<CreateAnswer> {
    const { signal, onServerTime, retryWithinMs } = o;
    return this.transport.send({
      onServerTime,
      retryWithinMs,
      operation: "create session",
      method: "POST",
      path: "vm/create",
      body: validRequest(createRequestSchema, req, "create session"),
      auth: true,
      idempotent: req.idempotencyKey !== undefined,
      schema: createAnswerSchema,
      signal,
    });
  }

  /** The session's status entry, or undefined when the service knows no such session. */
  session(vmId: string, signal?: AbortSignal): Promise<SessionEntry | undefined> {
    return this.readSession(vmId, { signal });
  }

  /**
   * A look at a session being waited for: like `session`, but behind creates and removes in the request
   * budget, and gathered with the other waiting sessions' looks (StatusBoard, below).
   */
  pollSession(vmId: string): Promise<SessionEntry | undefined> {
    return this.polls.look(vmId);
  }

  /**
   * The spec says the answer lists "only that session", but a service or a proxy that answers with the
   * account's list (newest first, ids masked) would hand a refresh another session's state: a newer, ended
   * one's `deleted` would drop this running session from the stack. So an entry is this session's only when
   * it is the answer's one entry and its id agrees with `vmId` (maskedIdMatches, below); an empty answer is the spec's
   * "no such session". Any other answer is asked again, `READ_ATTEMPTS` times in all, and then fails -- a
   * failed read keeps the session where it is recorded, which "gone" would not.
   */
  private async readSession(vmId: string, o: { signal?: AbortSignal; priority?: "poll"; turn?: HeldTurn }): Promise<SessionEntry | undefined> {
    const read = await this.statusRead(vmId, o);
    if (read.kind !== "unproven") return read.entry;
    throw new RemoteBrowserError("invalid_answer", `${unprovenText(read)} (a refresh keeps the session as recorded)`, { operation: "read session status", vmId });
  }

  /**
   * A session's status, read as `session` reads it, but with an answer that does not prove it handed back
   * as such (`unproven`, with the entries that agree with the id) instead of failing: for the callers that
   * decide for themselves what an unproven status means (a refresh keeps the record; an import takes the one
   * agreeing entry).
   */
  async statusRead(vmId: string, o: { signal?: AbortSignal; priority?: "poll"; turn?: HeldTurn } = {}): Promise<StatusRead> {
    let last: SessionEntry[] = [];
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const answer = await this.transport.send({
        ...o,
        operation: "read session status",
        method: "GET",
        path: "vm/data",
        query: { id: vmId },
        auth: true,
        idempotent: true,
        vmId,
        schema: sessionsAnswerSchema,
      });
      const entry = provenEntry(answer.data, vmId);
      if (entry === undefined) return { kind: "none" };
      if (entry !== NOT_PROVEN) return { kind: "found", entry };
      last = answer.data;
    }
    return { kind: "unproven", listed: last.length, agreeing: last.filter((e) => e.id === vmId || maskedIdMatches(e.id, vmId)) };
  }

  /** The account's sessions of the last month, newest first (ids partly masked by the service). */
  sessions(signal?: AbortSignal): Promise<SessionEntry[]> {
    return this.listSessions({ signal });
  }

  private async listSessions(o: { signal?: AbortSignal; priority?: "poll"; turn?: HeldTurn }): Promise<SessionEntry[]> {
    const answer = await this.transport.send({
      ...o,
      operation: "list sessions",
      method: "GET",
      path: "vm/data",
      auth: true,
      idempotent: true,
      schema: sessionsAnswerSchema,
    });
    return answer.data;
  }

  /** Ends a session. Ending an ended session succeeds; an unknown one is refused with `denied`. */
  async removeSession(vmId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.send({
      operation: "end session",
      method: "POST",
      path: "vm/remove",
      body: validRequest(removeRequestSchema, { id: vmId }, "end session"),
      auth: true,
      // Ending twice answers ok: repeating it has no second effect.
      idempotent: true,
      vmId,
      schema: removeAnswerSchema,
      signal,
    });
  }

  account(signal?: AbortSignal): Promise<AccountAnswer> {
    return this.transport.send({
      operation: "read account",
      method: "GET",
      path: "user/api",
      auth: true,
      idempotent: true,
      schema: accountAnswerSchema,
      signal,
    });
  }

  quota(signal?: AbortSignal): Promise<QuotaAnswer> {
    return this.transport.send({
      operation: "read quota",
      method: "GET",
      path: "user/quota",
      auth: true,
      idempotent: true,
      schema: quotaAnswerSchema,
      signal,
    });
  }
}

/** How often a session's status is asked for before an answer that is not provably about it fails the read. */
export const READ_ATTEMPTS = 3;

/**
 * A status read's outcome: the session's own entry, the spec's "no such session" (an empty answer), or
 * answers that did not prove either (`listed`: the last one's length; `agreeing`: its entries whose masked
 * id agrees with the id asked about).
 */
export type StatusRead = { kind: "found"; entry: SessionEntry } | { kind: "none"; entry?: undefined } | { kind: "unproven"; listed: number; agreeing: SessionEntry[]; entry?: undefined };

/** What an unproven status read means, in the words every message about one uses. */
export function unprovenText(read: Extract<StatusRead, { kind: "unproven" }>): string {
  return `${READ_ATTEMPTS} status answers for this id did not list it alone (the last: ${read.listed} entries, none provably this session); its state is unknown, so nothing is concluded from them`;
}

const NOT_PROVEN = Symbol("not proven");

/**
 * The session's entry in a status answer asked for by its id: undefined for an empty answer (the service
 * knows no such session), the entry when it is the only one and agrees with the id, NOT_PROVEN otherwise.
 */
function provenEntry(data: SessionEntry[], vmId: string): SessionEntry | undefined | typeof NOT_PROVEN {
  if (data.length === 0) return undefined;
  const only = data.length === 1 ? data[0]! : undefined;
  return only && (only.id === vmId || maskedIdMatches(only.id, vmId)) ? only : NOT_PROVEN;
}

/** Version 7: create, account and quota only; it has no status, end or image operations. */
export class V7Client {
  constructor(readonly transport: Transport) {}

  close(): Promise<void> {
    return this.transport.close();
  }

  /** Never retried: version 7 has no idempotency key, so a repeated create could start a second session. */
  createSession(req: V7CreateRequest, signal?: AbortSignal): Promise<V7CreateAnswer> {
    return this.transport.send({
      operation: "create session (v7)",
      method: "POST",
      path: "vm/create",
      body: validRequest(v7CreateRequestSchema, req, "create session (v7)"),
      auth: true,
      idempotent: false,
      schema: v7CreateAnswerSchema,
      signal,
    });
  }

  account(signal?: AbortSignal): Promise<V7AccountAnswer> {
    return this.transport.send({
      operation: "read account (v7)",
      method: "GET",
      path: "user/api",
      auth: true,
      idempotent: true,
      schema: v7AccountAnswerSchema,
      signal,
    });
  }

  quota(signal?: AbortSignal): Promise<V7QuotaAnswer> {
    return this.transport.send({
      operation: "read quota (v7)",
      method: "GET",
      path: "user/quota",
      auth: true,
      idempotent: true,
      schema: v7QuotaAnswerSchema,
      signal,
    });
  }
}

function validRequest<T>(schema: z.ZodType<T>, req: unknown, operation: string): T {
  const parsed = schema.safeParse(req);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`).join("; ");
  throw new RemoteBrowserError("invalid_request", `invalid request (${fields})`, { operation });
}

/**
 * Status polls of the sessions one process waits for, gathered on a shared tick. Looks asked for in the
 * same turn of the event loop, or while the previous tick still waits for its turn in the request budget,
 * go out together when the budget lets the tick through: from `LIST_FROM` waiting sessions on, as one
 * list of the account's sessions instead of one read each.
 *
 * The list shows ids partly masked, and the spec promises neither that it is complete nor that it is
 * current: a session's own entry may be missing (a list that lags or is capped) while another session's
 * agrees with its visible characters. So a waiting session takes its state from the list only when
 * - exactly one listed entry agrees with its id (maskedIdMatches, below), and that entry agrees with no other
 *   waiting session;
 * - the entry was created when the session was, once a read of the session has told when that was;
 * - the entry says `starting`, which only means "look again later" -- and only that is taken, never the
 *   entry's other fields (its location, say, could be another session's);
 * - the session has been answered from the list for less than `FROM_LIST_FOR_MS` since it was last read
 *   on its own.
 * Every other look is a read of that very id, so what a wait decides on is always the service's answer
 * for it; a list that is wrong, stale or missing the session can only delay that answer, by the bound.
 */
export interface StatusSource {
  /** The next turn of a status call in the request budget. */
  turn(): Promise<void>;
  /** One session's entry; `taken`: the call's turn was already had. */
  read(vmId: string, taken: boolean): Promise<SessionEntry | undefined>;
  /** The account's sessions, newest first; the turn was already had. */
  list(): Promise<SessionEntry[]>;
}

/** Below this many sessions waiting, reads one by one cost no more than a list (whose answer can be long). */
export const LIST_FROM = 3;

/**
 * How long a session may be answered from the list since it was last read on its own (or first looked at).
 * Twice the wait's longest interval between looks (5 s, core/launch.ts): a session waiting longer than this is
 * read on its own at least every other look, so a list that lags, lacks the session's entry or shows another
 * session's in its place delays noticing it running by at most this plus one look -- far inside the readiness
 * time-out (300 s by default) -- while the sessions of a busy key, which wait seconds, keep the whole saving.
 */
export const FROM_LIST_FOR_MS = 10_000;

interface Pending {
  vmId: string;
  resolve: (entry: SessionEntry | undefined) => void;
  reject: (err: unknown) => void;
}

/** What the board knows of a session it has looked at. */
interface Seen {
  /** When its own read (or first look) was. */
  readAt: number;
  /** Its creation time as the service gives it (`created`), once a read told it. */
  created?: string;
  lastLook: number;
}

export interface BoardCounts {
  ticks: number;
  lists: number;
  reads: number;
  /** Looks answered by a list. */
  fromList: number;
  /** Listed entries looked at, over all ticks (the scan stops at the oldest waiting session). */
  scanned: number;
}

export class StatusBoard {
  private pending: Pending[] = [];
  private ticking = false;
  private readonly seen = new Map<string, Seen>();
  readonly counts: BoardCounts = { ticks: 0, lists: 0, reads: 0, fromList: 0, scanned: 0 };

  constructor(
    private readonly source: StatusSource,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The account's sessions, listed once for the board's process on a poll turn of its own, and the same
   * answer (or failure) to every later ask: for what asks about many recorded sessions at once (a dynamic
   * provider's diffs), which one list costs the service far less than a read each. Not current: an entry
   * taken from it is a hint, never proof.
   */
  listedOnce(): Promise<SessionEntry[]> {
    if (!this.listed) {
      this.counts.lists++;
      this.listed = this.source.turn().then(() => this.source.list());
      this.listed.catch(() => undefined);
    }
    return this.listed;
  }

  private listed?: Promise<SessionEntry[]>;

  /** The session's status entry at the next tick; undefined when the service knows no such session. */
  look(vmId: string): Promise<SessionEntry | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({ vmId, resolve, reject });
      if (!this.ticking) {
        this.ticking = true;
        // Looks asked for in this turn of the event loop join the tick.
        setImmediate(() => void this.tick());
      }
    });
  }

  private async tick(): Promise<void> {
    try {
      await this.source.turn();
    } catch (err) {
      const failed = this.pending;
      this.pending = [];
      this.ticking = false;
      for (const p of failed) p.reject(err);
      return;
    }
    const batch = this.pending;
    this.pending = [];
    this.ticking = false;
    this.counts.ticks++;
    this.forgetIdle();
    if (batch.length >= LIST_FROM) void this.byList(batch);
    else batch.forEach((p, i) => void this.alone(p, i === 0));
  }

  private async byList(batch: Pending[]): Promise<void> {
    let entries: SessionEntry[] | undefined;
    try {
      this.counts.lists++;
      entries = await this.source.list();
    } catch {
      // The list is only a shortcut: each session is read on its own instead.
    }
    const rest = entries ? this.settleFromList(batch, entries) : batch;
    rest.forEach((p) => void this.alone(p, false));
  }

  /** Resolves the looks the list answers beyond doubt; returns the others. */
  private settleFromList(batch: Pending[], entries: readonly SessionEntry[]): Pending[] {
    const now = this.now();
    const seenOf = (vmId: string): Seen => {
      let s = this.seen.get(vmId);
      if (!s) this.seen.set(vmId, (s = { readAt: now, lastLook: now }));
      s.lastLook = now;
      return s;
    };
    const ids = [...new Set(batch.map((p) => p.vmId))];
    const eligible = new Set(ids.filter((id) => now - seenOf(id).readAt < FROM_LIST_FOR_MS));
    const found = new Map<string, SessionEntry[]>(ids.map((id) => [id, []]));
    if (eligible.size) {
      // Newest first: past the oldest creation time of the sessions waiting, no entry can be one of them.
      // While one of them has no known creation time the whole list is looked at (its first list tick).
      const created = [...eligible].map((id) => this.seen.get(id)!.created);
      const oldest = created.reduce((min, c) => (c === undefined ? -Infinity : Math.min(min, Date.parse(c))), Infinity);
      // Every waiting id, not only those the list may answer: an entry that agrees with one past its bound
      // may be that one's, and then tells the others nothing.
      const index = new MaskedIdIndex(ids);
      for (const entry of entries) {
        const at = Date.parse(entry.created);
        if (at < oldest) break;
        this.counts.scanned++;
        const candidates = index.candidates(entry.id).filter((id) => {
          const c = this.seen.get(id)!.created;
          return c === undefined || c === entry.created;
        });
        for (const id of candidates) found.get(id)!.push(entry);
        // An entry two waiting sessions agree with tells neither apart: both are read on their own.
        if (candidates.length > 1) for (const id of candidates) found.get(id)!.push(entry);
      }
    }
    const rest: Pending[] = [];
    for (const p of batch) {
      const list = found.get(p.vmId)!;
      const entry = eligible.has(p.vmId) && list.length === 1 ? list[0]! : undefined;
      if (entry && entry.status === "starting") {
        this.counts.fromList++;
        this.seen.get(p.vmId)!.created ??= entry.created;
        p.resolve({ id: p.vmId, status: "starting", name: entry.name, created: entry.created });
      } else rest.push(p);
    }
    return rest;
  }

  private async alone(p: Pending, taken: boolean): Promise<void> {
    this.counts.reads++;
    try {
      const entry = await this.source.read(p.vmId, taken);
      const now = this.now();
      // Its own read: the bound starts again, and the creation time is now the service's for this id.
      this.seen.set(p.vmId, { readAt: now, lastLook: now, ...(entry ? { created: entry.created } : {}) });
      p.resolve(entry);
    } catch (err) {
      p.reject(err);
    }
  }

  /** A session not looked at for a while is no longer waited for: what the board knew of it goes. */
  private forgetIdle(): void {
    const now = this.now();
    for (const [id, s] of this.seen) if (now - s.lastLook > 2 * FROM_LIST_FOR_MS) this.seen.delete(id);
  }
}

/**
 * The service lists the account's sessions with their ids "partly masked" and does not say how. All this
 * package assumes is that a masked id shows some of the id's characters and hides the others behind mask
 * characters: a run of them stands for one or more hidden characters. A listed session is then a candidate
 * for a known vmId when every visible character agrees, in order. Several vmIds can agree with one masked
 * id (and one vmId with several listed sessions): callers count such collisions instead of guessing.
 */

/** Characters a service uses to hide part of an id. */
const MASK = "*•…";
const MASK_RUN = /[*•…]+/u;

/**
 * The masked id's visible pieces, in order: the text before the first run of mask characters, between each
 * two runs, and after the last (the first and last may be empty).
 */
export function visiblePieces(masked: string): string[] {
  return masked.split(MASK_RUN);
}

/**
 * Whether `vmId` could be the session listed as `masked`: every visible character agrees, and each run of
 * mask characters stands for at least one character.
 */
export function maskedIdMatches(masked: string, vmId: string): boolean {
  return matchMaskedId(masked, vmId).matches;
}

/**
 * maskedIdMatches with the number of character comparisons it made. Each visible piece is taken at its
 * leftmost place after the one before it -- that leaves the most room for the rest, so no other placement
 * is ever tried -- and found by a scan that never steps back in the id (Knuth-Morris-Pratt), so the work is
 * linear in the lengths of both ids. The regular expression this replaces (`.+` between the pieces)
 * backtracked: cubic in the id's length from three masked runs on, and worse with each further run.
 */
export function matchMaskedId(masked: string, vmId: string): { matches: boolean; comparisons: number } {
  const pieces = visiblePieces(masked);
  let comparisons = 0;
  const result = (matches: boolean) => ({ matches, comparisons });
  if (pieces.length === 1) {
    comparisons += Math.min(masked.length, vmId.length);
    return result(masked === vmId);
  }
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  comparisons += first.length;
  if (!vmId.startsWith(first)) return result(false);
  let at = first.length;
  for (const piece of pieces.slice(1, -1)) {
    const found = indexOfFrom(vmId, piece, at + 1, () => comparisons++);
    if (found < 0) return result(false);
    at = found + piece.length;
  }
  comparisons += last.length;
  return result(vmId.length - last.length >= at + 1 && vmId.endsWith(last));
}

/** Where `piece` (not empty) first occurs in `text` from `from` on, or -1; `compared` is called per comparison. */
function indexOfFrom(text: string, piece: string, from: number, compared: () => void): number {
  // The longest proper prefix of piece[0..i] that is also its suffix, for each i.
  const border = new Array<number>(piece.length).fill(0);
  for (let i = 1, k = 0; i < piece.length; i++) {
    while (k > 0 && (compared(), piece[i] !== piece[k])) k = border[k - 1]!;
    compared();
    if (piece[i] === piece[k]) k++;
    border[i] = k;
  }
  for (let i = from, k = 0; i < text.length; i++) {
    while (k > 0 && (compared(), text[i] !== piece[k])) k = border[k - 1]!;
    compared();
    if (text[i] === piece[k]) k++;
    if (k === piece.length) return i - piece.length + 1;
  }
  return -1;
}

/** Whether an id hides part of itself (has a mask character): then it cannot address a session. */
export function isMasked(id: string): boolean {
  return [...id].some((c) => MASK.includes(c));
}

/**
 * Known vmIds, indexed by their visible ends, so that a listed entry is compared only with the ids that
 * share its last visible characters (or its first ones, when the mask runs to the end) instead of with
 * every id: a list of N entries against W ids then costs about N lookups, not N × W matches. Each length
 * of visible end the entries show builds its index once.
 */
export class MaskedIdIndex {
  private readonly whole: Set<string>;
  private readonly byEnd = new Map<string, Map<string, string[]>>();

  constructor(ids: Iterable<string>) {
    this.whole = new Set(ids);
  }

  /** The ids that `masked` may stand for (maskedIdMatches), each once. */
  candidates(masked: string): string[] {
    const pieces = visiblePieces(masked);
    if (pieces.length === 1) return this.whole.has(masked) ? [masked] : [];
    const first = pieces[0]!;
    const last = pieces[pieces.length - 1]!;
    const near = last ? this.sharing("end", last) : first ? this.sharing("start", first) : [...this.whole];
    return near.filter((id) => maskedIdMatches(masked, id));
  }

  private sharing(side: "start" | "end", visible: string): string[] {
    const n = visible.length;
    const key = `${side}:${n}`;
    let index = this.byEnd.get(key);
    if (!index) {
      index = new Map();
      for (const id of this.whole) {
        const end = side === "end" ? id.slice(-n) : id.slice(0, n);
        if (id.length < n) continue;
        const list = index.get(end);
        if (list) list.push(id);
        else index.set(end, [id]);
      }
      this.byEnd.set(key, index);
    }
    return index.get(visible) ?? [];
  }
}
