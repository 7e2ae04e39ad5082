import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { type ConfigMap, type EngineEvent, LocalWorkspace, type OutputMap, type PulumiFn, Stack } from "@pulumi/pulumi/automation";
import { pulumiCommandFor } from "./cli-command";
import { setStackConfig } from "./config";
import { outputsOfExportText } from "./outputs";
import { engineEnvironment, findPulumiBin } from "./environment";
import { enterPrivateTmp } from "./private-tmp";
import { defaultStateDir } from "./state-dir";
import { RUNNER_STACK_TAG } from "./audit-stacks";
import { RUNNER_PROJECT_MARK, refuseForeignProjectFile } from "./project-file";
import { credentialsOf, lineRedactingSink, redactError, redactor, secretsOfEnvironment } from "./redact";

export { engineEnvironment, findPulumiBin } from "./environment";
export { PassphraseMissingError, isServiceBackend, resolvePassphrase } from "./passphrase";
export { defaultStateDir } from "./state-dir";
export { ForeignProjectError } from "./project-file";

export type Action = "up" | "preview" | "refresh" | "destroy" | "rm" | "outputs" | "cancel";

/**
 * The highest engine log verbosity the runner asks for. Above 9 the CLI logs its HTTP requests with their
 * headers, and the Pulumi Cloud token in them is a credential the redactor cannot be sure to recognise.
 */
export const MAX_LOG_VERBOSITY = 9;

/** Refresh, destroy, rm or outputs of a stack that does not exist: they never create one. */
export class StackNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StackNotFoundError";
  }
}

export interface RunOptions {
  action: Action;
  /** The program body. Only `up` and `preview` run it; the other actions work from the state. */
  program: PulumiFn;
  projectName: string;
  stackName: string;
  /** Folder the engine runs in; `@pulumi/pulumi` must resolve from it. Created when missing. */
  workDir: string;
  /** Folder for PULUMI_HOME and the default file backend, ignored by git. Default: `<workDir>/.pulumi-local`. */
  stateDir?: string;
  /**
   * Any backend the CLI speaks (`file://`, `postgres://`, ...). Default: a private file backend in
   * `stateDir`. Every backend but that one and Pulumi Cloud needs PULUMI_CONFIG_PASSPHRASE (or
   * PULUMI_CONFIG_PASSPHRASE_FILE) set: the run is refused otherwise.
   */
  backendUrl?: string;
  /** The CLI to run. Default: PULUMI_REMOTE_BROWSER_PULUMI, else `pulumi` on PATH. */
  pulumiBin?: string;
  /**
   * Stack configuration, e.g. `{ "remote-browser:apiKey": { value, secret: true } }`. Secret values reach
   * the CLI through its standard input, never its command line.
   */
  config?: ConfigMap;
  /** Fail the preview or update when it would change anything. */
  expectNoChanges?: boolean;
  /**
   * refresh only: first clear the lock a killed update left (`pulumi cancel`), then drop its pending creates,
   * so that the next `up` adopts their sessions through their idempotency keys. Never while an update runs.
   */
  clearPendingCreates?: boolean;
  /**
   * up only: skip the refresh it runs first. The refresh reads the sessions with the settings the stack's
   * last update recorded (Pulumi refreshes with the providers in the state), so after the API key changed --
   * rotated, or the stack moved to another account -- the first up refreshes with the old key; one up with
   * this flag records the new settings.
   */
  noRefresh?: boolean;
  /** Receives the engine's progress as it streams. */
  onOutput?: (text: string) => void;
  /** Receives what the engine writes to stderr (its logs, with `verbose`). */
  onError?: (text: string) => void;
  /**
   * Receives the engine's events as they stream (`up`, `preview`, `refresh`, `destroy`): resource steps,
   * outputs, and diagnostics with their resource's URN, among them the ephemeral status lines.
   */
  onEvent?: (event: EngineEvent) => void;
  /** Extra environment for the engine and its plugins. */
  env?: Record<string, string>;
  /** Asks the engine for logs of this verbosity (1-9; more is capped at 9), written to its stderr (see onError). */
  verbose?: number;
  /** Cancels the engine's operation when aborted, as Ctrl-C does (see interrupt.ts). */
  signal?: AbortSignal;
}

export interface RunResult {
  /** Stack outputs in plain text, with a flag on the top-level ones that are secret. */
  outputs: OutputMap;
  /** Stack outputs as the CLI shows them: every secret, nested ones included, replaced by "[secret]". */
  masked: Record<string, unknown>;
  /** Resource operation counts of the update (`create`, `same`, `delete`, ...), where the action has them. */
  changes: Record<string, number>;
}

/** Runs one engine action for an inline program and returns its outputs; throws with the engine's message. */
export async function runProgram(opts: RunOptions): Promise<RunResult> {
  refuseForeignProjectFile(opts.workDir, opts.projectName);
  fs.mkdirSync(opts.workDir, { recursive: true });
  linkThisPackage(opts.workDir);
  const stateDir = opts.stateDir ?? defaultStateDir(opts.workDir);
  const pulumiBin = findPulumiBin(opts.pulumiBin);
  // Before anything can fail with a backend URL in its message: its password is a secret too.
  const early = redactor(credentialsOf(opts.backendUrl));
  let envVars: Record<string, string>;
  try {
    envVars = {
      ...engineEnvironment({
        pulumiBin,
        stateDir,
        workDir: opts.workDir,
        backendUrl: opts.backendUrl,
        // A passphrase given with the run's own environment counts as well as one in the process's.
        passphrase: opts.env?.PULUMI_CONFIG_PASSPHRASE || undefined,
      }),
      ...opts.env,
    };
  } catch (e) {
    throw redactError(e, early);
  }
  // Everything the engine prints, and every error passed on, goes through the redactor: see redact.ts for
  // what Pulumi leaks and when.
  const known = [
    ...Object.values(opts.config ?? {})
      .filter((c) => c.secret)
      .map((c) => c.value),
    // The CLI and the plugins inherit this process's environment too (PULUMI_ACCESS_TOKEN, the service's key).
    ...secretsOfEnvironment(process.env),
    ...secretsOfEnvironment(envVars),
    ...credentialsOf(envVars.PULUMI_BACKEND_URL),
  ];
  let redactKnown = redactor(known);
  const redact = (text: string) => redactKnown(text);
  // The Automation API runs `pulumi` from PATH, and the engine starts the dynamic provider plugin
  // from PATH too; both must see the same folders.
  process.env.PATH = envVars.PATH;

  const out = opts.onOutput ? lineRedactingSink(opts.onOutput, redact) : undefined;
  const err = opts.onError ? lineRedactingSink(opts.onError, redact) : undefined;
  const onOutput = out && ((t: string) => out.write(t));
  const onError = err && ((t: string) => err.write(t));
  // Events carry the same text the display shows (diagnostics, masked outputs): redacted alike.
  const onEvent = opts.onEvent && ((e: EngineEvent) => opts.onEvent!(JSON.parse(redact(JSON.stringify(e))) as EngineEvent));
  const verbose = opts.verbose && Math.min(opts.verbose, MAX_LOG_VERBOSITY);
  if (opts.verbose && opts.verbose > MAX_LOG_VERBOSITY) {
    onError?.(`runner: log verbosity ${opts.verbose} capped at ${MAX_LOG_VERBOSITY}: above it the CLI logs its HTTP requests with their headers, the Pulumi Cloud token among them\n`);
  }
  const tmp = enterPrivateTmp();
  // The CLI and the plugins write their temporary files there too (envVars wins over process.env).
  envVars.TMPDIR = tmp.dir;
  try {
    const workspace = await LocalWorkspace.create({
      workDir: opts.workDir,
      program: opts.program,
      envVars,
      pulumiCommand: await pulumiCommandFor(stateDir, envVars),
      // The backend is given by PULUMI_BACKEND_URL alone: written into Pulumi.yaml, a password in its URL
      // would sit in a file of the working folder.
      projectSettings: { name: opts.projectName, runtime: "nodejs", description: RUNNER_PROJECT_MARK },
    });

    // Whether a command on the stack has run, which it could not have on a missing stack.
    let seen = false;
    const configure = async (stack: Stack): Promise<Stack> => {
      if (opts.config && Object.keys(opts.config).length > 0) {
        seen = (await setStackConfig(stack, opts.config, { pulumiBin, workDir: opts.workDir, env: envVars })) || seen;
      }
      return stack;
    };
    const proceed = async (stack: Stack): Promise<RunResult> => {
      if (opts.action === "rm") {
        await workspace.removeStack(stack.name);
        return { outputs: {}, masked: {}, changes: {} };
      }
      const outputs = readOutputsFromExport(workspace, pulumiBin, opts.workDir, envVars);
      if (verbose) {
        // The engine's verbose logs print the provider's settings, secrets included, in plain text; the
        // stack's secret config must be known to the redactor even when this run did not set it.
        const held = await stack.getAllConfig();
        redactKnown = redactor([
          ...known,
          ...Object.values(held)
            .filter((c) => c.secret)
            .map((c) => c.value),
        ]);
      }
      return await runAction({ ...opts, verbose }, stack, { onOutput, onError, onEvent, masked: outputs.masked });
    };
    if (opts.action === "up" || opts.action === "preview") {
      // An update learns that its stack is missing from setting its config, before anything ran. One that
      // wrote nothing (no config, or only values a committed settings file holds already, as on a new
      // backend) would learn it only from the update itself, which prints the CLI's error first: that one asks.
      const stack = await configure(await unselected(opts.stackName, workspace)).catch(async (e: unknown) => {
        if (!isMissingStack(e, opts.stackName)) throw e;
        seen = true;
        return configure(await created(opts, workspace));
      });
      return await proceed(seen ? stack : await selectedOrCreated(opts, workspace));
    }
    try {
      return await proceed(await configure(await unselected(opts.stackName, workspace)));
    } catch (e) {
      if (!isMissingStack(e, opts.stackName)) throw e;
      throw new StackNotFoundError(
        `${opts.action}: there is no stack "${opts.stackName}" of project "${opts.projectName}" in the backend ` +
          `${envVars.PULUMI_BACKEND_URL ?? "(the CLI's default)"}; nothing was changed. Check the stack name and the project ` +
          '(--project; without it the project is named after the program\'s folder, or "project" without --program)',
      );
    }
  } catch (e) {
    throw redactError(e, redact);
  } finally {
    out?.flush();
    err?.flush();
    tmp.leave();
  }
}

/**
 * The stack, not yet known to exist. `Stack.select` starts the CLI once (`pulumi stack select`) only to
 * learn that it does; every later command names the stack with --stack and fails with the CLI's "no stack
 * named" when it does not, so that is where its absence is learnt (isMissingStack), one CLI start fewer.
 */
async function unselected(stackName: string, workspace: LocalWorkspace): Promise<Stack> {
  const select = workspace.selectStack;
  workspace.selectStack = async () => undefined;
  try {
    return await Stack.select(stackName, workspace);
  } finally {
    workspace.selectStack = select;
  }
}

/** Whether `e` is the CLI's refusal of a command on the stack `stackName`, which does not exist. */
export function isMissingStack(e: unknown, stackName: string): boolean {
  const text = String((e as Error)?.message ?? e);
  const name = stackName.split("/").pop()!;
  return /no stack named '([^']*)' found/.test(text) && [...text.matchAll(/no stack named '([^']*)' found/g)].some((m) => m[1]!.split("/").pop() === name);
}

/**
 * `up` and `preview` create the stack when it is missing; the other actions never do. A stack made for
 * them would be empty (a stack name or project that is not the one deployed: without --project, the runner
 * names the project after the program's folder), so destroy and rm would report success while the real
 * stack's sessions run on.
 */
async function selectedOrCreated(opts: RunOptions, workspace: LocalWorkspace): Promise<Stack> {
  try {
    return await Stack.select(opts.stackName, workspace);
  } catch (e) {
    if (!/no stack named/i.test(String((e as Error)?.message))) throw e;
  }
  return created(opts, workspace);
}

async function created(opts: RunOptions, workspace: LocalWorkspace): Promise<Stack> {
  let stack: Stack;
  try {
    stack = await Stack.create(opts.stackName, workspace);
  } catch (e) {
    // Another run created it in between: use it, as `createOrSelect` would.
    if (!/already exists/i.test(String((e as Error)?.message))) throw e;
    return Stack.select(opts.stackName, workspace);
  }
  // The audit prints the runner's own commands only for the stacks the runner made (see audit-stacks.ts).
  await workspace.setTag(stack.name, RUNNER_STACK_TAG, "true");
  return stack;
}

async function runAction(
  opts: RunOptions,
  stack: Stack,
  io: {
    onOutput?: (t: string) => void;
    onError?: (t: string) => void;
    onEvent?: (e: EngineEvent) => void;
    /** The CLI's masked view of the outputs the stack read last. */
    masked: () => Record<string, unknown>;
  },
): Promise<RunResult> {
  const { onOutput, onError, masked } = io;
  // A Ctrl-C before the engine started: the abort event has fired already and would not stop it.
  if (opts.signal?.aborted) throw new Error(`the ${opts.action} was cancelled before the engine started`);
  const logging = {
    ...(opts.verbose ? { logVerbosity: opts.verbose, logToStdErr: true } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const summary = summaryFromEvents(stack, io.onEvent);
  const onEvent = summary.onEvent;

  switch (opts.action) {
    case "up": {
      // Refresh first (`pulumi up --refresh`): a session the service ended meanwhile drops out of the state and
      // starts again, rather than staying "unchanged" with a dead link. The dynamic provider protocol cannot
      // ask the engine for that itself (the native plugin marks its sessions refresh_before_update).
      const res = await stack.up({ onOutput, onError, onEvent, expectNoChanges: opts.expectNoChanges, refresh: !opts.noRefresh, ...logging });
      return { outputs: res.outputs, masked: masked(), changes: await summary.changes() };
    }
    case "preview": {
      const res = await stack.preview({ onOutput, onError, onEvent: io.onEvent, expectNoChanges: opts.expectNoChanges, ...logging });
      return { outputs: {}, masked: {}, changes: countsOf(res.changeSummary) };
    }
    case "refresh": {
      // Pulumi Cloud answers an error when no update is in progress; a lock it does hold fails the refresh
      // with Pulumi's own message.
      if (opts.clearPendingCreates) await stack.cancel().catch(() => undefined);
      await stack.refresh({ onOutput, onError, onEvent, expectNoChanges: opts.expectNoChanges, clearPendingCreates: opts.clearPendingCreates, ...logging });
      return { outputs: await stack.outputs(), masked: masked(), changes: await summary.changes() };
    }
    case "destroy": {
      await stack.destroy({ onOutput, onError, onEvent, ...logging });
      return { outputs: {}, masked: {}, changes: await summary.changes() };
    }
    case "outputs":
      return { outputs: await stack.outputs(), masked: masked(), changes: {} };
    case "cancel":
      // `pulumi cancel`: removes the lock an update stopped at once left behind.
      await stack.cancel();
      return { outputs: {}, masked: {}, changes: {} };
    default:
      throw new Error(`unknown action "${opts.action}"`);
  }
}

/**
 * Makes the workspace read a stack's outputs from one `pulumi stack export --show-secrets` (see outputs.ts)
 * and keeps the masked view of the last read. The Automation API reads them after every update with two CLI
 * starts (`stack output` without and with `--show-secrets`), each deriving the passphrase key again, and keeps
 * only top-level secret flags, while the CLI's masking also covers nested secrets.
 */
function readOutputsFromExport(workspace: LocalWorkspace, pulumiBin: string, workDir: string, env: Record<string, string>): { masked: () => Record<string, unknown> } {
  let masked: Record<string, unknown> = {};
  workspace.stackOutputs = (stackName: string): Promise<OutputMap> =>
    new Promise((resolve, reject) => {
      const args = ["stack", "export", "--show-secrets", "--stack", stackName, "--non-interactive"];
      execFile(pulumiBin, args, { cwd: workDir, env: { ...process.env, ...env }, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (err) return reject(new Error(`reading the stack's outputs (pulumi stack export) failed: ${String(stderr).trim() || err.message}`));
        try {
          const read = outputsOfExportText(String(stdout));
          masked = read.masked;
          resolve(read.outputs);
        } catch (e) {
          reject(e);
        }
      });
    });
  return { masked: () => masked };
}

/**
 * The operation counts of an update, refresh or destroy from the engine's summary event. The Automation API
 * reads the run's summary back afterwards with `pulumi stack history` -- one more CLI start, with a passphrase
 * key derivation -- for figures the event stream has already carried; the runner does not ask for that read
 * and makes it itself only for a run whose stream had no summary event.
 */
function summaryFromEvents(stack: Stack, onEvent?: (e: EngineEvent) => void) {
  const readBack = stack.info.bind(stack);
  stack.info = async () => undefined;
  let counts: Record<string, number> | undefined;
  return {
    onEvent: (e: EngineEvent) => {
      if (e.summaryEvent) counts = countsOf(e.summaryEvent.resourceChanges);
      onEvent?.(e);
    },
    changes: async (): Promise<Record<string, number>> => counts ?? countsOf((await readBack())?.resourceChanges),
  };
}

function countsOf(changes: Record<string, number> | undefined): Record<string, number> {
  return { ...(changes ?? {}) };
}

/** Loads a program module: its default export, `program` export, or the module itself when it is a function. */
export function loadProgram(modulePath: string): PulumiFn {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a program module named at run time, loaded as CommonJS
  const mod = require(path.resolve(modulePath));
  const fn = typeof mod === "function" ? mod : typeof mod?.default === "function" ? mod.default : mod?.program;
  if (typeof fn !== "function") {
    throw new Error(`${modulePath} must export its program body as a function (module.exports, default or program)`);
  }
  return fn as PulumiFn;
}

/**
 * The stored provider methods `require("pulumi-remote-browser/provider")` from the engine's working folder.
 * Where that folder has no installed copy of this package (a source checkout running its own examples),
 * link the package this runner belongs to, as `npm link` would.
 */
export function linkThisPackage(workDir: string): void {
  // Resolve as the provider process will: by walking up from its working folder. (require.resolve here
  // would also find this package by self-reference, which the provider process cannot do.)
  for (let dir = path.resolve(workDir); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "node_modules", "pulumi-remote-browser", "package.json"))) return;
    if (path.dirname(dir) === dir) break;
  }
  const root = path.resolve(__dirname, "..", "..");
  const manifest = path.join(root, "package.json");
  if (!fs.existsSync(manifest) || JSON.parse(fs.readFileSync(manifest, "utf8")).name !== "pulumi-remote-browser") return;
  const target = path.join(workDir, "node_modules", "pulumi-remote-browser");
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.rmSync(target, { recursive: true, force: true });
  fs.symlinkSync(root, target, "dir");
}
