/**
 * Runs the `run:` steps of a GitHub Actions workflow as the runner does, so that the workflow tests check
 * the scripts themselves rather than a re-telling of them: the step's shell as the workflow chooses it (a
 * step with no `shell` gets `bash -e`, without pipefail), the workflow's, job's and step's `env:` resolved
 * in that order with `${{ }}` evaluated from the contexts a test gives, the working directory, and
 * GITHUB_OUTPUT / GITHUB_ENV read back into the `steps` context of later steps. Commands the workflows call
 * (`pulumi`, `gh`, `npm`, `node`, `openssl`) are stand-ins first on PATH (test/fixtures/workflow-stand-ins)
 * that answer from a per-test world folder and record every call.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import type { Contexts, Value } from "./github-expressions";
import { condition, interpolate } from "./github-expressions";

const root = path.resolve(__dirname, "..", "..");
/** The stand-ins for the commands the workflows call (test/fixtures/workflow-stand-ins). */
export const STAND_INS = path.join(root, "test", "fixtures", "workflow-stand-ins");
const standIns = STAND_INS;

export interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  shell?: string;
  "working-directory"?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
export interface Job {
  name?: string;
  if?: string;
  "timeout-minutes"?: number;
  env?: Record<string, string>;
  defaults?: { run?: { shell?: string } };
  steps: Step[];
}
export interface Workflow {
  file: string;
  env: Record<string, string>;
  defaults?: { run?: { shell?: string } };
  jobs: Record<string, Job>;
}

/** A workflow as GitHub reads it: YAML with its anchors resolved. */
export function loadWorkflow(file: string): Workflow {
  const flow = parse(fs.readFileSync(path.join(root, ".github", "workflows", file), "utf8")) as Omit<Workflow, "file">;
  return { ...flow, file };
}

export function findStep(job: Job, name: string | RegExp): Step {
  const found = job.steps.find((s) => (typeof name === "string" ? s.name === name : name.test(s.name ?? "")));
  if (!found) throw new Error(`no step ${name}`);
  return found;
}

/** What the stand-ins answer with; each test starts from its own. */
export interface WorldSetup {
  /** `pulumi stack ls --json`. @default [] */
  stacks?: Array<{ name: string; lastUpdate?: string }>;
  /** `pulumi stack ls` fails with this message, as with an unreachable backend. */
  stackLsError?: string;
  /** `pulumi stack rm` refuses, as for a stack that still has resources. */
  stackRmRefused?: boolean;
  /** Exit code of `pulumi cancel`. @default 0 */
  cancelCode?: number;
  /** The stack's outputs, and which of them are secret. */
  outputs?: Record<string, unknown>;
  secretOutputs?: string[];
  /** `gh pr view <n>`: the state of each pull request; others cannot be read. */
  prStates?: Record<string, string>;
  /** The pull request's comments. */
  comments?: Comment[];
  /** `npm pack` fails with this message. */
  npmPackError?: string;
  /** What the account audit prints and its exit code. @default nothing, 0 */
  audit?: { out: string; code: number };
  /** The runner's `up` fails with this message. */
  upError?: string;
  /** The runner's `destroy` fails with this message. */
  destroyError?: string;
  /** How many creates a killed run left pending in the stack (`pulumi stack export`). @default 0 */
  pendingCreates?: number;
}
export interface Comment {
  id: number;
  user: { login: string };
  body: string;
}
export interface Call {
  cmd: string;
  cwd: string;
  argv: string[];
}

export class World {
  constructor(
    readonly dir: string,
    setup: WorldSetup,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "calls.jsonl"), "");
    this.update({ stacks: [], outputs: {}, secretOutputs: [], prStates: {}, comments: [], ...setup });
  }
  /** Changes what the stand-ins answer from now on (what an action stand-in does to the backend, say). */
  update(setup: WorldSetup): void {
    const json = { stacks: "stacks.json", outputs: "outputs.json", secretOutputs: "secret-outputs.json", prStates: "pr-states.json", comments: "comments.json" } as const;
    for (const [key, file] of Object.entries(json)) {
      const value = setup[key as keyof typeof json];
      if (value !== undefined) fs.writeFileSync(path.join(this.dir, file), JSON.stringify(value));
    }
    const flag = (file: string, value: string | undefined) => {
      if (value === undefined) fs.rmSync(path.join(this.dir, file), { force: true });
      else fs.writeFileSync(path.join(this.dir, file), value);
    };
    if ("stackLsError" in setup) flag("stack-ls.error", setup.stackLsError);
    if ("stackRmRefused" in setup) flag("stack-rm.refused", setup.stackRmRefused ? "" : undefined);
    if ("cancelCode" in setup) flag("cancel.code", setup.cancelCode === undefined ? undefined : String(setup.cancelCode));
    if ("npmPackError" in setup) flag("npm-pack.error", setup.npmPackError);
    if ("upError" in setup) flag("up.error", setup.upError);
    if ("destroyError" in setup) flag("destroy.error", setup.destroyError);
    if ("pendingCreates" in setup) flag("pending-creates", setup.pendingCreates === undefined ? undefined : String(setup.pendingCreates));
    if ("audit" in setup) {
      flag("audit.out", setup.audit?.out);
      flag("audit.code", setup.audit === undefined ? undefined : String(setup.audit.code));
    }
  }
  private read<T>(name: string): T {
    return JSON.parse(fs.readFileSync(path.join(this.dir, name), "utf8")) as T;
  }
  calls(cmd?: string): Call[] {
    const all = fs
      .readFileSync(path.join(this.dir, "calls.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Call);
    return cmd === undefined ? all : all.filter((c) => c.cmd === cmd);
  }
  /** Each call as one line, `pulumi cancel --yes --stack …`, for readable assertions. */
  commandLines(cmd?: string): string[] {
    return this.calls(cmd).map((c) => [c.cmd, ...c.argv].join(" "));
  }
  comments(): Comment[] {
    return this.read("comments.json");
  }
  stacks(): Array<{ name: string }> {
    return this.read("stacks.json");
  }
}

export interface StepResult {
  /** False when the step's `if:` kept it from running. */
  ran: boolean;
  code: number;
  /** stdout and stderr, interleaved as the log shows them. */
  out: string;
  /** What the step wrote to GITHUB_OUTPUT. */
  outputs: Record<string, string>;
  /** What the step wrote to GITHUB_ENV. */
  exported: Record<string, string>;
  /** The values the step registered with `::add-mask::`. */
  masks: string[];
  /** The environment the script ran with. */
  env: Record<string, string>;
}

/** Every `run:` step a test executed, by workflow, job and position: see `runSteps`. */
const executed = new Set<string>();
const stepKey = (flow: Workflow, jobId: string, index: number) => `${flow.file} ${jobId} #${index}`;

/** Every `run:` step of the workflows, and whether a test in this process has run it. */
export function runSteps(...flows: Workflow[]): Array<{ key: string; name: string; executed: boolean }> {
  return flows.flatMap((flow) =>
    Object.entries(flow.jobs).flatMap(([jobId, job]) =>
      job.steps.flatMap((s, i) => (s.run === undefined ? [] : [{ key: stepKey(flow, jobId, i), name: s.name ?? "", executed: executed.has(stepKey(flow, jobId, i)) }])),
    ),
  );
}

/** The command line GitHub runs a script file with, for the step's `shell` (or the defaults'). */
function shellCommand(shell: string | undefined, file: string): string[] {
  switch (shell) {
    case undefined:
      return ["bash", "-e", file];
    case "bash":
      return ["bash", "--noprofile", "--norc", "-eo", "pipefail", file];
    case "sh":
      return ["sh", "-e", file];
    default:
      if (!shell.includes("{0}")) throw new Error(`shell ${shell} is not one the runner helper knows`);
      return shell.split(/\s+/).map((a) => a.replace("{0}", file));
  }
}

/** `name=value` lines and `name<<DELIMITER` blocks, as in GITHUB_OUTPUT and GITHUB_ENV. */
export function parseCommandFile(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line);
    const eq = line.indexOf("=");
    if (heredoc && (eq < 0 || heredoc[1]!.length < eq)) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end < 0) throw new Error(`unterminated ${heredoc[2]} block`);
      result[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (eq > 0) {
      result[line.slice(0, eq)] = line.slice(eq + 1);
    } else {
      throw new Error(`malformed command file line ${JSON.stringify(line)}`);
    }
  }
  return result;
}

/**
 * What a job's scripts find on PATH and in their environment besides the workflow's own. By default the
 * stand-ins come first on PATH; a run against the real engine gives its own folders (the real `pulumi`, say)
 * and variables (npm's cache) instead.
 */
export interface Tools {
  path: string[];
  env?: Record<string, string>;
}

/** How one step is run: `signal` kills the step's whole process group, as a runner killed mid-step does. */
export interface StepOptions {
  signal?: AbortSignal;
}

/**
 * One job of a workflow on one runner: a workspace (with the folders `working-directory` names), a
 * RUNNER_TEMP shared by its steps, and the `steps` context that grows as steps run.
 */
export class JobRun {
  readonly workspace: string;
  readonly temp: string;
  private readonly job: Job;
  private readonly steps: Record<string, { outputs: Record<string, string>; outcome: string }> = {};
  private readonly exported: Record<string, string> = {};
  private failed = false;
  private counter = 0;

  constructor(
    private readonly flow: Workflow,
    private readonly jobId: string,
    private readonly ctx: Contexts,
    readonly world: World,
    dir: string,
    private readonly tools: Tools = { path: [standIns] },
  ) {
    const job = flow.jobs[jobId];
    if (!job) throw new Error(`no job ${jobId} in ${flow.file}`);
    this.job = job;
    this.workspace = path.join(dir, "workspace");
    this.temp = path.join(dir, "runner-temp");
    fs.mkdirSync(this.temp, { recursive: true });
    fs.mkdirSync(this.workspace, { recursive: true });
  }

  private contexts(env: Record<string, string>): Contexts {
    return {
      github: null,
      vars: {},
      secrets: {},
      inputs: {},
      matrix: {},
      needs: {},
      ...this.ctx,
      env,
      steps: this.steps as unknown as Value,
      runner: { temp: this.temp, os: "Linux" },
    };
  }

  private resolve(values: Record<string, string> | undefined, env: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(values ?? {})) out[k] = interpolate(String(v), this.contexts(env));
    return out;
  }

  /** The env a step's script sees from the workflow: workflow, then job, then GITHUB_ENV, then the step. */
  stepEnv(step: Step): Record<string, string> {
    const flowEnv = this.resolve(this.flow.env, {});
    const jobEnv = { ...flowEnv, ...this.resolve(this.job.env, flowEnv) };
    const before = { ...jobEnv, ...this.exported };
    return { ...before, ...this.resolve(step.env, before) };
  }

  /** Whether the job itself runs for these contexts (its `if:`). */
  jobRuns(): boolean {
    return condition(this.job.if, this.contexts({}), { failed: false });
  }

  /** Runs one step's script whatever its `if:` says (a test of the script itself). */
  step(which: string | RegExp | Step, opts: StepOptions = {}): Promise<StepResult> {
    const step = typeof which === "object" && !(which instanceof RegExp) ? which : findStep(this.job, which);
    return this.execute(step, opts);
  }

  /**
   * Runs the job's steps in order, as the runner does: each `if:` evaluated (a failed step skips the rest
   * but for `always()`), `uses:` steps handed to `action` with their `with:` resolved (a stand-in for the
   * action, which fails it by returning false; none: every action does nothing and succeeds).
   */
  async all(action?: (step: Step, inputs: Record<string, string>, env: Record<string, string>) => boolean | void, opts: StepOptions = {}): Promise<Array<{ step: Step } & StepResult>> {
    const results: Array<{ step: Step } & StepResult> = [];
    for (const step of this.job.steps) {
      const env = this.stepEnv(step);
      if (!condition(step.if, this.contexts(env), { failed: this.failed })) {
        results.push({ step, ran: false, code: 0, out: "", outputs: {}, exported: {}, masks: [], env: {} });
        continue;
      }
      if (step.run === undefined) {
        const inputs: Record<string, string> = {};
        for (const [k, v] of Object.entries(step.with ?? {})) inputs[k] = interpolate(String(v), this.contexts(env));
        const code = action?.(step, inputs, env) === false ? 1 : 0;
        if (code !== 0) this.failed = true;
        results.push({ step, ran: true, code, out: "", outputs: {}, exported: {}, masks: [], env });
        continue;
      }
      results.push({ step, ...(await this.execute(step, opts)) });
    }
    return results;
  }

  private async execute(step: Step, opts: StepOptions = {}): Promise<StepResult> {
    const index = this.job.steps.indexOf(step);
    if (index < 0 || step.run === undefined) throw new Error(`step ${step.name} is not a run step of ${this.jobId}`);
    executed.add(stepKey(this.flow, this.jobId, index));
    const n = ++this.counter;
    const scriptFile = path.join(this.temp, `step-${n}.sh`);
    const outputFile = path.join(this.temp, `output-${n}`);
    const envFile = path.join(this.temp, `env-${n}`);
    fs.writeFileSync(outputFile, "");
    fs.writeFileSync(envFile, "");
    const stepEnv = this.stepEnv(step);
    fs.writeFileSync(scriptFile, interpolate(step.run, this.contexts(stepEnv)));
    const wd = step["working-directory"] === undefined ? "" : interpolate(step["working-directory"], this.contexts(stepEnv));
    const cwd = path.resolve(this.workspace, wd);
    const github = (this.ctx.github ?? {}) as Record<string, Value>;
    const env: Record<string, string> = {
      PATH: [...this.tools.path, process.env.PATH].join(path.delimiter),
      HOME: path.join(this.temp, "..", "home"),
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_REPOSITORY: String(github.repository ?? ""),
      GITHUB_WORKSPACE: this.workspace,
      GITHUB_OUTPUT: outputFile,
      GITHUB_ENV: envFile,
      RUNNER_TEMP: this.temp,
      FAKE_WORLD: this.world.dir,
      ...this.tools.env,
      ...this.exported,
      ...stepEnv,
    };
    const shell = step.shell ?? this.job.defaults?.run?.shell ?? this.flow.defaults?.run?.shell;
    const [command, ...args] = shellCommand(shell, scriptFile);
    // One file for both streams, so that the lines keep the order the log shows them in.
    const logFile = path.join(this.temp, `log-${n}`);
    // Not spawnSync: the worker would answer nothing while a step runs (test/architecture/no-sync-commands.test.ts).
    const fd = fs.openSync(logFile, "w");
    let code: number;
    try {
      code = await new Promise<number>((resolve, reject) => {
        // A process group of its own, so that a kill reaches every process the step started.
        const child = spawn(command!, args, { cwd, env, stdio: ["ignore", fd, fd], detached: true });
        const kill = () => {
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {
            // gone already
          }
        };
        if (opts.signal?.aborted) kill();
        opts.signal?.addEventListener("abort", kill, { once: true });
        child.once("error", reject);
        child.once("close", (status, signal) => {
          opts.signal?.removeEventListener("abort", kill);
          resolve(status ?? (signal ? 128 + (signal === "SIGKILL" ? 9 : 15) : 128));
        });
      });
    } finally {
      fs.closeSync(fd);
    }
    fs.rmSync(scriptFile);
    const out = fs.readFileSync(logFile, "utf8");
    const outputs = parseCommandFile(fs.readFileSync(outputFile, "utf8"));
    const exported = parseCommandFile(fs.readFileSync(envFile, "utf8"));
    if (step.id) this.steps[step.id] = { outputs, outcome: code === 0 ? "success" : "failure" };
    Object.assign(this.exported, exported);
    if (code !== 0) this.failed = true;
    const masks = out
      .split("\n")
      .filter((l) => l.startsWith("::add-mask::"))
      .map((l) => l.slice("::add-mask::".length));
    return { ran: true, code, out, outputs, exported, masks, env };
  }
}
