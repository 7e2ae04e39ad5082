import { ENDED_STATES } from "../client";
import type { ProviderContext } from "./context";
import { assertSameOwner } from "./owner";
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
 * the session are the ones asking; under another one, read fails and the session stays in the stack.
 */
export async function readV8(ctx: ProviderContext, id: string, props: Record<string, unknown>): Promise<ReadResult> {
  const owner = await ctx.owner();
  assertSameOwner(id, props.owner, owner, "refreshing");
  const entry = await ctx.api().session(id);
  if (!entry || entry.status === "error" || ENDED_STATES.includes(entry.status)) return {};
  // A session recorded before fingerprints existed is the current account's, since it knows it: record
  // that now (the one refresh after the upgrade shows this as a change of the session's outputs).
  const outs = withoutNulls({ ...props, ...fromEntry(entry), owner });
  return { id, props: outs, inputs: inputsFrom(outs) };
}
