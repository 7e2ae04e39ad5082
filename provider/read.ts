import { ENDED_STATES } from "../client";
import type { ProviderContext } from "./context";
import { assertSameOwner } from "./owner";
import { unprovenOwner } from "./unproven";
import { fromEntry, inputsFrom, withoutNulls } from "./outputs";

export interface ReadResult {
  id?: string;
  props?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
}

/**
 * Refresh, by the version the session was started with. (The engine's import would call this without
 * props; the SDK turns imports into adoptions instead.)
 */
export function read(ctx: ProviderContext, id: string, props: Record<string, unknown> = {}): Promise<ReadResult> {
  return ctx.versionOf(props).read(ctx, id, props);
}

/**
 * Version 8: the session's state from the service. A session that has ended, failed or that the service
 * does not know is gone (no id) -- but "unknown" means gone only when the account and service that made
 * the session are the ones asking, as its fingerprint shows; under another one, or when nothing recorded
 * shows it, read fails and the session stays in the stack.
 */
export async function readV8(ctx: ProviderContext, id: string, props: Record<string, unknown>): Promise<ReadResult> {
  const { proven, record } = assertSameOwner(id, props.owner, await ctx.identity(), "refreshing");
  const entry = await ctx.api().session(id);
  if (!entry && !proven) throw unprovenOwner(id, props.owner, "refreshing");
  if (!entry || entry.status === "error" || ENDED_STATES.includes(entry.status)) return {};
  // The service shows the session to this account, so it is this account's: a session recorded without a
  // fingerprint, or with the legacy one, records the current kind now (the one refresh after the upgrade
  // shows this as a change of the session's outputs; later ones show none).
  const outs = withoutNulls({ ...props, ...fromEntry(entry), owner: record });
  return { id, props: outs, inputs: inputsFrom(outs) };
}
