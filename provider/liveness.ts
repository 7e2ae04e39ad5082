import * as fs from "node:fs";

/**
 * Tells whether the engine that started this provider process is still there.
 *
 * A `pulumi up` killed with SIGKILL leaves its plugins running. Were this process to go on waiting and
 * then "clean up" at its deadline, it would end the very session that the next `up` adopts through the
 * idempotency key. So long waits check this and stop acting once the engine is gone.
 *
 * The engine starts the plugin through a small shell script, so the engine is this process's parent or,
 * when the parent is that shell, its grandparent. When either dies, the orphan is re-parented.
 */
export function engineWatcher(): () => boolean {
  const parent = process.ppid;
  const grandparent = shellParent(parent);
  return () => {
    if (process.ppid !== parent) return false;
    if (grandparent === undefined) return true;
    return parentOf(parent) === grandparent;
  };
}

function shellParent(pid: number): number | undefined {
  const stat = readStat(pid);
  if (!stat || !/^(sh|dash|bash|zsh|ash)$/.test(stat.comm)) return undefined;
  return stat.ppid;
}

function parentOf(pid: number): number | undefined {
  return readStat(pid)?.ppid;
}

function readStat(pid: number): { comm: string; ppid: number } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may itself contain spaces or parentheses.
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const ppid = Number(text.slice(close + 2).split(" ")[1]);
    return Number.isFinite(ppid) ? { comm, ppid } : undefined;
  } catch {
    return undefined; // no /proc (not Linux) or the process is gone
  }
}
