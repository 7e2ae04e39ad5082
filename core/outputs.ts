import type { SessionEntry } from "../client";
import { API_INPUTS, PROVIDER_INPUTS } from "./fields";
import type { SessionInputs, SessionOutputs } from "./fields";

/** The inputs a session's outputs repeat, so that a refresh can hand them back and create no diff. */
export function mirrorInputs(inputs: Record<string, unknown>): SessionInputs {
  const out: Record<string, unknown> = {};
  for (const k of [...API_INPUTS, ...PROVIDER_INPUTS]) if (inputs[k] !== undefined && inputs[k] !== null) out[k] = inputs[k];
  return out as unknown as SessionInputs;
}

/** The inputs a refresh records, rebuilt from outputs (which mirror them). */
export function inputsFrom(outs: Record<string, unknown>): Record<string, unknown> {
  return withoutNulls(mirrorInputs(outs) as unknown as Record<string, unknown>);
}

/** What a status entry says about a session. */
export function fromEntry(entry: SessionEntry): Partial<SessionOutputs> {
  const out: Partial<SessionOutputs> = { status: entry.status, browserName: entry.name, created: entry.created };
  if (entry.location_applied !== undefined) out.locationApplied = entry.location_applied;
  if (entry.location_reason !== undefined) out.locationReason = entry.location_reason;
  return out;
}

/** The engine's wire format has no `undefined`: absent fields are left out. */
export function withoutNulls<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out as T;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
