/**
 * The request budget of one API key in one process. The service limits requests per second per key and
 * does not publish the threshold, so the budget learns it: it sends without pacing until the service
 * first answers `rate_limited`, then paces calls at a rate that a CUBIC controller (the one the AWS SDKs'
 * "adaptive" retry mode uses) lowers at each refusal and raises again as calls succeed. Several processes
 * on one key (stacks of a wave) each settle on a share of the limit the same way.
 *
 * Calls that start or end sessions go before status polls when the budget is short: a poll that waits
 * costs the time of one poll, a create that waits holds its whole resource (and the engine's steps
 * after it).
 */

export type BudgetPriority = "first" | "poll";

export interface BudgetClock {
  now(): number;
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
}

export const systemBudgetClock: BudgetClock = {
  now: () => performance.now(),
  after(ms, fn) {
    // Not unref'd: a call waiting for its turn is work the process still has to do (a short-lived
    // command would otherwise exit with the call unsent). The timer is gone once nothing waits.
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

/** The controller's constants, as in the AWS SDKs' adaptive mode. */
const BETA = 0.7; // the share of the measured rate kept after a refusal
const SCALE = 0.4; // how fast the rate grows back (requests/s per s³)
/** Never paced slower than this: a refusal caused by other processes must not stall this one. */
export const MIN_RATE = 0.5;
/** Sends are counted over this window to measure the rate actually sent. */
const MEASURE_WINDOW_MS = 1_000;

interface Waiter {
  priority: BudgetPriority;
  /** Orders waiters of one priority: earlier calls (a retry keeps its call's start) first. */
  order: number;
  resolve: (sentAt: number) => void;
  reject: (reason: unknown) => void;
  detach?: () => void;
}

export interface BudgetState {
  /** Whether the service has refused a call yet: until then nothing is paced. */
  paced: boolean;
  /** Requests per second the budget allows now (Infinity while not paced). */
  rate: number;
  /** Calls waiting for their turn. */
  waiting: number;
  /** Refusals for the rate limit seen so far. */
  refusals: number;
  /** How much longer no call may go, as the service's last `Retry-After` asked (0 when it asked nothing). */
  heldMs: number;
}

export class RequestBudget {
  private paced = false;
  private rate = Infinity;
  private lastMaxRate = 0;
  private lastRefusalAt = 0;
  private tokens = 0;
  private filledAt = 0;
  private readonly sends: number[] = [];
  private readonly queue: Waiter[] = [];
  private cancelTimer?: () => void;
  private refusals = 0;
  private sequence = 0;
  /** Until when the service asked (its `Retry-After`) that this key send nothing at all. */
  private heldUntil = 0;

  constructor(private readonly clock: BudgetClock = systemBudgetClock) {}

  /** The budget's time, as `acquire` resolves with it: what a call sent without `acquire` passes to `refused`. */
  now(): number {
    return this.clock.now();
  }

  state(): BudgetState {
    const heldMs = Math.max(0, this.heldUntil - this.clock.now());
    return { paced: this.paced, rate: this.rate, waiting: this.queue.length, refusals: this.refusals, heldMs };
  }

  /** A number that orders a call among waiters of its priority: take it once, at the call's start. */
  ticket(): number {
    return ++this.sequence;
  }

  /**
   * Resolves when the call may be sent. `order` is the call's ticket (a retry keeps it, so it is not sent
   * behind calls that started after it). Resolves with the budget's time of sending, for `refused`.
   * Rejects with the signal's reason if it aborts while waiting.
   */
  acquire(priority: BudgetPriority, signal?: AbortSignal, order: number = this.ticket()): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.queue.length === 0 && this.take()) return Promise.resolve(this.clock.now());
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = { priority, order, resolve, reject };
      if (signal) {
        const onAbort = () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason);
          this.schedule();
        };
        signal.addEventListener("abort", onAbort, { once: true });
        waiter.detach = () => signal.removeEventListener("abort", onAbort);
      }
      this.insert(waiter);
      this.schedule();
    });
  }

  /** The service answered without refusing for the rate limit. */
  succeeded(): void {
    if (!this.paced) return;
    const now = this.clock.now();
    const cubic = SCALE * ((now - this.lastRefusalAt) / 1000 - this.window()) ** 3 + this.lastMaxRate;
    // Never more than twice what is really being sent: an idle budget does not grow without bound.
    this.setRate(Math.min(cubic, 2 * Math.max(this.measured(now), MIN_RATE)));
  }

  /**
   * The service refused a call for the rate limit; `sentAt` is what `acquire` resolved with. A call
   * sent before the rate was last lowered says nothing new: a burst refused at once lowers the rate
   * once, not once per refused call (which would drive it to the floor). A `Retry-After` (`retryAfterMs`)
   * holds back every call on this key for its duration, not only the refused one: the service asked the
   * key, not the call, to be left alone, and any call sent meanwhile is refused as well.
   */
  refused(sentAt?: number, retryAfterMs?: number): void {
    const now = this.clock.now();
    this.refusals++;
    if (retryAfterMs !== undefined && retryAfterMs > 0 && now + retryAfterMs > this.heldUntil) {
      this.heldUntil = now + retryAfterMs;
      this.schedule();
    }
    if (this.paced && sentAt !== undefined && sentAt < this.lastRefusalAt) return;
    const measured = this.measured(now);
    const base = this.paced ? Math.min(measured, this.rate) : measured;
    this.paced = true;
    this.lastMaxRate = Math.max(base, MIN_RATE);
    this.lastRefusalAt = now;
    // The service has no tokens left for this key: nothing more goes until the lowered rate allows it.
    this.tokens = 0;
    this.filledAt = now;
    this.setRate(this.lastMaxRate * BETA);
  }

  /** Seconds after a refusal at which the cubic curve is back at the rate of that refusal. */
  private window(): number {
    return Math.cbrt((this.lastMaxRate * (1 - BETA)) / SCALE);
  }

  private setRate(rate: number): void {
    this.refill(this.clock.now());
    this.rate = Math.max(MIN_RATE, rate);
    this.tokens = Math.min(this.tokens, this.capacity());
    this.schedule();
  }

  /** At most one second's worth of calls at once: a burst the service's own bucket also allows. */
  private capacity(): number {
    return Math.max(1, this.rate);
  }

  private refill(now: number): void {
    if (this.paced && Number.isFinite(this.rate)) {
      this.tokens = Math.min(this.capacity(), this.tokens + ((now - this.filledAt) / 1000) * this.rate);
    }
    this.filledAt = now;
  }

  private take(): boolean {
    const now = this.clock.now();
    if (now < this.heldUntil) return false;
    if (this.paced) {
      this.refill(now);
      if (this.tokens < 1) return false;
      this.tokens -= 1;
    }
    this.sends.push(now);
    // Trimmed here too: an unpaced budget never measures, and its log would grow with every call.
    this.measured(now);
    return true;
  }

  /** Calls sent per second over the last window. */
  private measured(now: number): number {
    while (this.sends.length && this.sends[0] <= now - MEASURE_WINDOW_MS) this.sends.shift();
    return this.sends.length / (MEASURE_WINDOW_MS / 1000);
  }

  private insert(w: Waiter): void {
    const rank = (x: Waiter) => (x.priority === "first" ? 0 : 1);
    let i = this.queue.length;
    while (i > 0 && (rank(this.queue[i - 1]) > rank(w) || (rank(this.queue[i - 1]) === rank(w) && this.queue[i - 1].order > w.order))) i--;
    this.queue.splice(i, 0, w);
  }

  /** Lets out every waiter the tokens allow, and sets a timer for the next one. */
  private schedule(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    while (this.queue.length && this.take()) {
      const w = this.queue.shift()!;
      w.detach?.();
      w.resolve(this.clock.now());
    }
    if (!this.queue.length) return;
    const held = this.heldUntil - this.clock.now();
    const waitMs = held > 0 ? Math.ceil(held) : Math.max(1, Math.ceil(((1 - this.tokens) / this.rate) * 1000));
    this.cancelTimer = this.clock.after(waitMs, () => {
      this.cancelTimer = undefined;
      this.schedule();
    });
  }
}

/**
 * One budget per service and key in the process, whichever client or front asks: the dynamic provider,
 * the plugin, the data sources and the audit all build their own clients. Kept on the global object under
 * a registered symbol so that two copies of this module (a stored provider's and the installed package's)
 * still share it. The key itself is not kept: only a digest names the budget.
 */
const REGISTRY = Symbol.for("pulumi-remote-browser.request-budgets");

export function sharedBudget(origin: string, keyDigest: string): RequestBudget {
  const g = globalThis as unknown as Record<symbol, Map<string, RequestBudget> | undefined>;
  const budgets = (g[REGISTRY] ??= new Map());
  const name = `${origin} ${keyDigest}`;
  let budget = budgets.get(name);
  if (!budget) budgets.set(name, (budget = new RequestBudget()));
  return budget;
}

/**
 * A turn of the budget that its holder already waited for, handed to the call that spends it. Spent once:
 * the call's retries, and any later call handed the same turn, wait for turns of their own. The pacing a
 * call needs is so passed with it, not remembered by the layers it goes through.
 */
export class HeldTurn {
  private spent = false;

  /** True the first time only: the turn goes to that attempt. */
  spend(): boolean {
    const first = !this.spent;
    this.spent = true;
    return first;
  }
}
