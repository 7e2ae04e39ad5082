/**
 * Commands the runner and the audit print for the user to run next. Each names the stack fully -- the project
 * too, also when the run derived it from the program's folder: without it the next command would look for
 * the stack in another project -- and the backend only by a form that holds no password.
 */

/** Quotes `text` for a POSIX shell where needed; a `$VAR` reference stays expandable. */
export function shellQuote(text: string): string {
  if (/^\$[A-Z_][A-Z0-9_]*$/.test(text)) return `"${text}"`;
  // A placeholder for the user to fill in, as in usage texts.
  if (/^<[^<>'\n]*>$/.test(text)) return text;
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export interface RunnerCommandParts {
  program?: string;
  stack: string;
  project: string;
  workDir?: string;
  /** The backend as it may be shown: `--backend <url without password>` or `--backend-env <VAR>`. */
  backend?: string;
}

/** The runner's command line for `action` on the same stack; `extra` is appended (e.g. a flag). */
export function runnerCommand(action: string, parts: RunnerCommandParts, extra?: string): string {
  const program = parts.program && (action === "up" || action === "preview") ? ["--program", shellQuote(parts.program)] : [];
  return ["pulumi-remote-browser-run", action, ...program, "--stack", shellQuote(parts.stack), "--project", shellQuote(parts.project)]
    .concat(parts.workDir ? ["--work-dir", shellQuote(parts.workDir)] : [])
    .concat(parts.backend ? parts.backend.split(" ").map((w, i) => (i === 0 ? w : shellQuote(w))) : [])
    .concat(extra ? [extra] : [])
    .join(" ");
}
