import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DYNAMIC_SESSION_TYPE, DYNAMIC_TYPE_PREFIX } from "../engine-conventions/wire";

/**
 * What the stacks of a backend record about sessions, read through the CLI (`pulumi stack ls --all`,
 * `pulumi stack export`) so that any backend the CLI logs in to works the same. Reading only: no update,
 * no lock, no secret decrypted (a session's vmId is not secret).
 */

/** A session a stack holds: its resource records the vmId. */
export interface RecordedSession {
  stack: string;
  urn: string;
  vmId: string;
}

/** A create the engine began and never finished recording (a killed `up`): its session's id is unknown. */
export interface PendingCreate {
  stack: string;
  urn: string;
  /** The browser id the create asked for, when its inputs say so. */
  browser?: string;
}

export interface StackSessions {
  recorded: RecordedSession[];
  pending: PendingCreate[];
  /** Stacks whose state could not be read (the CLI failed, or the state is truncated or not JSON), with why. */
  unreadable?: Array<{ stack: string; reason: string }>;
}

/**
 * The stack tag the runner sets on each stack it creates: the audit prints the runner's own commands for a
 * pending create only in such a stack, and the plain CLI's (which fit any program) everywhere.
 */
export const RUNNER_STACK_TAG = "pulumi-remote-browser-run";

interface StateResource {
  urn?: string;
  type?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/**
 * Ours: the native resource, or a dynamic resource whose type or stored provider names this package.
 * The dynamic provider's type is DYNAMIC_SESSION_TYPE since it is named;
 * older states may carry the generic `pulumi-nodejs:dynamic:Resource`, recognised by the stored provider text.
 */
function isBrowserSession(r: StateResource): boolean {
  const type = r.type ?? "";
  if (type === "remote-browser:index:BrowserSession") return true;
  if (!type.startsWith(DYNAMIC_TYPE_PREFIX)) return false;
  if (type === DYNAMIC_SESSION_TYPE) return true;
  const provider = r.inputs?.__provider ?? r.outputs?.__provider;
  return typeof provider === "string" && provider.includes("pulumi-remote-browser");
}

/** The sessions one stack's exported state (`pulumi stack export` text, parsed) holds and is creating. */
export function sessionsOfExport(stack: string, exported: unknown): StackSessions {
  const deployment = ((exported as { deployment?: unknown })?.deployment ?? {}) as {
    resources?: StateResource[];
    pending_operations?: Array<{ type?: string; resource?: StateResource }>;
  };
  const recorded: RecordedSession[] = [];
  for (const r of deployment.resources ?? []) {
    const vmId = r.outputs?.vmId;
    if (isBrowserSession(r) && typeof vmId === "string" && vmId) recorded.push({ stack, urn: r.urn ?? "", vmId });
  }
  const pending: PendingCreate[] = [];
  for (const op of deployment.pending_operations ?? []) {
    const r = op.resource ?? {};
    if (op.type !== "creating" || !isBrowserSession(r)) continue;
    const browser = r.inputs?.browser;
    pending.push({ stack, urn: r.urn ?? "", ...(typeof browser === "string" ? { browser } : {}) });
  }
  return { recorded, pending };
}

export interface CliOptions {
  pulumiBin: string;
  /** The engine environment (backend, PULUMI_HOME, passphrase). */
  env: Record<string, string>;
  cwd: string;
}

function cli(opts: CliOptions, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(opts.pulumiBin, [...args, "--non-interactive"], { cwd: opts.cwd, env: { ...process.env, ...opts.env }, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`pulumi ${args.slice(0, 2).join(" ")} failed: ${String(stderr).trim() || err.message}`));
      else resolve(String(stdout));
    });
  });
}

/**
 * The fully qualified names (`org/project/stack`) of the backend's stacks, of the given projects or all
 * (`tag`: only those with that tag). Run in a project's folder, the CLI names that project's stacks by
 * their short names, so `opts.cwd` must be a folder outside any project (see neutralFolder).
 */
export async function listStacks(opts: CliOptions, projects?: string[], tag?: string): Promise<string[]> {
  let text: string;
  try {
    text = await cli(opts, ["stack", "ls", "--all", "--json", ...(tag ? ["--tag", tag] : [])]);
  } catch (e) {
    // The CLI lists a file backend's stacks by reading every one's state, and fails as a whole on one that is
    // truncated or corrupt. The stacks are then taken from the backend's folder, and each read on its own.
    const names = tag ? undefined : stacksInFileBackend(opts.env.PULUMI_BACKEND_URL);
    if (!names) throw e;
    return ofProjects(names, projects);
  }
  const listed = JSON.parse(text) as Array<{ name: string }>;
  return ofProjects(
    listed.map((s) => s.name),
    projects,
  );
}

/**
 * The stacks of a `file://` backend from its folder (`.pulumi/stacks/<project>/<stack>.json[.gz]`, or
 * `.pulumi/stacks/<stack>.json` in the layout without projects), as the CLI names them; undefined for any
 * other backend.
 */
export function stacksInFileBackend(backendUrl: string | undefined): string[] | undefined {
  if (!backendUrl?.startsWith("file://")) return undefined;
  let root = backendUrl.slice("file://".length).replace(/\?.*$/, "");
  if (root.startsWith("~")) root = path.join(os.homedir(), root.slice(1));
  const stacks = path.join(root, ".pulumi", "stacks");
  const names = new Set<string>();
  const stackName = (file: string) => /^(.+)\.json(\.gz)?$/.exec(file)?.[1];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(stacks, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      for (const file of fs.readdirSync(path.join(stacks, entry.name))) {
        const name = stackName(file);
        if (name) names.add(`organization/${entry.name}/${name}`);
      }
    } else {
      const name = stackName(entry.name);
      if (name) names.add(name);
    }
  }
  return [...names].sort();
}

/** An empty folder of its own, outside any project, for the CLI's reads; `done` removes it. */
export function neutralFolder(): { dir: string; done: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-audit-"));
  return { dir, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** The stacks of the given projects; all of them without a project given. */
export function ofProjects(stacks: string[], projects?: string[]): string[] {
  return projects?.length ? stacks.filter((n) => projects.includes(projectOf(n))) : stacks;
}

/** The project of a fully qualified stack name (`org/project/stack`); a short name has none. */
export function projectOf(stack: string): string {
  const parts = stack.split("/");
  return parts.length === 3 ? parts[1]! : "";
}

/** Every stack's sessions, a few exports at a time (each is a CLI start). */
export async function readStacks(opts: CliOptions, stacks: string[], parallel = 4): Promise<StackSessions> {
  const out: StackSessions = { recorded: [], pending: [] };
  let next = 0;
  const worker = async () => {
    while (next < stacks.length) {
      const stack = stacks[next++]!;
      let found: StackSessions;
      try {
        found = sessionsOfExport(stack, JSON.parse(await cli(opts, ["stack", "export", "--stack", stack])));
      } catch (e) {
        // One stack whose state is truncated or unreadable must not hide what every other stack records.
        const reason = e instanceof SyntaxError ? "its state is not valid JSON (truncated or corrupt?)" : (e as Error).message.split("\n")[0]!;
        (out.unreadable ??= []).push({ stack, reason });
        continue;
      }
      out.recorded.push(...found.recorded);
      out.pending.push(...found.pending);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, stacks.length) }, worker));
  return out;
}
