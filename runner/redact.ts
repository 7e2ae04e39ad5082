import { DERIVED_KEY_PREFIX, derivedKeyPattern, secretSpellings } from "../client/secretShapes";

/**
 * Redaction of what the engine writes while it runs. At higher log verbosity Pulumi itself prints secret
 * values in plain text: the engine logs provider configuration (`{&{{value}}}`, from -v=7) and provider
 * answers (from -v=9, where a create's outputs show the derived idempotency key as `{prb-…}` before the
 * engine marks it secret), and the Node.js SDK logs each resource's registration answer, secret envelope
 * and all (from -v=3). So everything the runner passes on goes through this first: the secret config
 * values it was given, any value in either of those secret encodings, anything shaped like a share link,
 * a derived idempotency key (with the API key it replays its session's create, share link and all) or a
 * Pulumi access token, and the password of any URL (a backend URL such as postgres://user:password@host/db).
 */
/** Query parameters of connection URLs that carry a password (libpq's, MySQL's, and common spellings). */
const PASSWORD_PARAMS = /[a-z_]*pass(?:word|wd|phrase)?|pwd|secret|token|sslkey_?password/;
const PASSWORD_PARAM = new RegExp(`^(?:${PASSWORD_PARAMS.source})$`, "i");

const SECRET_SIG = "4dabf18193072939515e22adb298388d,,,1b47061264138c4ac30d75fd1eb44270,value,,,";
const PATTERNS: Array<[RegExp, string]> = [
  [/\{&\{\{[^{}]*\}\}\}/g, "{&{{[secret]}}}"],
  [new RegExp(`(${SECRET_SIG})[^,]*`, "g"), "$1[secret]"],
  // A share link's path: /<locale>/s?<link id>, the id in any URL-safe or base64 alphabet (`+`, `/`, `=`
  // included), or given as a parameter (/<locale>/s?id=<link id>).
  [/(\/(?:en|de|fr|es|it|pt|ja)\/s\?(?:id=)?)[A-Za-z0-9_~.%+/=-]{6,}/g, "$1[secret]"],
  [derivedKeyPattern(), `${DERIVED_KEY_PREFIX}[secret]`],
  // A Pulumi access token (the CLI logs its request headers above -v=9; the runner caps verbosity at 9).
  [/\bpul-[0-9a-f]{40}\b/g, "pul-[secret]"],
  // The password of a URL's user info: scheme://user:password@host. Up to the last `@` before the path, as
  // URL parsers split it: a password may hold an unencoded `@` (postgres://user:pa@ss@db).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:)[^\s/?#]+@/gi, "$1[secret]@"],
  // A password in a URL's query or a connection string (postgres://u@host/db?password=…, sslpassword=…).
  [new RegExp(`([?&;\\s](?:${PASSWORD_PARAMS.source})=)[^&;\\s'"]*`, "gi"), "$1[secret]"],
];

/** Names of environment variables whose values are taken for secrets (PULUMI_ACCESS_TOKEN, *_API_KEY, ...). */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD|PASSPHRASE/i;

/** The values of an environment's variables whose names say they are secret, for `redactor`. */
export function secretsOfEnvironment(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && !!value)
    .map(([, value]) => value!);
}

export function redactor(secrets: Iterable<string>): (text: string) => string {
  const literals = [...new Set([...secrets].filter((s) => s.length >= 6).flatMap(secretSpellings))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const s of literals) out = out.split(s).join("[secret]");
    for (const [re, by] of PATTERNS) out = out.replace(re, by);
    return out;
  };
}

/** Applies `redact` to whole lines only, so that a value split across two chunks is still found. */
export function lineRedactingSink(sink: (text: string) => void, redact: (text: string) => string) {
  let pending = "";
  return {
    write(chunk: string) {
      pending += chunk;
      const end = pending.lastIndexOf("\n");
      if (end < 0) return;
      sink(redact(pending.slice(0, end + 1)));
      pending = pending.slice(end + 1);
    },
    flush() {
      if (pending) sink(redact(pending));
      pending = "";
    },
  };
}

/**
 * The passwords of a URL -- its user info's, and any query parameter that carries one (`password=`,
 * `sslpassword=`, ...) -- as written and decoded, to redact wherever they appear on their own.
 */
export function credentialsOf(url: string | undefined): string[] {
  if (!url) return [];
  const found: string[] = [];
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:([^\s/?#]+)@/i.exec(url);
  if (m) found.push(m[1]!);
  const query = url.indexOf("?");
  if (query >= 0) {
    for (const pair of url.slice(query + 1).split(/[&;]/)) {
      const eq = pair.indexOf("=");
      if (eq > 0 && PASSWORD_PARAM.test(pair.slice(0, eq)) && eq < pair.length - 1) found.push(pair.slice(eq + 1).replace(/#.*$/, ""));
    }
  }
  return found.flatMap((raw) => {
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw.replace(/\+/g, " "));
    } catch {
      // not percent-encoded after all
    }
    return decoded === raw ? [raw] : [raw, decoded];
  });
}

/**
 * Redacts an error before it is passed on: its message and stack, the text fields the runner and the CLI
 * helpers attach (stdout, stderr), the Automation API's CommandError.commandResult (the CLI's whole
 * transcript: stdout, stderr and the underlying error) and any cause. The same object is returned, so its
 * class (CommandError, ConcurrentUpdateError...) still tells callers what went wrong.
 */
export function redactError(e: unknown, redact: (t: string) => string, seen = new Set<unknown>()): unknown {
  if (typeof e === "string") return redact(e);
  if (!e || typeof e !== "object" || seen.has(e)) return e;
  seen.add(e);
  const o = e as Record<string, unknown>;
  for (const key of ["message", "stack", "stdout", "stderr", "shortMessage", "originalMessage", "all"]) {
    if (typeof o[key] === "string") {
      try {
        o[key] = redact(o[key] as string);
      } catch {
        // a read-only property: nothing of it is passed on by the runner
      }
    }
  }
  const result = o.commandResult as Record<string, unknown> | undefined;
  if (result && typeof result === "object") {
    for (const key of ["stdout", "stderr"]) if (typeof result[key] === "string") result[key] = redact(result[key] as string);
    if (result.err !== undefined) result.err = redactError(result.err, redact, seen);
  }
  if (o.cause !== undefined) o.cause = redactError(o.cause, redact, seen);
  return e;
}
