import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { inject } from "vitest";

/*
 * Processes seen from outside, for the e2e tests: what every descendant of a process showed on its command
 * line (any local user can read it), and the installed runner run directly.
 */

/**
 * Polls the command lines of every descendant of `root` until `stop` resolves, keeping each one seen: a
 * process that execs (the `pulumi` wrapper) shows two in turn, and one that has ended but is not yet
 * reaped shows an empty one, which must not hide what it showed while it ran.
 */
export async function watchDescendants(root: number, stop: Promise<unknown>): Promise<Set<string>> {
  const seen = new Set<string>();
  let done = false;
  void stop.finally(() => (done = true));
  while (!done) {
    const parent = new Map<number, number>();
    for (const name of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
        parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        // ended while we looked
      }
    }
    for (const [pid] of parent) {
      let p: number | undefined = pid;
      while (p !== undefined && p > 1 && p !== root) p = parent.get(p);
      if (p !== root && pid !== root) continue;
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
        if (cmdline) seen.add(cmdline);
      } catch {
        // ended while we looked
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return seen;
}

/** Runs the installed runner CLI directly, with exactly the environment given. */
export function runRunner(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const { projectDir } = inject("e2e");
  const cli = path.join(projectDir, "node_modules", "pulumi-remote-browser", "dist", "runner", "cli.js");
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
