import type { Account } from "./accounts";
import { findImage } from "./catalog";
import type { UsageMeter } from "./types";
import { residentialRoom } from "./meters";
import { newLinkId } from "./random";
import type { Session } from "./sessions";
import type { EmulatorState } from "./state";
import type { ApiVersion } from "./types";
import type { CreateRequest } from "./validate";

/** `limit` tells a reached limit apart from something the plan does not include. */
export type LaunchOutcome = { ok: true; session: Session; meter: UsageMeter } | { ok: false; message: string; limit: boolean };

type PlanCheck = { pool: number } | { message: string; limit: boolean };

/**
 * Plan checks, in the order a user can act on them. Returns the pool that will carry the session.
 * Totals are checked first for clear messages; a pool must then have room in every dimension.
 */
export function checkPlan(state: EmulatorState, account: Account, req: CreateRequest, now: number): PlanCheck {
  if (!account.hasPlan) return { message: "the account has no plan; choose a plan to start sessions", limit: false };
  if (req.country !== null && !account.locationAccess) {
    return { message: "country: exit locations are not included in the plan; upgrade to choose a location", limit: false };
  }
  const meter = state.meter(account, now);
  const pools = state.poolMeters(account, now);
  if (req.egress === "residential") {
    if (meter.residential_cycle_mb_limit === null) {
      return { message: "egress: residential data is not included in the plan; upgrade to use residential connections", limit: false };
    }
    if (residentialRoom(meter) <= 0) {
      return { message: "egress: the residential data allowance of this cycle is used up", limit: true };
    }
  }
  if (meter.running_sessions_used >= meter.running_session_limit) {
    return {
      message: `running session limit reached (${meter.running_sessions_used} of ${meter.running_session_limit}); end a session or upgrade`,
      limit: true,
    };
  }
  if (meter.cycle_session_limit !== null && meter.cycle_sessions_used >= meter.cycle_session_limit) {
    return { message: `cycle session limit reached (${meter.cycle_sessions_used} of ${meter.cycle_session_limit}); upgrade or wait for the next cycle`, limit: true };
  }
  const pool = pools.findIndex(
    (m) => m.running_sessions_remaining > 0 && (m.cycle_sessions_remaining === null || m.cycle_sessions_remaining > 0) && (req.egress !== "residential" || residentialRoom(m) > 0),
  );
  if (pool < 0) return { message: "no subscription of the account has room for this session; upgrade", limit: true };
  return { pool };
}

/** Starts a session that passed validation and plan checks. */
export function launch(state: EmulatorState, account: Account, req: CreateRequest, version: ApiVersion): LaunchOutcome {
  const now = Date.now();
  const plan = checkPlan(state, account, req, now);
  if ("message" in plan) return { ok: false, message: plan.message, limit: plan.limit };

  // Residential connections come from their own network, so the datacenter exits are not involved.
  let exitCode: string | null = null;
  let locationApplied = true;
  if (req.country !== null && req.egress !== "residential") {
    exitCode = state.exits.acquire(req.country);
    locationApplied = exitCode !== null;
  }

  state.books.countStarted();
  const session = state.sessions.add({
    vmId: state.sessions.newVmId(),
    accountId: account.id,
    poolIndex: plan.pool,
    apiVersion: version,
    browser: req.browser,
    browserName: findImage(req.browser)?.name ?? req.browser,
    url: req.url,
    language: req.language,
    layout: req.layout,
    country: req.country,
    egress: req.egress,
    shareLanguage: req.shareLanguage,
    callbackUrl: req.callbackUrl,
    linkId: newLinkId(),
    idempotencyKey: req.idempotencyKey,
    created: now,
    locationRequested: req.country !== null,
    locationApplied,
    locationReason: locationApplied ? null : "unavailable",
    exitCode,
  });
  return { ok: true, session, meter: state.meter(account, now) };
}

export function shareLink(state: EmulatorState, session: Session): { shareUrl: string; shareUrlPath: string } {
  const shareUrlPath = `/${session.shareLanguage}/s?${session.linkId}`;
  return { shareUrl: `${state.shareBase}${shareUrlPath}`, shareUrlPath };
}
