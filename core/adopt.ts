import { hasEndedOrFailed } from "../client";
import type { ApiVersion } from "../client";
import type { ProviderContext } from "./context";
import { ImportError } from "./errors";
import { DEFAULT_READY_TIMEOUT_SECONDS } from "./fields";
import type { SessionOutputs } from "./fields";
import { unconfirmedWarning } from "./imported";
import { fromEntry, mirrorInputs } from "./outputs";
import { sessionProgress } from "./progress";
import { describe, waitForRunning } from "./wait";
import type { AdoptSessionRequest } from "./requests";

/**
 * Import: takes over a session that was started elsewhere, by the configured key's account. The status
 * operation tells its state, browser and start time but not its share link, so an adopted session has
 * no shareUrl; its other inputs are recorded as declared, unconfirmed, and a warning says so
 * (core/imported.ts). It records the account's fingerprint, like a session this provider started.
 */
export async function adoptV8(ctx: ProviderContext, req: AdoptSessionRequest): Promise<{ id: string; outs: SessionOutputs }> {
  const { inputs, vmId } = req;
  const client = ctx.api();
  const { entry, owner } = await sessionToTakeOver(ctx, vmId, inputs.browser, `importing ${vmId}`);
  const outs: SessionOutputs = { ...mirrorInputs(inputs), vmId, status: entry.status, apiVersion: "v8", ...fromEntry(entry), owner };
  await ctx.reporter(req.urn).warning(unconfirmedWarning(vmId, Object.keys(mirrorInputs(inputs))));
  if (entry.status === "running") return { id: vmId, outs };
  const outcome = await waitForRunning({
    client,
    vmId,
    timeoutMs: (inputs.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS) * 1000,
    schedule: ctx.schedule,
    sleep: ctx.clock.sleep,
    now: ctx.clock.now,
    engineAlive: ctx.engineAlive,
    cancelled: ctx.cancelled,
    onProgress: sessionProgress(ctx.reporter(req.urn)).waiting,
  });
  if (outcome.kind !== "running") throw new ImportError(`importing ${vmId}: it did not reach running (${describe(outcome)})`, { vmId });
  return { id: vmId, outs: { ...outs, ...fromEntry(outcome.entry) } };
}

/** Version 7 has no status operation: there is nothing to take over by. */
export async function adoptV7(_ctx: ProviderContext, { vmId }: AdoptSessionRequest): Promise<never> {
  throw new ImportError(`importing ${vmId}: API version 7 has no status operation`, { vmId });
}

/** Import, by the configured version. */
export const ADOPT: Record<ApiVersion, typeof adoptV8> = { v8: adoptV8, v7: adoptV7 };

/**
 * The session to take over, checked: known to the key's account, not ended, and running `browser` when
 * given. `doing` says what the user asked for, in their words (an import, a `get`).
 */
export async function sessionToTakeOver(ctx: ProviderContext, vmId: string, browser: string | undefined, doing: string) {
  const owner = await ctx.owner();
  const entry = await ctx.api().session(vmId);
  if (!entry) {
    // The account's fingerprint means nothing to a user here; what to check does.
    throw new ImportError(
      `${doing}: the service knows no such session of the account whose key is configured; check the id, and that the key is the one of the account that started the session`,
      { vmId },
    );
  }
  if (hasEndedOrFailed(entry.status)) {
    throw new ImportError(`${doing}: the session has ended (state "${entry.status}"), so there is nothing to take into the stack`, { vmId });
  }
  const image = (await ctx.images()).images.find((i) => i.name === entry.name);
  if (browser !== undefined && image && image.id !== browser) {
    throw new ImportError(`${doing}: it runs ${entry.name} (browser "${image.id}"), not browser "${browser}"`, { vmId });
  }
  return { entry, image, owner };
}
