import { type ProcessInfo, listProcesses } from "./processes";

/**
 * Processes a test run started and left running after it ended: a plugin whose engine a test killed, a
 * server a test forgot to close. They outlive the run re-parented to PID 1 (or a subreaper), in folders
 * that are deleted by then, and hold their memory until someone kills them; the run that left one fails.
 *
 * A process is the run's when its environment carries the run's marker (every process a test starts
 * inherits it, unless started with an environment of its own) or when it works in, or names, a folder
 * the run owns.
 */
export const RUN_MARKER_VAR = "PRB_TEST_RUN";

export interface LeftoverQuery {
  /** The value of RUN_MARKER_VAR in the environment of this run's processes. */
  marker: string;
  /** Folders the run owns (absolute). */
  folders?: string[];
  /** The test runner's own processes (its workers), which end after this check. */
  isRunner?: (p: ProcessInfo) => boolean;
}

/**
 * vitest's pool workers (titled `node (vitest 1)`), its watchdog (vitest 5: titled `vitest-watchdog`, it
 * kills the workers should the main process die, and ends once they have) and vite's esbuild service:
 * children of this process (the run's main process, where the check runs).
 */
export function isTestRunnerProcess(p: ProcessInfo): boolean {
  if (p.ppid !== process.pid) return false;
  return /\(vitest \d+\)/.test(p.command) || p.command === "vitest-watchdog" || /[\\/]node_modules[\\/](vitest|vite|esbuild|@esbuild|tinypool)[\\/]/.test(p.command);
}

export function findLeftovers(q: LeftoverQuery): ProcessInfo[] {
  const isRunner = q.isRunner ?? isTestRunnerProcess;
  const all = listProcesses();
  const ancestors = ancestorsOf(process.pid, all);
  const tag = `${RUN_MARKER_VAR}=${q.marker}`;
  const folders = (q.folders ?? []).map((f) => f.replace(/[\\/]+$/, ""));
  // A folder's name followed by the end, a separator or " (deleted)" (how /proc shows a removed folder).
  const inFolder = (text: string | undefined) => text !== undefined && folders.some((f) => new RegExp(`${escape(f)}($|[\\/ ])`).test(text));
  return all.filter(
    (p) => p.pid !== process.pid && !ancestors.has(p.pid) && p.state !== "Z" && !isRunner(p) && ((p.environ ?? "").split("\0").includes(tag) || inFolder(p.cwd) || inFolder(p.command)),
  );
}

/**
 * Gives the run's processes `graceMs` to end on their own -- a plugin notices its engine's end within a
 * second or two -- then kills those still running and returns them. The bound only matters for a process
 * that would never end.
 */
export async function reapLeftovers(q: LeftoverQuery, graceMs = 15_000, pollMs = 100): Promise<ProcessInfo[]> {
  const deadline = Date.now() + graceMs;
  let left = findLeftovers(q);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, pollMs));
    left = findLeftovers(q);
  }
  for (const p of left) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // ended in the meantime
    }
  }
  return left;
}

export function describeLeftovers(left: ProcessInfo[]): string {
  return left.map((p) => `  pid ${p.pid} (parent ${p.ppid}, in ${p.cwd ?? "?"}): ${p.command.slice(0, 300)}`).join("\n");
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function ancestorsOf(pid: number, all: ProcessInfo[]): Set<number> {
  const parent = new Map(all.map((p) => [p.pid, p.ppid]));
  const out = new Set<number>();
  for (let p = parent.get(pid); p !== undefined && p > 0 && !out.has(p); p = parent.get(p)) out.add(p);
  return out;
}
