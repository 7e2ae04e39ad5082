import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { inject } from "vitest";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../emulator";
import { engineEnvironment } from "../../runner/environment";

/**
 * One e2e stack: its own emulator, work folder, file backend and PULUMI_HOME inside the installed
 * project, driven through the runner CLI of the installed package in a child process (as a CI job
 * would run it), and the plain `pulumi` CLI for what the Automation API does not cover.
 */
export interface E2EStack {
  readonly name: string;
  readonly emulator: Emulator;
  readonly workDir: string;
  /** Runs the runner CLI; resolves with its outputs, rejects with its stderr on a non-zero exit. */
  run(action: string, opts?: RunOpts): Promise<RunResult>;
  /** Starts the runner without waiting (to kill it half-way). */
  start(action: string, opts?: RunOpts): RunningProcess;
  /** Runs the plain CLI in the stack's folder with the stack's environment (`--stack` added unless given); `input` is its standard input. */
  cli(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }>;
  /** `pulumi stack export` as text. */
  exportState(): Promise<string>;
  /** Every file of the backend and PULUMI_HOME, concatenated (state, history, backups, logs). */
  stateFilesText(): string;
}

export interface RunOpts {
  config?: Record<string, string>;
  expectNoChanges?: boolean;
  /** Defaults to the stack's program. */
  program?: string;
  /** The key to configure; null configures none. Default: the emulator's. */
  apiKey?: string | null;
  /** Default: the emulator's v8 base URL; "" configures none. */
  baseUrl?: string;
  extraArgs?: string[];
  /** The runner's --project; null gives none (the runner then names the project after the program's folder, `programs`). Default: e2e. */
  project?: string | null;
  /** Extra options for the node process of the runner (e.g. `-r` a preload). */
  nodeArgs?: string[];
  /** A command the runner is started under (e.g. a tracer's, see processes.ts): the runner's command line follows it. */
  commandPrefix?: string[];
}

export interface RunResult {
  outputs: Record<string, unknown>;
  changes: Record<string, number>;
  stdout: string;
  stderr: string;
}

export interface RunningProcess {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export class RunFailed extends Error {
  constructor(
    readonly code: number | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`runner exited with ${code}:\n${stderr}\n${stdout.slice(-4000)}`);
  }
}

let counter = 0;

/** The variable the harness hands the API key to the runner in (`--secret-env`). */
export const API_KEY_VAR = "PRB_E2E_API_KEY";
/** The passphrase of every stack on a shared backend in this test process (for other CLI reads of that backend). */
export const E2E_PASSPHRASE = randomBytes(24).toString("hex");

/** Creates a stack around `program` (a file of test/e2e/programs), runs `fn`, then tears everything down. */
export async function withStack(
  program: string,
  fn: (stack: E2EStack) => Promise<void>,
  opts: {
    emulator?: EmulatorOptions;
    destroy?: boolean;
    sharedEmulator?: Emulator;
    /** Any backend the CLI speaks; default: a file backend of the stack's own. */
    backendUrl?: string;
    /** Stack name; default: unique per test. */
    name?: string;
    /** Folders put first on PATH for the runner, the engine and its plugins (e.g. a resource plugin's). */
    pathDirs?: string[];
    /** The `pulumi` the runner and `cli` run (e.g. a wrapper that records its arguments). Default: the suite's. */
    pulumiBin?: string;
    /** Hand the runner the key and base URL on every run, even when the stack's config holds them already. */
    configEveryRun?: boolean;
  } = {},
): Promise<void> {
  const { projectDir } = inject("e2e");
  const pulumiBin = opts.pulumiBin ?? inject("e2e").pulumiBin;
  const unique = `s${process.pid}-${++counter}`;
  const name = opts.name ?? unique;
  // The folder is the test's own even when the stack's name is fixed (a recorded state names its stack), so
  // that tests of one name can run at once.
  const workDir = path.join(projectDir, "stacks", opts.name ? `${opts.name}-${unique}` : unique);
  fs.mkdirSync(path.join(workDir, "programs"), { recursive: true });
  const programPath = path.join(workDir, "programs", program);
  fs.copyFileSync(path.join(__dirname, "programs", program), programPath);
  const stateDir = path.join(workDir, ".pulumi-local");
  const emulator = opts.sharedEmulator ?? (await startEmulator({ prepMs: 300, ...opts.emulator }));
  // A shared backend needs a passphrase of the caller's (the runner has none built in): one per test process.
  const passphrase = opts.backendUrl ? E2E_PASSPHRASE : undefined;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...engineEnvironment({ pulumiBin, stateDir, workDir, backendUrl: opts.backendUrl, passphrase }),
  };
  if (opts.pathDirs?.length) env.PATH = [...opts.pathDirs, env.PATH].join(path.delimiter);
  if (opts.pulumiBin) env.PULUMI_REMOTE_BROWSER_PULUMI = opts.pulumiBin;
  const runner = path.join(projectDir, "node_modules", "pulumi-remote-browser", "dist", "runner", "cli.js");
  const children = new Set<ChildProcess>();

  // The key and base URL go into the stack's config on the first run, and again only when they change or
  // the checkout lost its Pulumi.<stack>.yaml: each `pulumi config set` is a CLI start with a passphrase key
  // derivation, and most runs would only write what is there. The key is known only from a run that wrote
  // it and succeeded; any other way it may have changed makes it unknown, so that it is written again.
  const configFile = path.join(workDir, `Pulumi.${name}.yaml`);
  let keyWritten: string | undefined;
  const settingsFor = (o: RunOpts) => {
    const held = !opts.configEveryRun && fs.existsSync(configFile) ? fs.readFileSync(configFile, "utf8") : "";
    const baseUrl = o.baseUrl ?? emulator.apiBaseUrl;
    const key = o.apiKey === null ? null : (o.apiKey ?? emulator.apiKey);
    return {
      baseUrl: held.includes(`  remote-browser:baseUrl: ${baseUrl}\n`) ? undefined : baseUrl,
      key: key !== null && key === keyWritten && /^ {2}remote-browser:apiKey:$/m.test(held) ? undefined : key,
    };
  };

  const argsFor = (action: string, o: RunOpts, outFile: string, settings: ReturnType<typeof settingsFor>) => {
    const project = o.project === undefined ? "e2e" : o.project;
    const args = [runner, action, "--stack", name, ...(project === null ? [] : ["--project", project]), "--work-dir", workDir, "--outputs-file", outFile];
    if (opts.backendUrl) args.push("--backend", opts.backendUrl);
    if (action === "up" || action === "preview") args.push("--program", o.program ? path.join(workDir, "programs", o.program) : programPath);
    if (settings.baseUrl) args.push("--config", `remote-browser:baseUrl=${settings.baseUrl}`);
    // The key reaches the runner through its environment (see start), never its command line.
    if (settings.key) args.push("--secret-env", `remote-browser:apiKey=${API_KEY_VAR}`);
    for (const [k, v] of Object.entries(o.config ?? {})) args.push("--config", `${k}=${v}`);
    if (o.expectNoChanges) args.push("--expect-no-changes");
    return [...args, ...(o.extraArgs ?? [])];
  };

  const start = (action: string, o: RunOpts = {}): RunningProcess & { outFile: string } => {
    const outFile = path.join(workDir, `outputs-${Date.now()}-${Math.random().toString(16).slice(2)}.json`);
    const settings = settingsFor(o);
    const childEnv = settings.key ? { ...env, [API_KEY_VAR]: settings.key } : env;
    const otherSecrets = (o.extraArgs ?? []).some((a) => a.startsWith("--secret"));
    if (action !== "rm" && (settings.key !== undefined || o.apiKey === null || otherSecrets)) keyWritten = undefined;
    const [command, ...before] = [...(o.commandPrefix ?? []), process.execPath];
    const child = spawn(command!, [...before, ...(o.nodeArgs ?? []), ...argsFor(action, o, outFile, settings)], { cwd: workDir, env: childEnv });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      child.on("close", (code) => {
        children.delete(child);
        if (settings.key && code === 0 && !otherSecrets) keyWritten = settings.key;
        resolve({ code, stdout, stderr });
      }),
    );
    return { child, done, outFile };
  };

  const cli = (args: string[], input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      // A command that names its stack itself (fully qualified, as the audit prints them) keeps that name.
      const child = spawn(pulumiBin, [...args, ...(args.includes("--stack") ? [] : ["--stack", name]), "--non-interactive"], { cwd: workDir, env });
      child.stdin.on("error", () => undefined);
      child.stdin.end(input ?? "");
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });

  const stack: E2EStack = {
    name,
    emulator,
    workDir,
    start,
    async run(action, o = {}) {
      const p = start(action, o);
      const { code, stdout, stderr } = await p.done;
      if (code !== 0) throw new RunFailed(code, stdout, stderr);
      const result = JSON.parse(fs.readFileSync(p.outFile, "utf8"));
      return { outputs: result.outputs, changes: result.changes, stdout, stderr };
    },
    cli,
    async exportState() {
      const r = await cli(["stack", "export"]);
      if (r.code !== 0) throw new Error(`stack export failed: ${r.stderr}`);
      return r.stdout;
    },
    stateFilesText() {
      return readAll(stateDir);
    },
  };

  let passed = false;
  try {
    await fn(stack);
    passed = true;
  } finally {
    for (const c of children) c.kill("SIGKILL");
    // A test that passed has destroyed what it made (its emulator shows nothing running); one that failed
    // may have left a locked stack and running sessions: those are cancelled and destroyed, best effort.
    const leftRunning = !opts.sharedEmulator && emulator.control.books().neverEnded > 0;
    if (opts.destroy !== false && (!passed || leftRunning)) {
      await cli(["cancel", "--yes"]).catch(() => undefined);
      const p = start("destroy");
      await p.done;
    }
    if (!opts.sharedEmulator) await emulator.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function readAll(dir: string): string {
  let text = "";
  if (!fs.existsSync(dir)) return text;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === "plugins") continue;
      text += readAll(p);
    } else if (entry.isFile()) {
      text += fs.readFileSync(p, "latin1");
    }
  }
  return text;
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function until<T>(probe: () => T | undefined, timeoutMs = 30_000, what = "condition"): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Pids of the processes whose parent is `pid` (Linux). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

export function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
  } catch {
    return "";
  }
}
