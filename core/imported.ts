import { API_INPUTS, INPUTS, isUnknown } from "./fields";
import type { InputName } from "./fields";

/**
 * A session taken into a stack rather than started by it: what the provider knows of it, and the stance
 * on what it cannot know. The service's status answer names the session's browser image and its state;
 * it reports none of the other inputs the session was started with (its url, language, layout, country,
 * egress, viewer language, callback, idempotency key), and the provider's own inputs were never given.
 * So an import records those as the program declares them, unconfirmed, and says so at the import; it
 * never reads a value back it could not know, and a change after the import replaces as for any session.
 */

/** The inputs the status answer reports, by which an import is checked (the browser, by its image's name). */
const REPORTED: readonly InputName[] = ["browser"];

/** Inputs sent to the service that an import cannot confirm: the warning names these. */
export const UNCONFIRMED_API_INPUTS: readonly InputName[] = API_INPUTS.filter((k) => !REPORTED.includes(k));

/**
 * The output that marks a session read by id alone (`pulumi import`, the plugin's `import` option): the
 * inputs its state did not record at the import, whose declared values the first diff adopts.
 */
export const UNCONFIRMED_MARK = "unconfirmedInputs";

/** The outputs of a session read by id, marked: every input but the ones the status answer reports. */
export function markUnconfirmed<T extends object>(outs: T): T & { [UNCONFIRMED_MARK]: string[] } {
  const unconfirmed = (Object.keys(INPUTS) as InputName[]).filter((k) => !REPORTED.includes(k));
  return { ...outs, [UNCONFIRMED_MARK]: unconfirmed };
}

/**
 * The warning when a session is taken in by its id: which of its inputs the service cannot confirm --
 * those `declared` by the program where the front knows them (the dynamic resource's adoption), else all.
 */
export function unconfirmedWarning(vmId: string, declared?: readonly string[]): string {
  const names = declared ? UNCONFIRMED_API_INPUTS.filter((k) => declared.includes(k)) : UNCONFIRMED_API_INPUTS;
  const which = declared ? `declared: ${names.length ? names.join(", ") : "none"}` : names.join(", ");
  return (
    `BrowserSession ${vmId}, taken in by its id: the service reports its browser and state, not the other inputs it was started with (${which}). ` +
    "The stack records those as the program declares them, unconfirmed: declare the values the session was started with, or the stack " +
    "describes another session than the one running. A later change of one replaces the session. Its share link is unknown (no shareUrl)."
  );
}

/**
 * The recorded side of a diff, with the inputs an import could not record filled in: from the inputs
 * the state records (the program's since the import, or since the first update after a `pulumi import`),
 * else adopted as the program now declares them -- on both sides, so that a value not known yet at
 * preview is no change either. A session not imported is returned as it is.
 */
export function withDeclaredAdopted(
  olds: Record<string, unknown>,
  oldInputs: Record<string, unknown>,
  news: Record<string, unknown>,
): { olds: Record<string, unknown>; news: Record<string, unknown> } {
  const unconfirmed = olds[UNCONFIRMED_MARK];
  if (!Array.isArray(unconfirmed)) return { olds, news };
  const o = { ...olds };
  const n = { ...news };
  for (const k of unconfirmed) {
    if (typeof k !== "string") continue;
    const recorded = oldInputs[k];
    if (recorded !== undefined && recorded !== null) o[k] = recorded;
    else if (isUnknown(n[k])) delete n[k];
    else o[k] = n[k];
  }
  return { olds: o, news: n };
}
