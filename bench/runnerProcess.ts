import { spawn } from "node:child_process";
import * as path from "node:path";

/** The built runner's CLI: each benchmark stack is brought up by a runner process of its own, as CI jobs are. */
export const runner = path.join(__dirname, "..", "..", "dist", "runner", "cli.js");

/** Runs the runner with `args`, resolving with its exit code and its output (stdout and stderr, interleaved). */
export function runRunner(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runner, ...args], { cwd, env: { ...process.env, ...env } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ code, out }));
  });
}
