import type { Reply } from "./answers";
import { answers } from "./answers";
import type { ApiContext } from "./api-v8";
import { launch, shareLink } from "./launch";
import { creditMeter, sessionQuota } from "./meters";
import { validateCreate } from "./validate";

/**
 * Version 7 start call: same sessions as version 8, older contract. It knows no `upgrade`, so plan
 * refusals are `denied` ("quota exceeded"), and its answer has no location fields.
 */
export function v7Create({ state, account, body }: ApiContext): Reply {
  const valid = validateCreate(body, "v7");
  if (!valid.ok) return answers.denied(valid.message);

  if (account.v7Plan === "credits" && account.credits !== null) {
    const used = state.meter(account).cycle_sessions_used;
    if (used >= account.credits) {
      return answers.denied(`quota exceeded: all ${account.credits} credits of this cycle are used`);
    }
  }
  const outcome = launch(state, account, valid.value, "v7");
  if (!outcome.ok) return answers.denied(outcome.limit ? `quota exceeded: ${outcome.message}` : outcome.message);

  const { session, meter } = outcome;
  const now = Date.now();
  const quota = account.v7Plan === "credits" ? creditMeter(account.credits, meter, now) : sessionQuota(meter);
  return {
    ...answers.ok({ vmId: session.vmId, ...shareLink(state, session), quota }),
    vmId: session.vmId,
  };
}

/** Version 7 account answers: the version 8 fields without `pools`. */
export function v7UserApi({ state, account }: ApiContext): Reply {
  return answers.ok({
    contact: account.contact,
    feature_programmatic_access: account.programmaticAccess,
    has_plan: account.hasPlan,
    ...state.meter(account),
  });
}

export function v7UserQuota({ state, account }: ApiContext): Reply {
  return answers.ok({ has_plan: account.hasPlan, ...state.meter(account) });
}
