/**
 * The service lists the account's sessions with their ids "partly masked" and does not say how. All this
 * package assumes is that a masked id shows some of the id's characters and hides the others behind mask
 * characters: a run of them stands for one or more hidden characters. A listed session is then a candidate
 * for a known vmId when every visible character agrees, in order. Several vmIds can agree with one masked
 * id (and one vmId with several listed sessions): callers count such collisions instead of guessing.
 */

/** Characters a service uses to hide part of an id. */
const MASK = "*•…";

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The masked id as a whole-string pattern: visible characters literally, each run of mask characters as `.+`. */
export function maskedIdPattern(masked: string): RegExp {
  const parts = masked.split(new RegExp(`[${escape(MASK)}]+`, "u"));
  return new RegExp(`^${parts.map(escape).join(".+")}$`, "su");
}

/** Whether `vmId` could be the session listed as `masked`: every visible character agrees. */
export function maskedIdMatches(masked: string, vmId: string): boolean {
  return maskedIdPattern(masked).test(vmId);
}

/** Whether an id shows everything (no mask character): then it can be acted on. */
export function isMasked(id: string): boolean {
  return [...id].some((c) => MASK.includes(c));
}
