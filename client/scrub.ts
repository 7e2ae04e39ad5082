/**
 * Service text is untrusted output. A `denied` answer may repeat the credentials it refused ("invalid key
 * Bearer sk_…"), a proxy may echo a request back, and whatever the service writes becomes the message the
 * engine prints -- where the CLI masks only values it knows to be secret (stack config set with
 * `--secret`), not a key from the environment as CI passes it. So every piece of service text is scrubbed
 * before it becomes part of an error, by the transport that sent the request and so knows its secrets.
 */

/** What every derived idempotency key looks like (core/keys.ts derives them; the runner redacts them). */
export const DERIVED_KEY_PREFIX = "prb-";
export const DERIVED_KEY_HEX_LENGTH = 48;

/**
 * At most this many characters of service text reach an error: enough for any message the spec shows,
 * while a service (or a proxy's error page) that answers with a whole request dump does not flood the
 * engine's display and log with it.
 */
export const SERVICE_TEXT_MAX = 400;

/** Shorter values are not searched for: replacing every "ab" would garble the message and hide nothing. */
const MIN_SECRET_LENGTH = 3;

const HIDDEN = "[redacted]";

/**
 * The spellings a secret takes in text: as is (also inside `Bearer …`), URL-encoded (upper- and lower-case
 * hex, `+` for a space as a form body writes it) and JSON-escaped (a message that quotes the request body).
 */
function spellings(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  const forms = [
    secret,
    encoded,
    encoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    encoded.replace(/%20/g, "+"),
    JSON.stringify(secret).slice(1, -1),
  ];
  return [...new Set(forms)];
}

/**
 * A function that hides `secrets` (the request's API key and idempotency key) in any of their spellings,
 * any derived idempotency key and any bearer credential, and caps the result at SERVICE_TEXT_MAX characters.
 * Scrubbed before capping: a cut could leave the start of a key no longer recognisable as one.
 */
export function serviceTextScrubber(secrets: Iterable<string | undefined>): (text: string) => string {
  const literals = [...new Set([...secrets].filter((s): s is string => typeof s === "string" && s.length >= MIN_SECRET_LENGTH))]
    .flatMap(spellings)
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const s of literals) out = out.split(s).join(HIDDEN);
    out = out
      .replace(new RegExp(`${DERIVED_KEY_PREFIX}[0-9a-fA-F]{${DERIVED_KEY_HEX_LENGTH}}`, "g"), `${DERIVED_KEY_PREFIX}${HIDDEN}`)
      // Any credential presented in the Authorization header's form, the configured key's or another's.
      .replace(/\b(Bearer|Basic)(\s+|%20|\+)(?!\[redacted\])[^\s"'<>,;]+/gi, `$1$2${HIDDEN}`);
    return out.length > SERVICE_TEXT_MAX ? `${out.slice(0, SERVICE_TEXT_MAX)}… (${out.length - SERVICE_TEXT_MAX} more characters not shown)` : out;
  };
}
