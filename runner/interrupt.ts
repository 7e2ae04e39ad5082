import * as fs from "node:fs";
import { parentOf } from "../engine-conventions/liveness";

/**
 * Ctrl-C while the runner drives the engine. Without a handler Node exits at once on SIGINT, and the CLI
 * it started -- busy cancelling, since a terminal's Ctrl-C reaches it too -- loses its output and dies,
 * leaving the stack locked with a pending create. So the first Ctrl-C becomes the engine's own cancel (the
 * CLI's SIGINT, through the Automation API's abort signal, which every supported `@pulumi/pulumi` from
 * 3.159.0 turns into `kill("SIGINT")` of the CLI): the engine lets the steps in flight end -- the native
 * resource ends a session that is still starting -- and unlocks the stack. A second Ctrl-C stops at once.
 */

/** The exit code of a run stopped by Ctrl-C, as shells report a process ended by SIGINT. */
export const INTERRUPTED_EXIT_CODE = 130;

/** The run ended because of Ctrl-C; the message says which way and what to run next. */
export class Interrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Interrupted";
  }
}

export interface InterruptDeps {
  /** Where the runner's own lines go (stderr). */
  say: (text: string) => void;
  /** Ends this process (process.exit). */
  exit: (code: number) => void;
  /** Whether the terminal sent the Ctrl-C to the CLI as well (see terminalSentIt). */
  terminalSentIt: () => boolean;
  /** The CLI processes this runner started and that still run. */
  children: () => number[];
  kill: (pid: number, signal: NodeJS.Signals) => void;
  /** Where SIGINT is listened to (process). */
  events: Pick<NodeJS.Process, "on" | "off">;
}

/**
 * Runs `run` with Ctrl-C handled as above. `action` and `next` word the advice: the action as the user
 * typed it, and the runner's command line to repeat (its options, without any secret or backend URL).
 */
export async function interruptible<T>(action: string, next: (action: string, extra?: string) => string, run: (signal: AbortSignal) => Promise<T>, deps: InterruptDeps = processDeps()): Promise<T> {
  const controller = new AbortController();
  let presses = 0;
  const onSigint = () => {
    presses += 1;
    if (presses === 1) {
      deps.say(
        `\nrunner: Ctrl-C: cancelling the ${action}; the engine finishes the steps in flight (a session still starting is ended) ` +
          "and unlocks the stack. Press Ctrl-C again to stop at once instead.\n",
      );
      // A terminal's Ctrl-C reached the CLI already; a second SIGINT would make it stop at once.
      if (!deps.terminalSentIt()) controller.abort();
      return;
    }
    for (const pid of deps.children()) {
      try {
        deps.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
    deps.say(
      `\nrunner: Ctrl-C again: stopped at once, without waiting for the engine. The stack may be left locked, with ` +
        "operations it did not record (a session being created may run on).\n" +
        `Run next:\n  ${next("cancel")}\n  ${next("refresh", "--clear-pending-creates")}\n` +
        "then the same command again.\n",
    );
    deps.exit(INTERRUPTED_EXIT_CODE);
  };
  deps.events.on("SIGINT", onSigint);
  try {
    const result = await run(controller.signal);
    if (presses > 0) deps.say(`runner: the ${action} had finished before the cancel took effect; nothing was left half done.\n`);
    return result;
  } catch (err) {
    if (presses === 0) throw err;
    throw new Interrupted(
      `the ${action} was cancelled by Ctrl-C and the engine ended it cleanly: the steps in flight finished and the stack is ` +
        `not locked. Run \`${next(action)}\` to carry on from where it stopped.`,
    );
  } finally {
    deps.events.off("SIGINT", onSigint);
  }
}

/** The real process, terminal and children. */
export function processDeps(): InterruptDeps {
  return {
    say: (text) => process.stderr.write(text),
    exit: (code) => process.exit(code),
    terminalSentIt: () => inTerminalForeground(),
    children: () => childrenOf(process.pid),
    kill: (pid, signal) => process.kill(pid, signal),
    events: process,
  };
}

/**
 * Whether this process is in the foreground process group of its terminal: a Ctrl-C typed there goes to the
 * whole group, the CLI included. Read from /proc (Linux); elsewhere a terminal on stdin says the same.
 */
export function inTerminalForeground(statText: () => string = () => fs.readFileSync("/proc/self/stat", "utf8")): boolean {
  let stat: string;
  try {
    stat = statText();
  } catch {
    return !!process.stdin.isTTY;
  }
  // After the command's name in parentheses: state ppid pgrp session tty_nr tpgid ...
  const [, , pgrp, , ttyNr, tpgid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(ttyNr) !== 0 && Number(tpgid) > 0 && tpgid === pgrp;
}

/** The processes whose parent is `pid` (Linux /proc; none elsewhere). */
export function childrenOf(pid: number): number[] {
  let names: string[];
  try {
    names = fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const children = names.map(Number).filter((child) => parentOf(child) === pid);
  return children;
}
