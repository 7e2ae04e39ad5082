import type { Account } from "./accounts";
import type { Reply } from "./answers";
import { answers } from "./answers";
import { IMAGES, RESIDENTIAL, VPN_LOCATIONS } from "./catalog";
import { launch, shareLink } from "./launch";
import { sessionQuota } from "./meters";
import type { Session } from "./sessions";
import { VM_ID_PREFIX } from "./sessions";
import type { EmulatorState } from "./state";
import type { JsonObject } from "./types";
import { isActive } from "./types";
import { canonicalJson, validateCreate } from "./validate";

export interface ApiContext {
  state: EmulatorState;
  /** The caller's account; set on every keyed endpoint. */
  account: Account;
  body: JsonObject;
  query: URLSearchParams;
}

export function image(): Reply {
  return answers.ok({ images: IMAGES, vpnLocations: VPN_LOCATIONS, residential: RESIDENTIAL });
}

export function create({ state, account, body }: ApiContext): Reply {
  const key = body.idempotencyKey;
  const canonical = canonicalJson(body);
  if (typeof key === "string") {
    const previous = account.idempotency.get(key);
    if (previous) {
      if (previous.canonicalRequest !== canonical) {
        return answers.denied("idempotencyKey: this key was already used with a different request; send the same request again or use a new key");
      }
      state.books.countReplay();
      return { httpStatus: 200, body: JSON.parse(previous.answer) as JsonObject, raw: previous.answer, vmId: previous.vmId };
    }
  }

  const valid = validateCreate(body, "v8");
  if (!valid.ok) return answers.denied(valid.message);
  const outcome = launch(state, account, valid.value, "v8");
  if (!outcome.ok) return answers.upgrade(outcome.message);

  const { session, meter } = outcome;
  const reply: Reply = {
    ...answers.ok({
      vmId: session.vmId,
      location_applied: session.locationApplied,
      ...(session.locationApplied ? {} : { location_reason: "unavailable" }),
      ...shareLink(state, session),
      quota: sessionQuota(meter),
    }),
    vmId: session.vmId,
  };
  // Only a successful answer takes the key, so a refused request can be retried with it.
  if (valid.value.idempotencyKey !== null) {
    const raw = JSON.stringify(reply.body);
    account.idempotency.set(valid.value.idempotencyKey, { canonicalRequest: canonical, answer: raw, vmId: session.vmId });
    reply.raw = raw;
  }
  return reply;
}

/** Keeps the prefix and the last four characters: enough to tell sessions apart, not to act on them. */
export function maskId(vmId: string): string {
  const hidden = vmId.length - VM_ID_PREFIX.length - 4;
  if (!vmId.startsWith(VM_ID_PREFIX) || hidden <= 0) return "*".repeat(vmId.length);
  return VM_ID_PREFIX + "*".repeat(hidden) + vmId.slice(-4);
}

function statusEntry(s: Session, state: EmulatorState): JsonObject {
  const status = state.latitude ? state.latitude.shownState(s.status, s.created) : s.status;
  const entry: JsonObject = { id: maskId(s.vmId), status, name: s.browserName, created: new Date(s.created).toISOString() };
  // Location fields appear only when a location was asked for (the API: "present until the location is changed").
  if (s.locationRequested) {
    entry.location_applied = s.locationApplied;
    if (!s.locationApplied) entry.location_reason = "unavailable";
  }
  return state.latitude ? state.latitude.entry(entry) : entry;
}

function oneMonthBefore(now: number): number {
  const d = new Date(now);
  d.setUTCMonth(d.getUTCMonth() - 1);
  return d.getTime();
}

export function data({ state, account, query }: ApiContext): Reply {
  const id = query.get("id");
  const month = () => {
    const since = oneMonthBefore(Date.now());
    return state.sessions
      .ofAccount(account.id)
      .filter((s) => s.created >= since)
      .sort((a, b) => b.created - a.created || b.seq - a.seq);
  };
  if (id !== null) {
    // The latitude profile's cache that ignores the query: the whole list, current (not lagging or capped).
    if (state.latitude?.answerWithList(id)) return answers.ok({ data: month().map((s) => statusEntry(s, state)) });
    const session = state.sessions.get(id);
    const mine = session && session.accountId === account.id ? [statusEntry(session, state)] : [];
    return { ...answers.ok({ data: mine }), ...(mine.length ? { vmId: id } : {}) };
  }
  const listed = state.latitude ? state.latitude.shownInList(month()) : month();
  return answers.ok({ data: listed.map((s) => statusEntry(s, state)) });
}

export function remove({ state, account, body }: ApiContext): Reply {
  for (const key of Object.keys(body)) if (key !== "id") return answers.denied(`${key}: unknown field; accepted fields: id`);
  const id = body.id;
  if (id === undefined) return answers.denied("id: required; pass the vmId of the session to end");
  if (typeof id !== "string") return answers.denied("id: must be a string");
  const session = state.sessions.get(id);
  // Another account's session is reported exactly like an unknown one, so ids cannot be probed.
  if (!session || session.accountId !== account.id) return answers.denied("id: unknown session");
  if (isActive(session.status)) state.sessions.end(session);
  // An ended or errored session answers ok: the caller's goal (the session not running) holds.
  return { ...answers.ok(), vmId: session.vmId };
}

function pools(state: EmulatorState, account: Account): JsonObject[] {
  return state.poolMeters(account).map((meter, i) => {
    const pool = account.pools[i]!;
    return { subscription_id: pool.subscriptionId, plan_id: pool.planId, plan_name: pool.planName, ...meter };
  });
}

export function userApi({ state, account }: ApiContext): Reply {
  const meter = state.meter(account);
  return answers.ok({
    contact: account.contact,
    feature_programmatic_access: account.programmaticAccess,
    has_plan: account.hasPlan,
    ...meter,
    pools: pools(state, account),
  });
}

export function userQuota({ state, account }: ApiContext): Reply {
  const meter = state.meter(account);
  return answers.ok({ has_plan: account.hasPlan, ...meter, pools: pools(state, account) });
}
