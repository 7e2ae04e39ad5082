import type { Exits } from "./catalog";
import type { Random } from "./random";
import type { Settings } from "./settings";
import type { ApiVersion, SessionStatus, ShareLocale } from "./types";
import { isActive } from "./types";

/** A session as the emulator knows it, unmasked. */
export interface Session {
  seq: number;
  vmId: string;
  accountId: string;
  poolIndex: number;
  apiVersion: ApiVersion;
  status: SessionStatus;
  browser: string;
  browserName: string;
  url: string | null;
  language: string;
  layout: string;
  country: string | null;
  egress: string | null;
  shareLanguage: ShareLocale;
  callbackUrl: string | null;
  linkId: string;
  idempotencyKey: string | null;
  created: number;
  runningAt: number | null;
  endedAt: number | null;
  /** Whether a country was asked for: only then does the status entry carry location fields. */
  locationRequested: boolean;
  locationApplied: boolean;
  locationReason: "unavailable" | null;
  /** City whose exit the session holds, released when it stops occupying a slot. */
  exitCode: string | null;
  /** Whole bytes: a pool's room is whole bytes, so a sum of fractions can never round past it. */
  residentialBytes: number;
  /** The fraction of a byte accrued but not yet counted. */
  residentialCarry: number;
  /** Decided when preparation begins, so "fail the next N" hits the next N sessions created. */
  failPreparation: boolean;
}

export type NewSession = Omit<Session, "seq" | "status" | "runningAt" | "endedAt" | "residentialBytes" | "residentialCarry" | "failPreparation">;

export interface PreparationControl {
  failNext: number;
  paused: boolean;
}

/** Fixed prefix of session ids; the rest is random hex. */
export const VM_ID_PREFIX = "vm-";

export interface SessionsDeps {
  settings: Settings;
  exits: Exits;
  random: Random;
  /** Bytes a session may still use from its pool's residential allowance. */
  residentialRoom(session: Session): number;
  /** Called after any state change so the books can track peaks. */
  onChange(session: Session): void;
}

const ACCRUAL_TICK_MS = 100;

/** Session store plus the background work that moves sessions between states. */
export class Sessions {
  private readonly byId = new Map<string, Session>();
  private readonly byLink = new Map<string, Session>();
  private readonly prepTimers = new Map<string, NodeJS.Timeout>();
  private readonly stopTimers = new Map<string, NodeJS.Timeout>();
  /** Sessions whose preparation finished while preparation was paused. */
  private readonly held = new Set<string>();
  private accrualTimer: NodeJS.Timeout | null = null;
  private lastAccrual = 0;
  private seq = 0;
  readonly preparation: PreparationControl = { failNext: 0, paused: false };

  constructor(private readonly deps: SessionsDeps) {}

  newVmId(): string {
    for (;;) {
      const id = VM_ID_PREFIX + this.deps.random.hex(12);
      if (!this.byId.has(id)) return id;
    }
  }

  add(input: NewSession): Session {
    const failPreparation = this.preparation.failNext > 0;
    if (failPreparation) this.preparation.failNext--;
    const session: Session = {
      ...input,
      seq: ++this.seq,
      status: "starting",
      runningAt: null,
      endedAt: null,
      residentialBytes: 0,
      residentialCarry: 0,
      failPreparation,
    };
    this.byId.set(session.vmId, session);
    this.byLink.set(session.linkId, session);
    this.schedulePreparation(session);
    this.deps.onChange(session);
    return session;
  }

  /**
   * Puts back a session recorded elsewhere (a stack's state from an earlier run), as it was: no
   * preparation is scheduled for one that is already running.
   */
  restore(input: NewSession, status: SessionStatus): Session {
    if (this.byId.has(input.vmId)) throw new Error(`vmId: session ${input.vmId} exists already`);
    const now = Date.now();
    const session: Session = {
      ...input,
      seq: ++this.seq,
      status,
      runningAt: status === "running" ? now : null,
      endedAt: null,
      residentialBytes: 0,
      residentialCarry: 0,
      failPreparation: false,
    };
    this.byId.set(session.vmId, session);
    this.byLink.set(session.linkId, session);
    if (status === "starting") this.schedulePreparation(session);
    // From now on, not from the last accrual: that may be long past, and would charge the whole allowance.
    if (status === "running" && session.egress === "residential") this.startAccrual();
    this.deps.onChange(session);
    return session;
  }

  get(vmId: string): Session | undefined {
    return this.byId.get(vmId);
  }

  byLinkId(linkId: string): Session | undefined {
    return this.byLink.get(linkId);
  }

  all(): Session[] {
    return [...this.byId.values()];
  }

  ofAccount(accountId: string): Session[] {
    return this.all().filter((s) => s.accountId === accountId);
  }

  /**
   * The end call. A starting or running session goes to `stopping`, then to `deleted` after stopMs
   * (the API reference leaves the end state open; stopping then deleted is the common path).
   */
  end(session: Session): void {
    if (!isActive(session.status)) return;
    this.transition(session, "stopping");
    const timer = setTimeout(() => {
      this.stopTimers.delete(session.vmId);
      if (session.status === "stopping") this.transition(session, "deleted");
    }, this.deps.settings.stopMs);
    timer.unref();
    this.stopTimers.set(session.vmId, timer);
  }

  /** Out-of-band end: the session is gone at once, as if the service had deleted it. */
  endNow(session: Session): void {
    this.transition(session, "deleted");
  }

  /** Forces a state; `starting` restarts preparation so the session can still become running. */
  force(session: Session, status: SessionStatus): void {
    this.transition(session, status);
    if (status === "starting") {
      session.failPreparation = false;
      this.schedulePreparation(session);
    }
  }

  setPreparation(change: Partial<PreparationControl>): PreparationControl {
    if (change.failNext !== undefined) this.preparation.failNext = change.failNext;
    if (change.paused !== undefined) {
      this.preparation.paused = change.paused;
      if (!change.paused) {
        const held = [...this.held];
        this.held.clear();
        for (const id of held) {
          const session = this.byId.get(id);
          if (session) this.finishPreparation(session);
        }
      }
    }
    return { ...this.preparation };
  }

  /** Drops every session and timer (reset and close). */
  clear(): void {
    for (const t of this.prepTimers.values()) clearTimeout(t);
    for (const t of this.stopTimers.values()) clearTimeout(t);
    this.prepTimers.clear();
    this.stopTimers.clear();
    this.held.clear();
    this.stopAccrual();
    this.byId.clear();
    this.byLink.clear();
    this.deps.exits.clearUsage();
    this.preparation.failNext = 0;
    this.preparation.paused = false;
  }

  private schedulePreparation(session: Session): void {
    const { prepMs, prepJitterMs } = this.deps.settings;
    const jitter = prepJitterMs > 0 ? (this.deps.random.next() * 2 - 1) * prepJitterMs : 0;
    const delay = Math.max(0, Math.round(prepMs + jitter));
    const timer = setTimeout(() => {
      this.prepTimers.delete(session.vmId);
      if (session.status !== "starting") return;
      if (this.preparation.paused) this.held.add(session.vmId);
      else this.finishPreparation(session);
    }, delay);
    timer.unref();
    this.prepTimers.set(session.vmId, timer);
  }

  private finishPreparation(session: Session): void {
    if (session.status !== "starting") return;
    this.transition(session, session.failPreparation ? "error" : "running");
  }

  private transition(session: Session, status: SessionStatus): void {
    if (session.status === status) return;
    const wasActive = isActive(session.status);
    if (session.status === "running" && session.egress === "residential") this.accrue();
    session.status = status;
    const now = Date.now();
    if (status === "running") session.runningAt ??= now;
    if (!isActive(status)) {
      if (wasActive) session.endedAt = now;
      if (session.exitCode !== null) {
        this.deps.exits.release(session.exitCode);
        session.exitCode = null;
      }
      this.clearTimer(this.prepTimers, session.vmId);
      this.held.delete(session.vmId);
    }
    if (status !== "stopping") this.clearTimer(this.stopTimers, session.vmId);
    if (status === "deleted") this.byLink.delete(session.linkId);
    else this.byLink.set(session.linkId, session);
    if (status === "running" && session.egress === "residential") this.startAccrual();
    this.deps.onChange(session);
  }

  private clearTimer(timers: Map<string, NodeJS.Timeout>, id: string): void {
    const t = timers.get(id);
    if (t) clearTimeout(t);
    timers.delete(id);
  }

  private startAccrual(): void {
    if (this.accrualTimer) return;
    this.lastAccrual = Date.now();
    this.accrualTimer = setInterval(() => this.accrue(), ACCRUAL_TICK_MS);
    this.accrualTimer.unref();
  }

  private stopAccrual(): void {
    if (this.accrualTimer) clearInterval(this.accrualTimer);
    this.accrualTimer = null;
  }

  /**
   * Residential sessions use data while running. Usage stops at the pool's allowance: the API reference does
   * not say what happens to a running session then, so it keeps running and new ones are refused.
   */
  accrue(): void {
    const now = Date.now();
    const elapsed = (now - this.lastAccrual) / 1000;
    this.lastAccrual = now;
    let anyRunning = false;
    for (const s of this.byId.values()) {
      if (s.status !== "running" || s.egress !== "residential") continue;
      anyRunning = true;
      const wanted = this.deps.settings.residentialBytesPerSecond * elapsed + s.residentialCarry;
      const whole = Math.floor(wanted);
      const added = Math.max(0, Math.min(whole, this.deps.residentialRoom(s)));
      s.residentialBytes += added;
      s.residentialCarry = added === whole ? wanted - whole : 0;
    }
    if (!anyRunning) this.stopAccrual();
  }
}
