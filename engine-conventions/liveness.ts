import * as fs from "node:fs";
import { parseEngineAddress, probeAddress } from "./address-probe";

/**
 * Tells whether the engine that started this provider process is still there.
 *
 * A `pulumi up` killed with SIGKILL leaves its plugins running. Were this process to go on waiting and
 * then "clean up" at its deadline, it would end the very session that the next `up` adopts through the
 * idempotency key. So long waits check this and stop acting once the engine is gone.
 *
 * Two signs, either of which means gone:
 * - the engine's address (the plugin's first argument) refuses connections (see address-probe.ts). It
 *   does not depend on the process tree, so it also holds for a watcher armed after the engine died --
 *   the dynamic provider loads this package only at its first call -- and under a subreaper;
 * - the process tree changed: the engine starts the plugin directly or through a small shell script, so
 *   the engine is this process's parent or, when the parent is that shell, its grandparent; when either
 *   dies, the orphan is re-parented. Immediate, but blind to a parent that died before the watcher looked.
 *
 * Usable from any plugin process: `address` defaults to the process's first argument; a process that was
 * not given an engine address (a test, a program) is watched by its process tree alone.
 */
export function engineWatcher(opts: { address?: string; intervalMs?: number } = {}): () => boolean {
  const treeIntact = processTreeWatcher();
  const address = parseEngineAddress(opts.address ?? process.argv[2]);
  const probe = address ? probeAddress(address, opts.intervalMs) : undefined;
  return () => !probe?.refused && treeIntact();
}

/**
 * Ends this plugin process once its engine is gone: nothing can reach it any more, and acting on (ending)
 * a session the next update will adopt would do harm. The timer is unref'd: it never keeps a process alive.
 */
export function exitWhenEngineGone(alive: () => boolean = engineWatcher(), intervalMs = 1_000): void {
  setInterval(() => {
    if (!alive()) process.exit(0);
  }, intervalMs).unref();
}

function processTreeWatcher(): () => boolean {
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

/** The parent of `pid` from /proc; undefined where there is no /proc or the process is gone. */
export function parentOf(pid: number): number | undefined {
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
