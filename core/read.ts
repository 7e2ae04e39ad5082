import { hasEndedOrFailed } from "../client";
import { sessionToTakeOver } from "./adopt";
import type { ProviderContext } from "./context";
import { ImportError } from "./errors";
import type { SessionInputs, SessionOutputs } from "./fields";
import { assertSameOwner, unprovenOwner } from "./stateUpgrades";
import { fromEntry, inputsFrom, withoutNulls } from "./outputs";
import { checkSessionId } from "./ids";
import { byRecordedVersion } from "./requests";
import type { ReadSessionRequest } from "./requests";

export interface ReadResult {
  id?: string;
  props?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
}

/**
 * Refresh, by the version the session was started with. (The engine's import would call this without
 * props; the SDK turns imports into adoptions instead.)
 */
export const read = byRecordedVersion<ReadResult>({ v8: readV8, v7: readV7 }, "refreshing a session");

/**
 * Version 8: the session's state from the service. A session that has ended, failed or that the service
 * does not know is gone (no id) -- but "unknown" means gone only when the account and service that made
 * the session are the ones asking, as its fingerprint shows; under another one, or when nothing recorded
 * shows it, read fails and the session stays in the stack.
 */
export async function readV8(ctx: ProviderContext, { id, props }: ReadSessionRequest): Promise<ReadResult> {
  const { proven, record } = assertSameOwner(id, props.owner, await ctx.identity(), "refreshing");
  const entry = await ctx.api().session(id);
  if (!entry && !proven) throw unprovenOwner(id, props.owner, "refreshing");
  if (!entry || hasEndedOrFailed(entry.status)) return {};
  // The service shows the session to this account, so it is this account's: a session recorded without a
  // fingerprint, or with the legacy one, records the current kind now (the one refresh after the upgrade
  // shows this as a change of the session's outputs; later ones show none).
  const outs = withoutNulls({ ...props, ...fromEntry(entry), owner: record });
  return { id, props: outs, inputs: inputsFrom(outs) };
}

/** Version 7: no status operation, so refresh keeps what was recorded. */
export async function readV7(ctx: ProviderContext, { id, props, urn }: ReadSessionRequest): Promise<ReadResult> {
  await ctx.reporter(urn).warning(`BrowserSession ${id}: API version 7 has no status operation; refresh keeps the recorded state`);
  return { id, props, inputs: inputsFrom(props) };
}

/**
 * Read by id alone, as the engine does for `pulumi import` and a resource's `get` (`doing` says which, in
 * the caller's words): the session's state, and
 * the inputs that declare it -- its browser, the one input the status operation lets us recover. A
 * session that is unknown to the configured key's account, or has ended, fails the read: importing it
 * would put a session in the stack that the next refresh drops.
 */
export async function readById(
  ctx: ProviderContext,
  vmId: string,
  doing: string,
): Promise<{ inputs: SessionInputs; outs: SessionOutputs }> {
  checkSessionId(vmId, doing);
  if (ctx.version().name !== "v8") throw new ImportError(`${doing}: API version 7 has no status operation`, { vmId });
  const { entry, image, owner } = await sessionToTakeOver(ctx, vmId, undefined, doing);
  if (!image) {
    throw new ImportError(`${doing}: it runs "${entry.name}", which is not among the service's browser images, so its browser input cannot be given`, {
      vmId,
    });
  }
  const inputs: SessionInputs = { browser: image.id };
  return { inputs, outs: { ...inputs, vmId, status: entry.status, apiVersion: "v8", ...fromEntry(entry), owner } };
}
