import type { Reply } from "./answers";
import type { JsonObject } from "./types";

/**
 * The latitude profile: a service that takes every freedom the spec leaves open, where the rest of the
 * emulator follows the spec point by point. A real service, or a proxy in front of it, may do each of these
 * without breaking a sentence of the spec, and the provider must neither lose nor mistake a session, nor
 * print a key, when it does:
 * - `GET /vm/data?id=` is answered, every other time it is asked about the same id (the first time
 *   included), with the id-less list: the spec says "only that session is listed" but a cache that ignores
 *   the query would not; with `listForId: "always"`, every time (a service or a proxy that never answers
 *   the query), so that no status read ever proves one session's state;
 * - the id-less list lags: a session appears in it only `listLagMs` after it was started; and it is capped
 *   at its `listCap` newest entries (the spec says neither that it is complete nor that it is current);
 * - a `denied` answer's message repeats the credentials the request presented (the spec only says to show
 *   `message`);
 * - a rate-limit refusal is answered alternately with HTTP 429 and `Retry-After`, and with HTTP 200, status
 *   `insecure`, reason `rate_limited` and no header (the spec allows another code for the rate check, and
 *   names none);
 * - every answer, and every session entry, carries fields the spec does not name;
 * - a session shows a state the spec does not name (`unnamedState`) for the first `unnamedForMs` of its
 *   preparation, before `starting`.
 */
export interface LatitudeProfile {
  /** Which status calls about an id are answered with the id-less list: every other one, or every one. @default "alternate" */
  listForId: "alternate" | "always";
  /** A session is missing from the id-less list this long after it was started. @default 1000 */
  listLagMs: number;
  /** The id-less list's longest length. @default 100 */
  listCap: number;
  /** @default "provisioning" */
  unnamedState: string;
  /** @default 150 */
  unnamedForMs: number;
}

export const DEFAULT_LATITUDE: Readonly<LatitudeProfile> = Object.freeze({
  listForId: "alternate",
  listLagMs: 1_000,
  listCap: 100,
  unnamedState: "provisioning",
  unnamedForMs: 150,
});

/** Fields no spec names, added to every answer and entry. */
const EXTRA_ANSWER_FIELDS: JsonObject = { request_id: "lat-0", served_by: { region: "eu-2", edge: true } };
const EXTRA_ENTRY_FIELDS: JsonObject = { tags: [], billing: { metered: true, unit: "minute" } };

export class Latitude {
  readonly profile: LatitudeProfile;
  private readonly asked = new Map<string, number>();
  private rateRefusals = 0;

  constructor(profile: Partial<LatitudeProfile> = {}) {
    this.profile = { ...DEFAULT_LATITUDE, ...profile };
  }

  /** Whether this ask about `vmId` is answered with the id-less list (the first, third, ... of each id, or every one). */
  answerWithList(vmId: string): boolean {
    const n = (this.asked.get(vmId) ?? 0) + 1;
    this.asked.set(vmId, n);
    return this.profile.listForId === "always" || n % 2 === 1;
  }

  /** The id-less list as this service shows it: sessions old enough to appear, at most `listCap` of them. */
  shownInList<T extends { created: number }>(newestFirst: T[], now = Date.now()): T[] {
    return newestFirst.filter((s) => now - s.created >= this.profile.listLagMs).slice(0, this.profile.listCap);
  }

  /** The state a session's entry shows. */
  shownState(status: string, created: number, now = Date.now()): string {
    return status === "starting" && now - created < this.profile.unnamedForMs ? this.profile.unnamedState : status;
  }

  entry(entry: JsonObject): JsonObject {
    return { ...entry, ...EXTRA_ENTRY_FIELDS };
  }

  /** The answer as this service sends it: extra fields, the credentials in a refusal, its way of refusing for the rate. */
  reshape(reply: Reply, token: string | undefined): Reply {
    // An idempotent replay stays byte for byte the first answer: both get the same fields added.
    const body: JsonObject = { ...reply.body, ...EXTRA_ANSWER_FIELDS };
    if (body.status === "denied" && token !== undefined && typeof body.message === "string") {
      body.message = `${body.message} (credentials presented: Bearer ${token})`;
    }
    if (body.status === "insecure" && body.reason === "rate_limited" && this.rateRefusals++ % 2 === 1) {
      const { ["retry-after"]: _dropped, ...headers } = reply.headers ?? {};
      return { ...reply, raw: undefined, httpStatus: 200, body, headers };
    }
    return { ...reply, raw: undefined, body };
  }

  clear(): void {
    this.asked.clear();
    this.rateRefusals = 0;
  }
}
