import * as fs from "node:fs";

/** One process as /proc shows it (Linux); the fields another user's process hides are left undefined. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The one-letter state: R, S, D, Z (exited, not yet reaped), ... */
  state: string;
  /** The command line, arguments separated by spaces. */
  command: string;
  /** The working folder; " (deleted)" ends it when the folder was removed. */
  cwd?: string;
  /** The environment the process started with, NUL-separated `KEY=value` entries. */
  environ?: string;
}

export function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself contain spaces or parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      ppid: Number(fields[1]),
      state: fields[0]!,
      command: readOr(`/proc/${pid}/cmdline`, "").replace(/\0+$/, "").replace(/\0/g, " "),
      cwd: linkOr(`/proc/${pid}/cwd`),
      environ: readOr(`/proc/${pid}/environ`, undefined),
    };
  } catch {
    return undefined; // ended while we looked, or no /proc
  }
}

export function listProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const p = processInfo(Number(name));
    if (p) out.push(p);
  }
  return out;
}

/** True while `pid` runs: neither gone nor a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  const p = processInfo(pid);
  return p !== undefined && p.state !== "Z";
}

function readOr<T>(file: string, fallback: T): string | T {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
}

function linkOr(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
}
