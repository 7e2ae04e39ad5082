import type { Session } from "./sessions";
import type { Operation } from "./types";
import { ENDED_STATUSES, isActive } from "./types";

/** Counters that tests and the end-to-end suite check against ("what did the service see?"). */
export interface BookCounters {
  /** Sessions created since start or the last reset. */
  started: number;
  running: number;
  starting: number;
  /** Sessions in stopping, suspended or deleted. */
  ended: number;
  errored: number;
  /** Sessions neither ended nor errored: starting + running (leaks when it stays above 0). */
  neverEnded: number;
  /** Peak of starting + running sessions of any single account. */
  maxRunning: number;
  idempotentReplays: number;
  /** v8 and v7 start calls. */
  createCalls: number;
  /** GET /vm/data, with and without id. */
  statusCalls: number;
  removeCalls: number;
  imageCalls: number;
  /** v8 and v7 quota calls. */
  quotaCalls: number;
  /** v8 and v7 account calls. */
  accountCalls: number;
  /** Answers with HTTP 429, injected or not. */
  rateLimited: number;
}

/** One line of the request log. Never holds an API key or a share link id. */
export interface RequestLogEntry {
  seq: number;
  /** Epoch milliseconds when the request arrived. */
  t: number;
  method: string;
  /** Path without query string. */
  path: string;
  operation: Operation;
  /** 0 when the connection was dropped without an answer. */
  httpStatus: number;
  /** `status` of the JSON answer, the viewer screen shown, or null when there was no answer. */
  status: string | null;
  vmId?: string;
  /** Injected fault kind, when one applied. */
  fault?: string;
  durationMs: number;
}

const MAX_LOG = 10_000;

type CallCounter = "createCalls" | "statusCalls" | "removeCalls" | "imageCalls" | "quotaCalls" | "accountCalls";

const CALL_COUNTER: Partial<Record<Operation, CallCounter>> = {
  create: "createCalls",
  v7create: "createCalls",
  status: "statusCalls",
  list: "statusCalls",
  remove: "removeCalls",
  image: "imageCalls",
  quota: "quotaCalls",
  v7quota: "quotaCalls",
  account: "accountCalls",
  v7account: "accountCalls",
};

export class Books {
  private counters = Books.zero();
  private log: RequestLogEntry[] = [];
  private seq = 0;

  private static zero() {
    return {
      started: 0,
      maxRunning: 0,
      idempotentReplays: 0,
      createCalls: 0,
      statusCalls: 0,
      removeCalls: 0,
      imageCalls: 0,
      quotaCalls: 0,
      accountCalls: 0,
      rateLimited: 0,
    };
  }

  countCall(op: Operation): void {
    const key = CALL_COUNTER[op];
    if (key) this.counters[key]++;
  }

  countStarted(): void {
    this.counters.started++;
  }

  countReplay(): void {
    this.counters.idempotentReplays++;
  }

  countRateLimited(): void {
    this.counters.rateLimited++;
  }

  notePeak(activeForAccount: number): void {
    this.counters.maxRunning = Math.max(this.counters.maxRunning, activeForAccount);
  }

  snapshot(sessions: readonly Session[]): BookCounters {
    const count = (pred: (s: Session) => boolean) => sessions.filter(pred).length;
    return {
      ...this.counters,
      running: count((s) => s.status === "running"),
      starting: count((s) => s.status === "starting"),
      ended: count((s) => ENDED_STATUSES.includes(s.status)),
      errored: count((s) => s.status === "error"),
      neverEnded: count((s) => isActive(s.status)),
    };
  }

  record(entry: Omit<RequestLogEntry, "seq">): void {
    this.log.push({ seq: ++this.seq, ...entry });
    if (this.log.length > MAX_LOG) this.log.splice(0, this.log.length - MAX_LOG);
  }

  requests(): RequestLogEntry[] {
    return this.log.map((e) => ({ ...e }));
  }

  clearRequests(): void {
    this.log = [];
  }

  reset(): void {
    this.counters = Books.zero();
    this.log = [];
    this.seq = 0;
  }
}
