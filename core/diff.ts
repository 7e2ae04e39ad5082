import { IN_PLACE_INPUTS, REPLACING_INPUTS, isUnknown } from "./fields";
import { withoutNulls } from "./outputs";

/** How one input's change lands: on the running session, or on a new one. */
export type ChangeKind = "update" | "replace";

/**
 * Diff, from the field table: a session cannot be changed once started, so a change of an input sent to
 * the service replaces it -- except the share link's language, which is a segment of the link; the
 * provider's own inputs change in place. No API call.
 */
export function diff(olds: Record<string, unknown>, news: Record<string, unknown>) {
  const replaces = REPLACING_INPUTS.filter((k) => differs(olds[k], news[k]));
  const updates = IN_PLACE_INPUTS.filter((k) => differs(olds[k], news[k]));
  const detailed: Record<string, ChangeKind> = {};
  for (const k of updates) detailed[k] = "update";
  for (const k of replaces) detailed[k] = "replace";
  return {
    changes: replaces.length + updates.length > 0,
    replaces: replaces as string[],
    /** The in-place inputs that change. */
    updates: updates as string[],
    /** Each changed input and what its change does, for a front that shows it (the plugin's detailed diff). */
    detailed,
    // Always, also with no change at all: the engine takes this answer for the replacements it decides
    // itself after asking (replaceOnChanges on an in-place input). Ending the old session first lets a plan
    // whose running limit is used up (a limit of 1) still replace one; the link is down meanwhile, which a
    // program that prefers two sessions at once chooses with the deleteBeforeReplace: false option.
    deleteBeforeReplace: true,
  };
}

/**
 * Update: records the in-place inputs; nothing is sent to the service. A new shareLanguage rewrites the
 * `<locale>` segment of the recorded share links (`{share_base}/<locale>/s?<link_id>`).
 */
export function update(olds: Record<string, unknown>, news: Record<string, unknown>): { outs: Record<string, unknown> } {
  const outs = { ...olds };
  for (const k of IN_PLACE_INPUTS) outs[k] = news[k] ?? undefined;
  const locale = typeof news.shareLanguage === "string" ? news.shareLanguage : DEFAULT_SHARE_LANGUAGE;
  for (const k of ["shareUrl", "shareUrlPath"] as const) if (typeof outs[k] === "string") outs[k] = withLocale(outs[k] as string, locale);
  return { outs: withoutNulls(outs) };
}

/** The service's viewer language when a create names none. */
export const DEFAULT_SHARE_LANGUAGE = "en";

/** A share link (or its path form) with its `<locale>` segment, the one before `/s?`, set to `locale`. */
export function withLocale(link: string, locale: string): string {
  return link.replace(/\/[^/?#]*\/s\?/, `/${locale}/s?`);
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
