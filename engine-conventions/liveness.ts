import * as fs from "node:fs";
import { parseEngineAddress, probeAddress } from "./address-probe";

/**
 * Tells whether the engine that started this provider process is still there.
 *
 * A `pulumi up` killed with SIGKILL leaves its plugins running. Were this process to go on waiting and
 * then "clean up" at its deadline, it would end the very session that the next `up` adopts through the
 * idempotency key. So long waits check this and stop acting once the engine is gone.
 *
 * The engine starts each plugin with a pipe as its standard input, holds the pipe's other end for as long as
 * it holds the plugin, never writes to it, and lets a plugin go by killing it. So, for a process whose
 * standard input is a pipe, the end of that input is the one sign: it comes when, and only when, the engine
 * process is gone (the kernel closes its end), however the process tree looks and even for a watcher armed
 * after the engine died. Nothing else counts there: the engine's address refuses connections for a while
 * before the engine lets its plugins go (it closes its servers while it closes its plugins), and a plugin
 * that left in that window was reported by the engine as "exited prematurely", failing the command.
 *
 * A process given an engine address but no such pipe (started otherwise, e.g. under a supervisor) goes by
 * the two older signs, either of which means gone:
 * - the engine's address (the plugin's first argument) refuses connections (see address-probe.ts);
 * - the process tree changed: the engine starts the plugin directly or through a small shell script, so
 *   the engine is this process's parent or, when the parent is that shell, its grandparent; when either
 *   dies, the orphan is re-parented.
 *
 * Usable from any plugin process: `address` defaults to the process's first argument, and the pipe is
 * watched only then (a caller that names the address, a test, says with `stdin` whether to watch it); a
 * process that was not given an engine address (a test, a program, an attached plugin) is watched by its
 * process tree alone.
 */
export interface EngineWatch {
  /** False once the engine is gone; it stays false. */
  alive(): boolean;
  /** Why the engine is taken to be gone, once it is. */
  reason(): string | undefined;
}

/** The signs a watch reads, as the exit rule takes them. */
export interface EngineSigns {
  /** The engine's pipe on standard input: none (not a pipe, or not watched), open, or ended. */
  enginePipe: "none" | "open" | "ended";
  /** The engine's address refused a connection (undefined where there is no address to probe). */
  addressRefused?: boolean;
  /** This process's parent (and the shell's parent) are those it started with. */
  treeIntact: boolean;
}

/** The rule: why the engine is gone, or undefined while it holds this process. Pure, for tests. */
export function engineGoneReason(signs: EngineSigns): string | undefined {
  if (signs.enginePipe === "ended") return "its standard input, the engine's pipe, ended: the engine process is gone";
  // While the engine holds its end of the pipe it holds the plugin, whatever its address answers.
  if (signs.enginePipe === "open") return undefined;
  if (signs.addressRefused) return "the engine's address refuses connections";
  if (!signs.treeIntact) return "its parent process changed: the engine that started it is gone";
  return undefined;
}

export function engineWatch(opts: { address?: string; intervalMs?: number; stdin?: boolean } = {}): EngineWatch {
  const treeIntact = processTreeWatcher();
  const address = parseEngineAddress(opts.address ?? process.argv[2]);
  const pipe = (opts.stdin ?? (opts.address === undefined && address !== undefined)) ? enginePipe() : undefined;
  // The address is probed only where no pipe speaks for the engine.
  const probe = address && !pipe ? probeAddress(address, opts.intervalMs) : undefined;
  let gone: string | undefined;
  const reason = () => {
    gone ??= engineGoneReason({ enginePipe: pipe ? (pipe.ended ? "ended" : "open") : "none", addressRefused: probe?.refused, treeIntact: treeIntact() });
    return gone;
  };
  return { alive: () => reason() === undefined, reason };
}

/** `engineWatch(opts).alive`: what the core's waits take (ProviderContext.engineAlive). */
export function engineWatcher(opts: { address?: string; intervalMs?: number; stdin?: boolean } = {}): () => boolean {
  return engineWatch(opts).alive;
}

/**
 * Ends this plugin process once its engine is gone: nothing can reach it any more, and acting on (ending)
 * a session the next update will adopt would do harm. It says why on standard error, which the engine
 * keeps in its log of the plugin. The timer is unref'd: it never keeps a process alive.
 */
export function exitWhenEngineGone(watch: EngineWatch = engineWatch(), intervalMs = 1_000): void {
  setInterval(() => {
    const reason = watch.reason();
    if (reason === undefined) return;
    process.stderr.write(`remote-browser: plugin process ${process.pid} exits by itself: ${reason}\n`);
    process.exit(0);
  }, intervalMs).unref();
}

/** The process's one watch of its standard input, once looked at (null: not a pipe). */
const stdinWatch: { pipe?: { readonly ended: boolean } | null } = {};

/**
 * The end of standard input, when it is a pipe or socket (as an engine starts its plugins); undefined otherwise.
 * One per process, read without keeping the process alive: the engine writes nothing to it.
 */
function enginePipe(): { readonly ended: boolean } | undefined {
  if (stdinWatch.pipe !== undefined) return stdinWatch.pipe ?? undefined;
  let isPipe = false;
  try {
    // Go's engine hands a pipe; a Node.js parent, a socket pair.
    const stat = fs.fstatSync(0);
    isPipe = stat.isFIFO() || stat.isSocket();
  } catch {
    // no standard input at all
  }
  if (!isPipe) {
    stdinWatch.pipe = null;
    return undefined;
  }
  let ended = false;
  const stdin = process.stdin;
  stdin.on("data", () => undefined);
  stdin.once("end", () => (ended = true));
  // An error reading the pipe says nothing about the engine: only its end counts.
  stdin.on("error", () => undefined);
  stdin.resume();
  (stdin as unknown as { unref?: () => void }).unref?.();
  stdinWatch.pipe = {
    get ended() {
      return ended;
    },
  };
  return stdinWatch.pipe;
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
