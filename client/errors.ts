/**
 * The one error family of the client. Every failure a caller can see is a RemoteBrowserError with a
 * stable `code`; the service's refusals follow the answer's `status`. Errors are recognised by a
 * Symbol.for brand, not `instanceof`, because the dynamic provider's serialised code may hold a copy
 * of these classes that is not the one that threw.
 */

const BRAND = Symbol.for("pulumi-remote-browser.RemoteBrowserError");

export type ErrorCode =
  | "denied" // status denied: bad key, unknown session, invalid field
  | "upgrade" // status upgrade: the plan lacks the feature or a limit is reached
  | "insecure" // status insecure: a security or rate check failed (see `reason`)
  | "service" // status error: a fault on the service side
  | "network" // no answer: connection refused, reset, DNS
  | "timeout" // no answer within the per-attempt timeout or the overall deadline
  | "invalid_answer" // an answer that does not match the API's schema
  | "invalid_request" // refused locally: a request that the API's schema rejects
  | "insecure_transport" // refused locally: the key would cross the network in plain text
  | "configuration"; // refused locally: missing or malformed settings

export interface ErrorContext {
  /** What the client was doing, e.g. "create session". */
  operation: string;
  /** The session concerned, when there is one. */
  vmId?: string;
  /** The service's own words, for refusals. */
  serverMessage?: string;
  /** For `insecure`: the check that failed (`rate_limited`, ...). */
  reason?: string;
  httpStatus?: number;
  /** For rate limits: how long the service asked us to wait. */
  retryAfterMs?: number;
  cause?: unknown;
}

export class RemoteBrowserError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly operation: string;
  readonly vmId?: string;
  readonly serverMessage?: string;
  readonly reason?: string;
  readonly httpStatus?: number;
  readonly retryAfterMs?: number;

  constructor(code: ErrorCode, summary: string, ctx: ErrorContext) {
    super(composeMessage(summary, ctx));
    // Set here rather than through Error's options argument: that needs the ES2022 library, and the
    // package's sources are also compiled by the language host's ts-node, which targets ES2020.
    if (ctx.cause !== undefined) Object.defineProperty(this, "cause", { value: ctx.cause, writable: true, configurable: true });
    this.name = "RemoteBrowserError";
    this.code = code;
    this.operation = ctx.operation;
    this.vmId = ctx.vmId;
    this.serverMessage = ctx.serverMessage;
    this.reason = ctx.reason;
    this.httpStatus = ctx.httpStatus;
    this.retryAfterMs = ctx.retryAfterMs;
  }

  /** True when the service refused because of the per-key rate limit. */
  get rateLimited(): boolean {
    return this.code === "insecure" && this.reason === "rate_limited";
  }
}

function composeMessage(summary: string, ctx: ErrorContext): string {
  const parts = [`${ctx.operation} failed: ${summary}`];
  if (ctx.serverMessage) parts.push(`service message: "${ctx.serverMessage}"`);
  if (ctx.vmId) parts.push(`vmId ${ctx.vmId}`);
  return parts.join("; ");
}

export function isRemoteBrowserError(err: unknown): err is RemoteBrowserError {
  return typeof err === "object" && err !== null && (err as Record<symbol, unknown>)[BRAND] === true;
}

const SUMMARIES: Record<"denied" | "upgrade" | "insecure" | "error", (reason?: string) => string> = {
  denied: () => "the service refused the request (denied)",
  upgrade: () => "the account's plan does not include this or one of its limits is reached (upgrade)",
  insecure: (reason) =>
    reason === "rate_limited"
      ? "the per-key rate limit was exceeded (insecure, reason rate_limited)"
      : `a security check failed (insecure${reason ? `, reason ${reason}` : ""})`,
  error: () => "the service reported a fault on its side (error)",
};

const CODES = { denied: "denied", upgrade: "upgrade", insecure: "insecure", error: "service" } as const;

/**
 * Maps a non-ok answer to the error of its family. The service's words pass through `scrub` (the
 * transport's serviceTextScrubber) on their way into the error: its `serverMessage`, its message, and
 * whatever later errors quote of them.
 */
export function errorFromAnswer(
  answer: { status: "denied" | "upgrade" | "insecure" | "error"; message?: string; reason?: string },
  ctx: Omit<ErrorContext, "serverMessage" | "reason">,
  scrub: (serviceText: string) => string,
): RemoteBrowserError {
  const reason = answer.reason === undefined ? undefined : scrub(answer.reason);
  return new RemoteBrowserError(CODES[answer.status], SUMMARIES[answer.status](reason), {
    ...ctx,
    serverMessage: answer.message === undefined ? "(no message)" : scrub(answer.message),
    reason,
  });
}
