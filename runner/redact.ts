/**
 * Redaction of what the engine writes while it runs. At higher log verbosity Pulumi itself prints secret
 * values in plain text: the engine logs provider configuration (`{&{{value}}}`, from -v=7) and provider
 * answers (from -v=9), and the Node.js SDK logs each resource's registration answer, secret envelope and
 * all (from -v=3). So everything the runner passes on goes through this first: the secret config values
 * it was given, any value in either of those secret encodings, and anything shaped like a share link.
 */
const SECRET_SIG = "4dabf18193072939515e22adb298388d,,,1b47061264138c4ac30d75fd1eb44270,value,,,";
const PATTERNS: Array<[RegExp, string]> = [
  [/\{&\{\{[^{}]*\}\}\}/g, "{&{{[secret]}}}"],
  [new RegExp(`(${SECRET_SIG})[^,]*`, "g"), "$1[secret]"],
  // A share link's path: /<locale>/s?<link id>.
  [/(\/(?:en|de|fr|es|it|pt|ja)\/s\?)[A-Za-z0-9_~.%-]{6,}/g, "$1[secret]"],
];

export function redactor(secrets: Iterable<string>): (text: string) => string {
  const literals = [...new Set(secrets)].filter((s) => s.length >= 6).sort((a, b) => b.length - a.length);
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
