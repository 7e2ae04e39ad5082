import { isRemoteBrowserError } from "../client";
import type { SessionEntry } from "../client";
import type { ProviderContext } from "./context";
import { SessionKeptError } from "./errors";
import type { OwnerIdentity } from "./owner";
import { errorText } from "./outputs";
import { assertSameOwner, recordsOwner, unprovenOwner } from "./stateUpgrades";
import { byRecordedVersion } from "./requests";
import type { DeleteSessionRequest } from "./requests";

/** Destroy, by the version the session was started with. `props` are the recorded outputs. */
export const del = byRecordedVersion<void>({ v8: deleteV8, v7: deleteV7 }, "ending a session");

/**
 * Version 8: ends the session. One the service does not know counts as gone -- if the account that made
 * it asks, as its fingerprint shows. Every other failure is thrown, so the resource stays in the stack
 * for the next destroy.
 */
export async function deleteV8(ctx: ProviderContext, { id, props }: DeleteSessionRequest): Promise<void> {
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
    await client.removeSession(id);
  } catch (err) {
    // `denied` means an unknown session -- or a refused key. Only the first counts as gone.
    if (isRemoteBrowserError(err) && err.code === "denied") {
      let entry: SessionEntry | undefined;
      try {
        entry = await client.session(id);
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
