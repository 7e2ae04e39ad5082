import type { SessionEntry } from "./schemas";
import { maskedIdMatches } from "./masked-id";

/**
 * Status polls of the sessions one process waits for, gathered on a shared tick. Looks asked for in the
 * same turn of the event loop, or while the previous tick still waits for its turn in the request budget,
 * go out together when the budget lets the tick through: from `LIST_FROM` waiting sessions on, as one
 * list of the account's sessions instead of one read each.
 *
 * The list shows ids partly masked. A waiting session takes its state from the list only when that is
 * beyond doubt: exactly one listed entry agrees with its id, that entry agrees with no other waiting
 * session, and it says `starting` -- which only means "look again later". Every other case (no entry,
 * several, or a state that ends the wait) is read on its own, so what the wait decides on is always the
 * service's answer for that very id.
 */
export interface StatusSource {
  /** The next turn of a status call in the request budget. */
  turn(): Promise<void>;
  /** One session's entry; `taken`: the call's turn was already had. */
  read(vmId: string, taken: boolean): Promise<SessionEntry | undefined>;
  /** The account's sessions; the turn was already had. */
  list(): Promise<SessionEntry[]>;
}

/** Below this many sessions waiting, reads one by one cost no more than a list (whose answer can be long). */
export const LIST_FROM = 3;

interface Pending {
  vmId: string;
  resolve: (entry: SessionEntry | undefined) => void;
  reject: (err: unknown) => void;
}

export interface BoardCounts {
  ticks: number;
  lists: number;
  reads: number;
  /** Looks answered by a list. */
  fromList: number;
}

export class StatusBoard {
  private pending: Pending[] = [];
  private ticking = false;
  readonly counts: BoardCounts = { ticks: 0, lists: 0, reads: 0, fromList: 0 };

  constructor(private readonly source: StatusSource) {}

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
  private settleFromList(batch: Pending[], entries: SessionEntry[]): Pending[] {
    const ids = [...new Set(batch.map((p) => p.vmId))];
    const candidates = new Map<string, SessionEntry[]>(ids.map((id) => [id, []]));
    const claimedBy = new Map<SessionEntry, number>();
    for (const entry of entries) {
      for (const id of ids) {
        if (!maskedIdMatches(entry.id, id)) continue;
        candidates.get(id)!.push(entry);
        claimedBy.set(entry, (claimedBy.get(entry) ?? 0) + 1);
      }
    }
    const rest: Pending[] = [];
    for (const p of batch) {
      const found = candidates.get(p.vmId)!;
      const entry = found.length === 1 && claimedBy.get(found[0]) === 1 ? found[0] : undefined;
      if (entry && entry.status === "starting") {
        this.counts.fromList++;
        p.resolve({ ...entry, id: p.vmId });
      } else rest.push(p);
    }
    return rest;
  }

  private async alone(p: Pending, taken: boolean): Promise<void> {
    this.counts.reads++;
    try {
      p.resolve(await this.source.read(p.vmId, taken));
    } catch (err) {
      p.reject(err);
    }
  }
}
