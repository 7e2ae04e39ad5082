import type { Account, AccountSpec } from "./accounts";
import { Accounts } from "./accounts";
import { Books } from "./books";
import { Exits } from "./catalog";
import { Faults } from "./faults";
import type { UsageMeter } from "./types";
import { poolMeter, residentialRoom, sumMeters } from "./meters";
import type { Random } from "./random";
import { RateLimiter } from "./rate-limit";
import type { Session } from "./sessions";
import { Sessions } from "./sessions";
import type { Settings } from "./settings";
import type { Latitude } from "./latitude";
import { isActive } from "./types";

/** Everything the emulator knows; the API, viewer and control surface all work on one instance. */
export class EmulatorState {
  readonly accounts = new Accounts();
  readonly exits = new Exits();
  readonly books = new Books();
  readonly faults = new Faults();
  readonly rateLimiter: RateLimiter;
  readonly sessions: Sessions;
  readonly defaultAccount: Account;
  /** Timers of delayed answers, cleared on close. */
  readonly pendingDelays = new Set<NodeJS.Timeout>();
  shareBase = "";
  /** The latitude profile (latitude.ts), when the emulator was started with it. */
  latitude?: Latitude;
  private readonly initialSettings: Settings;
  private readonly initialDefaultLimits: { runningLimit: number; cycleLimit: number | null };

  constructor(
    readonly settings: Settings,
    defaultAccount: AccountSpec,
    readonly random: Random,
  ) {
    this.initialSettings = { ...settings };
    this.initialDefaultLimits = {
      runningLimit: defaultAccount.runningLimit ?? 5,
      cycleLimit: defaultAccount.cycleLimit ?? null,
    };
    this.rateLimiter = new RateLimiter(() => this.settings.rateLimit);
    this.sessions = new Sessions({
      settings,
      exits: this.exits,
      random,
      residentialRoom: (s) => this.residentialRoomOf(s),
      onChange: (s) => this.books.notePeak(this.activeCount(s.accountId)),
    });
    this.defaultAccount = this.accounts.add(defaultAccount);
  }

  poolMeters(account: Account, now = Date.now()): UsageMeter[] {
    const sessions = this.sessions.ofAccount(account.id);
    return account.pools.map((pool, i) => poolMeter(pool, i, sessions, now));
  }

  meter(account: Account, now = Date.now()): UsageMeter {
    this.sessions.accrue();
    return sumMeters(this.poolMeters(account, now), now);
  }

  activeCount(accountId: string): number {
    return this.sessions.ofAccount(accountId).filter((s) => isActive(s.status)).length;
  }

  private residentialRoomOf(session: Session): number {
    const account = this.accounts.get(session.accountId);
    if (!account || !account.pools[session.poolIndex]) return 0;
    const pool = account.pools[session.poolIndex]!;
    return residentialRoom(poolMeter(pool, session.poolIndex, this.sessions.ofAccount(account.id), Date.now()));
  }

  /**
   * Back to a clean service: no sessions, logs, faults, counters or idempotency keys; settings and the
   * default account's limits return to their start values. Added accounts stay.
   */
  reset(): void {
    this.sessions.clear();
    this.books.reset();
    this.faults.clear();
    this.rateLimiter.clear();
    this.latitude?.clear();
    Object.assign(this.settings, this.initialSettings);
    this.exits.restoreCapacity();
    this.accounts.setLimits(this.defaultAccount, this.initialDefaultLimits);
    for (const account of this.accounts.all()) account.idempotency.clear();
  }

  close(): void {
    this.sessions.clear();
    for (const t of this.pendingDelays) clearTimeout(t);
    this.pendingDelays.clear();
  }
}
