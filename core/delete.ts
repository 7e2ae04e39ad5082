import { isRemoteBrowserError } from "../client";
import type { SessionEntry } from "../client";
import type { ProviderContext } from "./context";
import { SessionKeptError } from "./errors";
import type { OwnerIdentity } from "./owner";
import { errorText } from "./outputs";
import { sessionName } from "./progress";
import { assertSameOwner, recordsOwner, unprovenOwner } from "./stateUpgrades";
import { byRecordedVersion } from "./requests";
import type { DeleteSessionRequest } from "./requests";

/** Destroy, by the version the session was started with. `props` are the recorded outputs. */
export const del = byRecordedVersion<void, DeleteSessionRequest>({ v8: deleteV8, v7: deleteV7 }, "ending a session");

/**
 * Version 8: ends the session. One the service does not know counts as gone -- if the account that made
 * it asks, as its fingerprint shows. Every other failure is thrown, so the resource stays in the stack
 * for the next destroy.
 */
export async function deleteV8(ctx: ProviderContext, req: DeleteSessionRequest): Promise<void> {
  if (ctx.wasHandedOverEarlierSession(req.id)) {
    // Within one update the engine deletes a session a create has just handed it only as the original of
    // a create-before-delete replacement: that create was not shown the session it replaces (a replacement
    // the engine decides without asking the provider), and its idempotency key answered with that very
    // session, started by an earlier run. Ending it would leave the stack recording an ended session.
    await ctx.reporter(req.urn).warning(
      `${sessionName(req.name)}: session ${req.id} was not replaced: the engine replaced it create-before-delete without showing the provider the ` +
        "session it replaces, and its replacement is the same session, which keeps running. To replace it, set the resource option " +
        "deleteBeforeReplace: true, or run the same command with --refresh",
    );
    return;
  }
  const seconds = req.engineTimeoutSeconds;
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return endSession(ctx, req);
  // customTimeouts.delete bounds the whole of it -- the account read, the remove and its retries, the
  // look that tells "unknown" from "refused" -- and not only each call.
  const bound = new AbortController();
  const timer = setTimeout(() => bound.abort(new Error("customTimeouts.delete")), seconds * 1000);
  const timedOut = new Promise<never>((_, reject) => bound.signal.addEventListener("abort", () => reject(bound.signal.reason), { once: true }));
  const ending = endSession(ctx, req, bound.signal);
  ending.catch(() => undefined);
  try {
    return await Promise.race([ending, timedOut]);
  } catch (err) {
    if (!bound.signal.aborted) throw err;
    throw new SessionKeptError(
      `ending session ${req.id} did not finish within the resource's customTimeouts.delete (${seconds} s), so it stays in the stack and may still run: ` +
        "run `pulumi destroy` again (or `pulumi up`) once the service answers, or raise customTimeouts.delete",
      { vmId: req.id },
    );
  } finally {
    clearTimeout(timer);
  }
}

async function endSession(ctx: ProviderContext, { id, props }: DeleteSessionRequest, signal?: AbortSignal): Promise<void> {
  const client = ctx.api();
  // State of 0.1.0 has no fingerprint to compare: the account is not read, and nothing is proven.
  let proven = false;
  if (recordsOwner(props)) {
    let identity: OwnerIdentity;
    try {
      identity = await ctx.identity();
    } catch (err) {
      throw keptInStack(id, err);
    }
    proven = assertSameOwner(id, props.owner, identity, "ending").proven;
  }
  try {
    await client.removeSession(id, signal);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    // `denied` means an unknown session -- or a refused key. Only the first counts as gone.
    if (isRemoteBrowserError(err) && err.code === "denied") {
      let entry: SessionEntry | undefined;
      try {
        entry = await client.session(id, signal);
      } catch (lookup) {
        throw keptInStack(id, lookup);
      }
      if (!entry) {
        if (proven) return;
        throw unprovenOwner(id, props.owner, "ending");
      }
    }
    throw keptInStack(id, err);
  }
}

/** Version 7 cannot end sessions: destroy says so and lets the resource go. */
export async function deleteV7(ctx: ProviderContext, { id, urn }: DeleteSessionRequest): Promise<void> {
  await ctx.reporter(urn).warning(`BrowserSession ${id} was started with API version 7, which cannot end sessions: end it in the service's console`);
}

function keptInStack(id: string, err: unknown): SessionKeptError {
  return new SessionKeptError(`ending session ${id} failed, so it stays in the stack for a later destroy to retry: ${errorText(err)}`, {
    vmId: id,
    cause: err,
  });
}
