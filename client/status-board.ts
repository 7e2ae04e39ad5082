import type { SessionEntry } from "./schemas";
import { MaskedIdIndex } from "./masked-id";

/**
 * Status polls of the sessions one process waits for, gathered on a shared tick. Looks asked for in the
 * same turn of the event loop, or while the previous tick still waits for its turn in the request budget,
 * go out together when the budget lets the tick through: from `LIST_FROM` waiting sessions on, as one
 * list of the account's sessions instead of one read each.
 *
 * The list shows ids partly masked, and the spec promises neither that it is complete nor that it is
 * current: a session's own entry may be missing (a list that lags or is capped) while another session's
 * agrees with its visible characters. So a waiting session takes its state from the list only when
 * - exactly one listed entry agrees with its id (masked-id.ts), and that entry agrees with no other
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
 * Twice the wait's longest interval between looks (5 s, core/wait.ts): a session waiting longer than this is
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
