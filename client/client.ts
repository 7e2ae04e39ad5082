import {
  AccountAnswer,
  CreateAnswer,
  CreateRequest,
  ImagesAnswer,
  QuotaAnswer,
  SessionEntry,
  V7AccountAnswer,
  V7CreateAnswer,
  V7CreateRequest,
  V7QuotaAnswer,
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
import { Transport, TransportOptions } from "./transport";
import { StatusBoard } from "./status-board";
import { maskedIdMatches } from "./masked-id";
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
  /** The polls of sessions waited for, gathered on one tick (status-board.ts). */
  readonly polls: StatusBoard;

  constructor(opts: ClientOptions) {
    this.transport = new Transport({ ...opts, baseUrl: versionedBaseUrl(opts.baseUrl, "v8") });
    // Both versions' calls count against the one budget of the key.
    this.v7 = new V7Client(new Transport({ ...opts, budget: this.transport.budget, baseUrl: versionedBaseUrl(opts.baseUrl, "v7") }));
    this.polls = new StatusBoard({
      turn: async () => void (await this.transport.budget.acquire("poll")),
      read: (vmId, taken) => this.readSession(vmId, { priority: "poll", budgetTaken: taken }),
      list: () => this.listSessions({ priority: "poll", budgetTaken: true }),
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
  createSession(req: CreateRequest, signal?: AbortSignal, onServerTime?: (ms: number) => void, retryWithinMs?: number): Promise<CreateAnswer> {
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
   * budget, and gathered with the other waiting sessions' looks (status-board.ts).
   */
  pollSession(vmId: string): Promise<SessionEntry | undefined> {
    return this.polls.look(vmId);
  }

  /**
   * The spec says the answer lists "only that session", but a service or a proxy that answers with the
   * account's list (newest first, ids masked) would hand a refresh another session's state: a newer, ended
   * one's `deleted` would drop this running session from the stack. So an entry is this session's only when
   * it is the answer's one entry and its id agrees with `vmId` (masked-id.ts); an empty answer is the spec's
   * "no such session". Any other answer is asked again, `READ_ATTEMPTS` times in all, and then fails -- a
   * failed read keeps the session where it is recorded, which "gone" would not.
   */
  private async readSession(vmId: string, o: { signal?: AbortSignal; priority?: "poll"; budgetTaken?: boolean }): Promise<SessionEntry | undefined> {
    let listed = 0;
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const answer = await this.transport.send({
        ...o,
        // Only the first attempt may have had its turn in the budget already.
        budgetTaken: attempt === 0 && o.budgetTaken,
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
      if (entry !== NOT_PROVEN) return entry;
      listed = answer.data.length;
    }
    throw new RemoteBrowserError(
      "invalid_answer",
      `${READ_ATTEMPTS} status answers for this id did not list it alone (the last: ${listed} entries, none provably this session); its state is unknown, so nothing is concluded from them (a refresh keeps the session as recorded)`,
      { operation: "read session status", vmId },
    );
  }

  /** The account's sessions of the last month, newest first (ids partly masked by the service). */
  sessions(signal?: AbortSignal): Promise<SessionEntry[]> {
    return this.listSessions({ signal });
  }

  private async listSessions(o: { signal?: AbortSignal; priority?: "poll"; budgetTaken?: boolean }): Promise<SessionEntry[]> {
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
