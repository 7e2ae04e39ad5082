/**
 * What a secret looks like in text, for the two that hide secrets there: the transport, in the service's
 * text before it becomes part of an error, and the runner (runner/redact.ts), in everything it passes on.
 * A module of its own, importing nothing: the runner starts without the service's client (zod and every
 * schema), which the transport loads.
 */

/**
 * What every derived idempotency key looks like (core/launch.ts derives them). A derived key replays its
 * session's create (and so hands out its share link) to anyone holding the account's API key: the
 * transport hides such keys in the service's text, and the runner redacts anything of this shape.
 */
export const DERIVED_KEY_PREFIX = "prb-";
export const DERIVED_KEY_HEX_LENGTH = 48;

/**
 * The spellings a secret takes in text: as is (also inside `Bearer …`), URL-encoded (upper- and lower-case
 * hex, `+` for a space as a form body writes it) and JSON-escaped once and twice (a message that quotes the
 * request body; a JSON event that quotes such a message). The transport's scrub and the runner's redaction
 * (runner/redact.ts) both search for these.
 */
export function secretSpellings(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [secret, encoded, encoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()), encoded.replace(/%20/g, "+"), json, JSON.stringify(json).slice(1, -1)];
  return [...new Set(forms)];
}

/** A derived idempotency key anywhere in a text (a new global expression each call: it keeps its place). */
export function derivedKeyPattern(): RegExp {
  return new RegExp(`${DERIVED_KEY_PREFIX}[0-9a-fA-F]{${DERIVED_KEY_HEX_LENGTH}}`, "g");
}
