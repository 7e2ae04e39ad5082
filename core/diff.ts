import { IN_PLACE_INPUTS, REPLACING_INPUTS, isUnknown } from "./fields";
import { withoutNulls } from "./outputs";

/**
 * Diff, from the field table: a session cannot be changed once started, so a change of any input sent to
 * the service replaces it; the provider's own inputs change in place. No API call.
 */
export function diff(olds: Record<string, unknown>, news: Record<string, unknown>) {
  const replaces = REPLACING_INPUTS.filter((k) => differs(olds[k], news[k]));
  const updates = IN_PLACE_INPUTS.filter((k) => differs(olds[k], news[k]));
  // The old session is ended before its replacement starts, so that a plan whose running limit is
  // already used up (a limit of 1, say) can still change a session. The share link changes either way.
  return {
    changes: replaces.length + updates.length > 0,
    replaces: replaces as string[],
    /** The in-place inputs that change, for a front that shows them (the plugin's detailed diff). */
    updates: updates as string[],
    deleteBeforeReplace: replaces.length > 0,
  };
}

/** Update: records the in-place inputs; nothing is sent to the service. */
export function update(olds: Record<string, unknown>, news: Record<string, unknown>): { outs: Record<string, unknown> } {
  const outs = { ...olds };
  for (const k of IN_PLACE_INPUTS) outs[k] = news[k] ?? undefined;
  return { outs: withoutNulls(outs) };
}

/**
 * Whether a recorded value and a new one differ, the one equality of every diff (a session's inputs, the
 * plugin's settings): absent and null are the same, a value not known yet differs, the rest by value.
 */
export function differs(a: unknown, b: unknown): boolean {
  if (isUnknown(b)) return true;
  const na = a === undefined || a === null;
  const nb = b === undefined || b === null;
  if (na || nb) return na !== nb;
  return JSON.stringify(a) !== JSON.stringify(b);
}
