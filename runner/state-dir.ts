import * as fs from "node:fs";
import * as path from "node:path";

/** The runner's own folder in a working folder: PULUMI_HOME and, unless a backend is given, the file backend. */
export function defaultStateDir(workDir: string): string {
  return path.join(workDir, ".pulumi-local");
}

/**
 * Creates the state folder 0700, ignored by git from inside (as a Python venv is): it sits in a working
 * folder that is often a checkout, and `git add .` must not take the stacks' state, their backups and the
 * CLI's home into a commit.
 */
export function makeStateDir(stateDir: string): void {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const ignore = path.join(stateDir, ".gitignore");
  if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, "# made by pulumi-remote-browser's runner: its state is never committed\n*\n");
}
