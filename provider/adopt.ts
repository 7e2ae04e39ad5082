import { ENDED_STATES } from "../client";
import type { ProviderContext } from "./context";
import { ImportError } from "./errors";
import { DEFAULT_READY_TIMEOUT_SECONDS } from "./fields";
import type { SessionInputs, SessionOutputs } from "./fields";
import { describe } from "./create";
import { fromEntry, mirrorInputs } from "./outputs";
import { sessionProgress, urnOf } from "./progress";
import { waitForRunning } from "./wait";

/**
 * Import: takes over a session that was started elsewhere, by the configured key's account. The status
 * operation tells its state, browser and start time but not its share link, so an adopted session has
 * no shareUrl. It records the account's fingerprint, like a session this provider started.
 */
export async function adoptV8(
  ctx: ProviderContext,
  inputs: SessionInputs & Record<string, unknown>,
  vmId: string,
): Promise<{ id: string; outs: SessionOutputs }> {
  const client = ctx.api();
  const owner = await ctx.owner();
  const entry = await client.session(vmId);
  if (!entry) throw new ImportError(`importing ${vmId}: the service knows no such session of the configured key's account (${owner})`, { vmId });
  if (entry.status === "error" || ENDED_STATES.includes(entry.status)) {
    throw new ImportError(`importing ${vmId}: the session has ended (state "${entry.status}")`, { vmId });
  }
  const image = (await ctx.images()).images.find((i) => i.name === entry.name);
  if (image && image.id !== inputs.browser) {
    throw new ImportError(`importing ${vmId}: it runs ${entry.name} (browser "${image.id}"), not browser "${inputs.browser}"`, { vmId });
  }
  const outs: SessionOutputs = { ...mirrorInputs(inputs), vmId, status: entry.status, apiVersion: "v8", ...fromEntry(entry), owner };
  if (entry.status === "running") return { id: vmId, outs };
  const outcome = await waitForRunning({
    client,
    vmId,
    timeoutMs: (inputs.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS) * 1000,
    schedule: ctx.schedule,
    sleep: ctx.clock.sleep,
    now: ctx.clock.now,
    engineAlive: ctx.engineAlive,
    onProgress: sessionProgress(urnOf(inputs)).waiting,
  });
  if (outcome.kind !== "running") throw new ImportError(`importing ${vmId}: it did not reach running (${describe(outcome)})`, { vmId });
  return { id: vmId, outs: { ...outs, ...fromEntry(outcome.entry) } };
}
