import { spawn } from "node:child_process";

export interface CommandResult {
  /** The exit code; null when a signal ended the command. */
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end and gives back its exit code and output, as spawnSync would, without holding the
 * worker's event loop: a worker that holds it for a minute misses vitest's fixed 60 s message timer and fails
 * the run with every test passed (test/architecture/no-sync-commands.test.ts keeps the tests to this).
 */
export function command(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env, stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
    if (opts.input !== undefined) {
      // A command that exits without reading its input closes the pipe: that is its answer, not an error.
      child.stdin!.on("error", () => undefined);
      child.stdin!.end(opts.input);
    }
  });
}

/** As `command`, and fails naming the command and its output unless it exits 0; gives back its output. */
export async function commandOk(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<string> {
  const r = await command(file, args, opts);
  if (r.status !== 0) throw new Error(`${file} ${args.join(" ")} exited ${r.status}: ${r.stderr}${r.stdout.slice(-4000)}`);
  return r.stdout;
}
