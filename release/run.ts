import { execFile } from "node:child_process";

/**
 * Runs a command to its end and returns its standard output; a failure names the command and carries its
 * output. The release and the tests run their commands through it. Never a *Sync call in a test: a worker
 * blocked for a minute misses vitest's 60 s message timer.
 */
export function run(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { ...opts, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${command} ${args.join(" ")} failed: ${err.message}\n${stderr}\n${stdout.slice(-4000)}`)) : resolve(stdout),
    ),
  );
}
