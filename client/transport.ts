import type { Dispatcher, EnvHttpProxyAgent } from "undici";
import type { z } from "zod";
import { envelopeSchema } from "./schemas";
import { type ErrorContext, RemoteBrowserError, errorFromAnswer, isRemoteBrowserError } from "./errors";
import { DERIVED_KEY_PREFIX, derivedKeyPattern, secretSpellings } from "./secretShapes";
import { type BudgetPriority, type HeldTurn, type RequestBudget, sharedBudget } from "./rate-budget";
import { createHash } from "node:crypto";
import { isLoopbackHost } from "./limits";

export interface TransportOptions {
  /** Versioned base address, e.g. `https://api.example/v8`. */
  baseUrl: string;
  /** The bearer key. Sent only on requests that need it, never logged, never put in an error. */
  apiKey?: string;
  /** @default 15_000 — one attempt, from sending to the end of the answer's body. */
  attemptTimeoutMs?: number;
  /** @default 90_000 — the whole call, retries and waits included. */
  deadlineMs?: number;
  /** @default DEFAULT_RETRY_POLICY */
  retry?: Partial<RetryPolicy>;
  /** Injected in tests so that backoff does not sleep for real. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** @default `defaultDispatcher(baseUrl)`, owned by the transport */
  dispatcher?: Dispatcher;
  userAgent?: string;
  /** @default the process's budget for this service and key (`sharedBudget`) */
  budget?: RequestBudget;
}

export interface Call<T> {
  operation: string;
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Whether the endpoint needs the bearer key. */
  auth: boolean;
  /** Whether the call may be repeated without a second effect. Only such calls are retried. */
  idempotent: boolean;
  vmId?: string;
  schema: z.ZodType<T>;
  signal?: AbortSignal;
  /** Told the service's clock (its `Date` header, ms since the epoch) at each answer, with the attempt's number (1: the first). */
  onServerTime?: (ms: number, attempt: number) => void;
  /** @default "first" -- status polls say "poll": they wait behind creates and removes when the budget is short. */
  priority?: BudgetPriority;
  /**
   * A turn its caller already had from the budget (the status board takes one per tick for a batch of
   * looks): the first attempt that finds it unspent goes without waiting; any other waits its own turn.
   */
  turn?: HeldTurn;
  /** A retry budget shorter than the policy's (the engine's time-out for a create). */
  retryWithinMs?: number;
}

/** Emitted once per attempt; never carries the key. */
export interface AttemptEvent {
  operation: string;
  attempt: number;
  outcome: "ok" | RemoteBrowserError["code"];
  retryInMs?: number;
}

/**
 * The keep-alive dispatcher a transport uses unless it is given one. It goes through the proxy the
 * environment names (`HTTPS_PROXY` for https, `HTTP_PROXY` for http, hosts in `NO_PROXY` excepted;
 * lower-case names first, as undici reads them), so that CI runners that reach the internet only through
 * a proxy work. A loopback base URL never goes through a proxy, whatever `NO_PROXY` says: the local
 * emulator is not on the other side of any proxy, and traffic that carries the key must not leave the
 * machine when the address says it stays on it. `options` reach undici (TLS settings, a resolver).
 */
export function defaultDispatcher(baseUrl: URL, options: EnvHttpProxyAgent.Options = {}): Dispatcher {
  const agentOptions = { keepAliveTimeout: 10_000, connections: 16, ...options };
  const { Agent, EnvHttpProxyAgent } = undici();
  // Through a proxy every request is tunnelled (CONNECT), plain http too, as undici 7 did by default: undici 8
  // forwards a plain http request to the proxy itself, request line and headers, which the egress proxies
  // this is written for refuse (they tunnel only).
  return isLoopbackHost(baseUrl.hostname) ? new Agent(agentOptions) : new EnvHttpProxyAgent({ proxyTunnel: true, ...agentOptions });
}

/**
 * undici, loaded by the first request: a plugin process the engine starts only to check or compare the
 * provider's settings (one of the two or three it starts for every operation) sends none, and loading it
 * is about a third of the client's load.
 */
const undici = () => require("undici") as typeof import("undici"); // eslint-disable-line @typescript-eslint/no-require-imports -- deferred to the first request that needs it (see above)

/** Which variable names a proxy for this base URL, when one is set: named in network errors, never its value. */
function proxyVariable(baseUrl: URL): string | undefined {
  if (isLoopbackHost(baseUrl.hostname)) return undefined;
  const names = baseUrl.protocol === "https:" ? ["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"] : ["http_proxy", "HTTP_PROXY"];
  return names.find((n) => process.env[n]);
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** The one HTTP transport: base URL, bearer key, timeouts, retries and the mapping of answers to errors. */
export class Transport {
  readonly baseUrl: URL;
  private readonly apiKey?: string;
  private readonly attemptTimeoutMs: number;
  private readonly deadlineMs: number;
  private readonly policy: RetryPolicy;
  private readonly sleep: NonNullable<TransportOptions["sleep"]>;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly givenDispatcher?: Dispatcher;
  private ownDispatcher?: Dispatcher;
  private readonly userAgent: string;
  private readonly proxyVariable?: string;
  /** The process's request budget for this service and key, shared with every other client of both. */
  readonly budget: RequestBudget;
  /** Observers of attempts (tests, debug logging). */
  onAttempt?: (event: AttemptEvent) => void;

  constructor(opts: TransportOptions) {
    this.baseUrl = parseBaseUrl(opts.baseUrl);
    this.apiKey = opts.apiKey;
    this.attemptTimeoutMs = opts.attemptTimeoutMs ?? 15_000;
    this.deadlineMs = opts.deadlineMs ?? 90_000;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.sleep = opts.sleep ?? defaultSleep;
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
    this.givenDispatcher = opts.dispatcher;
    this.proxyVariable = proxyVariable(this.baseUrl);
    this.userAgent = opts.userAgent ?? "pulumi-remote-browser";
    this.budget = opts.budget ?? sharedBudget(this.baseUrl.origin, keyDigest(opts.apiKey));
  }

  async close(): Promise<void> {
    await this.ownDispatcher?.close();
  }

  /** The dispatcher given, else the transport's own, made by its first request. */
  private get dispatcher(): Dispatcher {
    return this.givenDispatcher ?? (this.ownDispatcher ??= defaultDispatcher(this.baseUrl));
  }

  /** Sends the call, retrying transient failures within the policy, and returns the validated answer. */
  async send<T>(call: Call<T>): Promise<T> {
    const ctx: ErrorContext = { operation: call.operation, vmId: call.vmId };
    if (call.auth) this.assertKeyMayBeSent(ctx);
    const url = this.urlFor(call);
    const started = this.now();
    const deadline = AbortSignal.timeout(this.deadlineMs);
    const signal = call.signal ? AbortSignal.any([deadline, call.signal]) : deadline;

    const ticket = this.budget.ticket();

    for (let attempt = 1; ; attempt++) {
      let failure: RemoteBrowserError;
      let sentAt: number | undefined;
      try {
        if (!call.turn?.spend()) sentAt = await this.budget.acquire(call.priority ?? "first", signal, ticket);
      } catch {
        if (call.signal?.aborted) throw call.signal.reason;
        throw new RemoteBrowserError("timeout", `no turn in the request budget within the ${this.deadlineMs} ms deadline`, ctx);
      }
      // A call whose turn was taken by its caller (the status board's) still says when it went out, so
      // that its refusal, like any other of one burst, lowers the rate once.
      sentAt ??= this.budget.now();
      try {
        const answer = await this.attempt(call, url, signal, ctx, attempt);
        this.budget.succeeded();
        this.onAttempt?.({ operation: call.operation, attempt, outcome: "ok" });
        return answer;
      } catch (err) {
        if (call.signal?.aborted) throw call.signal.reason;
        failure = isRemoteBrowserError(err) ? err : unexpected(err, ctx);
      }
      if (failure.rateLimited) this.budget.refused(sentAt, failure.retryAfterMs);
      else if (failure.httpStatus !== undefined) this.budget.succeeded();
      if (deadline.aborted) throw deadlineError(this.deadlineMs, attempt, failure, ctx);
      const decision = retryDecision({
        error: failure,
        attempt,
        elapsedMs: this.now() - started,
        idempotent: call.idempotent,
        policy: this.policy,
        random: this.random(),
        withinMs: call.retryWithinMs,
      });
      this.onAttempt?.({
        operation: call.operation,
        attempt,
        outcome: failure.code,
        retryInMs: decision.retry ? decision.delayMs : undefined,
      });
      if (!decision.retry) throw failure.rateLimited && attempt > 1 ? rateLimitOutlasted(this.now() - started, attempt, failure, ctx) : failure;
      try {
        await this.sleep(decision.delayMs, signal);
      } catch {
        if (call.signal?.aborted) throw call.signal.reason;
        throw deadlineError(this.deadlineMs, attempt, failure, ctx);
      }
    }
  }

  private async attempt<T>(call: Call<T>, url: URL, overall: AbortSignal, ctx: ErrorContext, n: number): Promise<T> {
    const attemptTimeout = AbortSignal.timeout(this.attemptTimeoutMs);
    const headers: Record<string, string> = { accept: "application/json", "user-agent": this.userAgent };
    if (call.auth && this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (call.body !== undefined) headers["content-type"] = "application/json";

    let httpStatus: number;
    let text: string;
    let retryAfterMs: number | undefined;
    try {
      const res = await undici().request(url, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        dispatcher: this.dispatcher,
        signal: AbortSignal.any([overall, attemptTimeout]),
      });
      httpStatus = res.statusCode;
      retryAfterMs = parseRetryAfter(res.headers["retry-after"]);
      const date = Date.parse(String(res.headers.date ?? ""));
      if (call.onServerTime && Number.isFinite(date)) call.onServerTime(date, n);
      text = await res.body.text();
    } catch (err) {
      if (attemptTimeout.aborted && !overall.aborted) {
        throw new RemoteBrowserError("timeout", `no answer within ${this.attemptTimeoutMs} ms`, { ...ctx, cause: err });
      }
      throw networkError(err, url, ctx, this.proxyVariable);
    }

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      if (httpStatus >= 500) {
        throw new RemoteBrowserError("service", `HTTP ${httpStatus} without a JSON answer`, { ...ctx, httpStatus });
      }
      if (httpStatus === 429) {
        throw new RemoteBrowserError("rate_limited", "the per-key rate limit was exceeded (HTTP 429)", {
          ...ctx,
          httpStatus,
          reason: "rate_limited",
          retryAfterMs,
        });
      }
      throw new RemoteBrowserError("invalid_answer", `the answer (HTTP ${httpStatus}) is not JSON`, { ...ctx, httpStatus });
    }

    const envelope = envelopeSchema.safeParse(json);
    if (!envelope.success) {
      if (httpStatus >= 500) {
        throw new RemoteBrowserError("service", `HTTP ${httpStatus} without a status`, { ...ctx, httpStatus });
      }
      throw invalidAnswer(envelope.error, httpStatus, ctx, this.scrubberFor(call));
    }
    const { status } = envelope.data;
    if (status !== "ok") {
      throw errorFromAnswer({ ...envelope.data, status }, { ...ctx, httpStatus, retryAfterMs }, this.scrubberFor(call));
    }
    // A successful answer's text is the service's too: a location_reason, a state, a browser's name may
    // repeat what the request presented, and each may become a warning, an output or the state.
    const parsed = call.schema.safeParse(scrubAnswer(json, this.secretsOf(call)));
    if (!parsed.success) throw invalidAnswer(parsed.error, httpStatus, ctx, this.scrubberFor(call));
    return parsed.data;
  }

  /**
   * What hides this call's secrets in the service's text: the key it presented and the idempotency key its
   * body carries (a user-set one has no recognisable shape), whatever the service repeats of them.
   */
  private scrubberFor(call: Call<unknown>): (text: string) => string {
    return serviceTextScrubber(this.secretsOf(call));
  }

  /** The secrets a call presents: the key, and the idempotency key its body carries. */
  private secretsOf(call: Call<unknown>): Array<string | undefined> {
    const body = call.body as { idempotencyKey?: unknown } | undefined;
    const idempotencyKey = typeof body === "object" && body !== null && typeof body.idempotencyKey === "string" ? body.idempotencyKey : undefined;
    return [this.apiKey, idempotencyKey];
  }

  private urlFor(call: Call<unknown>): URL {
    const url = new URL(this.baseUrl.href.replace(/\/?$/, "/") + call.path.replace(/^\//, ""));
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    return url;
  }

  private assertKeyMayBeSent(ctx: ErrorContext): void {
    if (!this.apiKey) {
      throw new RemoteBrowserError("configuration", "no API key is configured (set the secret config remote-browser:apiKey or REMOTE_BROWSER_API_KEY)", ctx);
    }
    if (this.baseUrl.protocol === "http:" && !isLoopbackHost(this.baseUrl.hostname)) {
      throw new RemoteBrowserError(
        "insecure_transport",
        `refusing to send the API key over plain HTTP to ${this.baseUrl.host}; use an https:// base URL (plain http is allowed only for a loopback host such as the local emulator)`,
        ctx,
      );
    }
  }
}

function parseBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not repeated: a malformed address may hold a key or a password pasted into it.
    throw new RemoteBrowserError("configuration", "the base URL is not an absolute URL (the value given is not repeated here)", {
      operation: "configure client",
    });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new RemoteBrowserError("configuration", `the base URL must be http(s), got ${url.protocol}`, {
      operation: "configure client",
    });
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new RemoteBrowserError("configuration", "the base URL must not carry credentials, a query or a fragment", {
      operation: "configure client",
    });
  }
  return url;
}

function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 60_000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.min(at - Date.now(), 60_000));
}

function invalidAnswer(error: z.ZodError, httpStatus: number, ctx: ErrorContext, scrub: (text: string) => string): RemoteBrowserError {
  // Scrubbed: a schema's message may quote the value it refused, and the answer's keys are the service's text.
  const fields = scrub(
    error.issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.join(".") : "(answer)"}: ${i.message}`)
      .join("; "),
  );
  return new RemoteBrowserError("invalid_answer", `the answer does not match the API (${fields})`, { ...ctx, httpStatus });
}

function networkError(err: unknown, url: URL, ctx: ErrorContext, proxyVariable?: string): RemoteBrowserError {
  const code = (err as { code?: string })?.code;
  const cause = (err as { cause?: { code?: string } })?.cause?.code;
  const what = code ?? cause ?? (err instanceof Error ? err.message : String(err));
  const hint =
    (code ?? cause) === "ECONNREFUSED" && isLoopbackHost(url.hostname)
      ? " (is the local emulator running? start it with `npm run emulator` or set remote-browser:baseUrl)"
      : proxyVariable
        ? ` (${proxyVariable} is set: unless NO_PROXY names ${url.hostname}, the call went through that proxy; check it)`
        : "";
  return new RemoteBrowserError("network", `no answer from ${url.origin} (${what})${hint}`, { ...ctx, cause: err });
}

function deadlineError(deadlineMs: number, attempts: number, last: RemoteBrowserError, ctx: ErrorContext): RemoteBrowserError {
  return new RemoteBrowserError("timeout", `no success within the ${deadlineMs} ms deadline after ${attempts} attempt(s); last failure: ${last.message}`, { ...ctx, cause: last });
}

function rateLimitOutlasted(elapsedMs: number, attempts: number, last: RemoteBrowserError, ctx: ErrorContext): RemoteBrowserError {
  return new RemoteBrowserError(
    "rate_limited",
    `the per-key rate limit was still exceeded after ${attempts} attempts over ${Math.round(elapsedMs / 1000)} s ` +
      "(insecure, reason rate_limited): other clients of this API key use up its limit; try again later or use fewer stacks at once",
    { ...ctx, reason: "rate_limited", httpStatus: last.httpStatus, retryAfterMs: last.retryAfterMs, serverMessage: last.serverMessage, cause: last },
  );
}

/** Names a key's budget without keeping the key: a short digest, or "keyless". */
function keyDigest(apiKey: string | undefined): string {
  return apiKey ? createHash("sha256").update(apiKey).digest("hex").slice(0, 16) : "keyless";
}

function unexpected(err: unknown, ctx: ErrorContext): RemoteBrowserError {
  return new RemoteBrowserError("network", err instanceof Error ? err.message : String(err), { ...ctx, cause: err });
}

/** Bounds of the retry policy. Every field has a documented default in DEFAULT_RETRY_POLICY. */
export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** Delay cap before the first retry; it doubles on each further retry. */
  baseDelayMs: number;
  /** No single wait is longer than this. */
  maxDelayMs: number;
  /**
   * No retry starts once this much time has passed since the first attempt. It is also the whole budget
   * of a call the service keeps refusing for its rate limit, whatever the number of attempts.
   */
  maxElapsedMs: number;
}

/**
 * 5 attempts, 250 ms doubling to at most 8 s, within 60 s: long enough to ride out a short service
 * fault, short enough that a hard outage is reported within a minute. Refusals for the rate limit are
 * not counted against the 5 attempts: they are retried for the whole 60 s.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxElapsedMs: 60_000,
});

export interface RetryInput {
  error: RemoteBrowserError;
  /** Attempts made so far (1 after the first failure). */
  attempt: number;
  /** Time since the first attempt started. */
  elapsedMs: number;
  /** Whether repeating the request cannot have a second effect (reads, ends, creates with an idempotency key). */
  idempotent: boolean;
  policy: RetryPolicy;
  /** A number in [0, 1); injected so the policy stays a pure function. */
  random: number;
  /** A shorter budget for this call than `policy.maxElapsedMs` (the engine's time-out for a create). */
  withinMs?: number;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; why: string };

const LOCAL_OR_UNREADABLE = new Set<RemoteBrowserError["code"]>(["invalid_answer", "invalid_request", "insecure_transport", "configuration"]);

/** Decides whether a failed attempt is tried again, and after how long. Pure: no clock, no randomness of its own. */
export function retryDecision(input: RetryInput): RetryDecision {
  const { error, attempt, elapsedMs, idempotent, policy } = input;
  // A refusal on the merits does not change by asking again.
  if (error.code === "denied" || error.code === "upgrade") return { retry: false, why: `${error.code} is final` };
  // Security checks other than the rate limit (which has its own code) are final too.
  if (error.code === "insecure") return { retry: false, why: "security check failed" };
  // Local refusals and answers we cannot read: asking again gives the same result.
  if (LOCAL_OR_UNREADABLE.has(error.code)) {
    return { retry: false, why: `${error.code} is not transient` };
  }
  const budgetMs = Math.min(policy.maxElapsedMs, input.withinMs ?? Infinity);
  // A refusal for the rate limit did no work, so even a create without an idempotency key is repeated,
  // for as long as the budget lasts, however many refusals it takes. The request budget (rate-budget.ts)
  // paces the retry with the process's other calls; the service's Retry-After, when it sends one, is kept.
  if (error.rateLimited) {
    const delayMs = error.retryAfterMs ?? Math.round(50 + 50 * input.random);
    if (elapsedMs + delayMs > budgetMs) {
      return { retry: false, why: `the rate limit lasted past the ${budgetMs} ms retry budget (${attempt} attempts)` };
    }
    return { retry: true, delayMs };
  }
  // Without an idempotency key a repeated create could start a second session.
  if (!idempotent) return { retry: false, why: "the request is not idempotent" };
  if (attempt >= policy.maxAttempts) return { retry: false, why: `gave up after ${attempt} attempts` };

  // A Retry-After on another fault (a 503 from a proxy in front of the service) is honoured too.
  const delayMs = Math.max(backoffDelay(attempt, policy, input.random), error.retryAfterMs ?? 0);
  if (elapsedMs + delayMs > budgetMs) {
    return { retry: false, why: `retrying would pass the ${budgetMs} ms retry budget` };
  }
  return { retry: true, delayMs };
}

/**
 * Exponential backoff with "equal jitter": half of the capped exponential step is kept, half is random,
 * so concurrent clients spread out while no retry comes immediately.
 */
export function backoffDelay(attempt: number, policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">, random: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (step / 2) * random);
}

/**
 * At most this many characters of service text reach an error: enough for any message the spec shows,
 * while a service (or a proxy's error page) that answers with a whole request dump does not flood the
 * engine's display and log with it.
 */
export const SERVICE_TEXT_MAX = 400;

/** Shorter values are not searched for: replacing every "ab" would garble the message and hide nothing. */
const MIN_SECRET_LENGTH = 3;

const HIDDEN = "[redacted]";

/**
 * A function that hides `secrets` (the request's API key and idempotency key) in any of their spellings,
 * any derived idempotency key and any bearer credential, and caps the result at SERVICE_TEXT_MAX characters.
 * Scrubbed before capping: a cut could leave the start of a key no longer recognisable as one.
 *
 * Service text is untrusted output. A `denied` answer may repeat the credentials it refused ("invalid key
 * Bearer sk_…"), a proxy may echo a request back, and whatever the service writes becomes the message the
 * engine prints -- where the CLI masks only values it knows to be secret (stack config set with
 * `--secret`), not a key from the environment as CI passes it. So every piece of service text is scrubbed
 * before it becomes part of an error, here: by the transport that sent the request and so knows its secrets.
 */
export function serviceTextScrubber(secrets: Iterable<string | undefined>): (text: string) => string {
  const hide = secretsHider(secrets);
  return (text) => {
    const out = hide(text);
    return out.length > SERVICE_TEXT_MAX ? `${out.slice(0, SERVICE_TEXT_MAX)}… (${out.length - SERVICE_TEXT_MAX} more characters not shown)` : out;
  };
}

/** serviceTextScrubber without the cap: what hides the secrets, in every spelling. */
function secretsHider(secrets: Iterable<string | undefined>): (text: string) => string {
  const literals = [...new Set([...secrets].filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH))].flatMap(secretSpellings).sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const s of literals) out = out.split(s).join(HIDDEN);
    return (
      out
        .replace(derivedKeyPattern(), `${DERIVED_KEY_PREFIX}${HIDDEN}`)
        // Any credential presented in the Authorization header's form, the configured key's or another's.
        .replace(/\b(Bearer|Basic)(\s+|%20|\+)(?!\[redacted\])[^\s"'<>,;]+/gi, `$1$2${HIDDEN}`)
    );
  };
}

/**
 * The fields that address a session (its id, masked or not, and its share link, a secret output): kept byte
 * for byte, since a changed id could no longer end the session it names. Everything else a successful
 * answer holds is prose to the provider.
 */
const ADDRESSES = new Set(["vmId", "id", "shareUrl", "shareUrlPath"]);

/**
 * A successful answer with `secrets` hidden (secretsHider) in every string it holds, at any depth, but for
 * the addresses: not capped, since nothing of it is shown whole, and a browser's name or an account's
 * contact must stay what the service says when no secret is in it.
 */
export function scrubAnswer(answer: unknown, secrets: Iterable<string | undefined>): unknown {
  const hide = secretsHider(secrets);
  const walk = (v: unknown, field?: string): unknown => {
    if (typeof v === "string") return field !== undefined && ADDRESSES.has(field) ? v : hide(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(answer);
}
