import { spawn } from "node:child_process";

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to the command's standard input; without it the command reads nothing. */
  input?: string;
  /** Let the command's standard error through to ours, for the long builds whose progress a user waits on. */
  stderr?: "inherit";
}

export interface RunResult {
  /** The exit code; null when a signal ended the command. */
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end and gives back its exit code and output. The release and the tests run their
 * commands through it or `run`, never a *Sync call: in a test, a worker that waits synchronously answers
 * nothing meanwhile, not even the emulator it hosts (test/architecture/no-sync-commands.test.ts).
 */
export function runStatus(command: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const stdin = opts.input === undefined ? "ignore" : "pipe";
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: [stdin, "pipe", opts.stderr ?? "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
    if (opts.input !== undefined) {
      // A command that exits without reading its input closes the pipe: that is its answer, not an error.
      child.stdin!.on("error", () => undefined);
      child.stdin!.end(opts.input);
    }
  });
}

/** Runs a command and gives back its standard output; unless it exits 0, fails naming it, with its output. */
export async function run(command: string, args: string[], opts: RunOptions = {}): Promise<string> {
  const r = await runStatus(command, args, opts);
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${r.status}):\n${r.stderr}\n${r.stdout.slice(-4000)}`);
  return r.stdout;
}
