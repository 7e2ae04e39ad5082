/**
 * A pull request's review environment as the review-sessions workflow (.github/workflows/review-sessions.yml)
 * drives it, run locally against the emulator: the same program and runner, without GitHub.
 *
 *   npm run pr:local -- --pr 42 --preview-url https://example.com/pr/42   a push: deploy stack pr-42
 *   npm run pr:local -- --pr 42 --close                                   the close: destroy and remove pr-42
 *   npm run pr:local -- --sequence                                        open, push, close, with checks
 *
 * Options: --base-url <url> (a service or emulator that is already running; its key from
 * REMOTE_BROWSER_API_KEY), --browsers <ids> (comma-separated), --share-language <code>,
 * --wait-for-capacity <s>, --port <n> (of the emulator started here), --state-dir <dir> (default
 * .work/pr-local; the sequence uses .work/pr-local-sequence, emptied first), --show-secrets (print the
 * share links).
 *
 * The stack's state lives in the state dir, so a second invocation updates the same stack. Without
 * --base-url, a deploy starts an emulator and keeps it (and the sessions) up until Ctrl-C; the stack
 * stays. The next deploy refreshes first, as the workflow does, so the sessions of the stopped emulator
 * drop out of the state and new ones start.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { type Emulator, startEmulator } from "../emulator";
import { defaultStateDir, engineEnvironment, findPulumiBin, runProgram } from "../runner";
import type { RunOptions } from "../runner";

const PROJECT = "pr-environment";
const root = path.resolve(__dirname, "..", "..");

const { values } = parseArgs({
  options: {
    pr: { type: "string" },
    "preview-url": { type: "string" },
    close: { type: "boolean" },
    sequence: { type: "boolean" },
    "base-url": { type: "string" },
    browsers: { type: "string" },
    "share-language": { type: "string" },
    "wait-for-capacity": { type: "string" },
    port: { type: "string" },
    "state-dir": { type: "string" },
    "show-secrets": { type: "boolean" },
    help: { type: "boolean" },
  },
});

const USAGE = `usage: npm run pr:local -- --pr <n> --preview-url <url>    deploy (open or push)
       npm run pr:local -- --pr <n> --close                   destroy and remove the stack
       npm run pr:local -- --sequence [--pr <n>]              open, push, close against one emulator
options: --base-url <url> --browsers <a,b> --share-language <code> --wait-for-capacity <s>
         --port <n> --state-dir <dir> --show-secrets`;

const say = (s = "") => process.stdout.write(`${s}\n`);
const heading = (s: string) => say(`\n=== ${s} ===`);

/** Where the service is, and the emulator when this process started one. */
interface Service {
  baseUrl: string;
  apiKey?: string;
  emulator?: Emulator;
}

class CheckFailed extends Error {}

function check(ok: boolean, what: string): void {
  if (!ok) throw new CheckFailed(`check failed: ${what}`);
  say(`ok: ${what}`);
}

// The sequence keeps to a folder of its own, so that it never touches the stacks of the other commands.
const workDir = path.resolve(root, values["state-dir"] ?? path.join(".work", values.sequence ? "pr-local-sequence" : "pr-local"));

function stackName(pr: string): string {
  return `pr-${pr}`;
}

/**
 * The service's address and key reach the provider through the environment, as in the workflow, not
 * through stack config: the engine records the stack's config as the provider's settings in the state,
 * and refresh and destroy run with the recorded settings, which would point at an emulator that is gone.
 */
function serviceEnvironment(service: Service): Record<string, string> {
  return { REMOTE_BROWSER_BASE_URL: service.baseUrl, ...(service.apiKey ? { REMOTE_BROWSER_API_KEY: service.apiKey } : {}) };
}

function runOptions(pr: string, service: Service, config: ConfigMap = {}): Omit<RunOptions, "action"> {
  return {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built example, a path known only at run time
    program: require(path.join(root, "dist", "examples", "pr-environment", "index.js")),
    projectName: PROJECT,
    stackName: stackName(pr),
    workDir,
    config,
    env: serviceEnvironment(service),
    onOutput: (s: string) => process.stdout.write(s),
    onError: (s: string) => process.stderr.write(s),
  };
}

/**
 * Each CI job starts from a fresh checkout, without the stack's settings file (Pulumi.<stack>.yaml) that
 * the previous job wrote: everything must come from the backend and the job's own configuration.
 */
function forgetStackSettings(pr: string): void {
  fs.rmSync(path.join(workDir, `Pulumi.${stackName(pr)}.yaml`), { force: true });
}

/** The workflow's "deploy" job: refresh (of a stack that exists), then up of stack pr-<n> (created when missing). */
async function deploy(pr: string, previewUrl: string, service: Service): Promise<Record<string, unknown>> {
  forgetStackSettings(pr);
  const config: ConfigMap = { prNumber: { value: pr }, previewUrl: { value: previewUrl } };
  if (values.browsers) config.browsers = { value: values.browsers };
  if (values["share-language"]) config.shareLanguage = { value: values["share-language"] };
  if (values["wait-for-capacity"]) config.waitForCapacitySeconds = { value: values["wait-for-capacity"] };
  const opts = runOptions(pr, service, config);
  // The runner refreshes only a stack that exists (as `up --refresh` of the workflow's action does).
  if (stackExists(opts.stackName)) {
    heading(`pulumi refresh (stack ${opts.stackName})`);
    await runProgram({ ...opts, action: "refresh" });
  }
  heading(`pulumi up (stack ${opts.stackName})`);
  const up = await runProgram({ ...opts, action: "up" });

  heading("stack outputs");
  for (const [key, { value, secret }] of Object.entries(up.outputs)) {
    const masked = up.masked[key];
    const hasSecret = secret || JSON.stringify(masked).includes("[secret]");
    if (!hasSecret) say(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
    else if (values["show-secrets"]) say(`${key}: ${JSON.stringify(value)}  (SECRET: each link is a password to its session)`);
    else say(`${key}: ${JSON.stringify(masked)}  (secret; --show-secrets prints it)`);
  }
  return Object.fromEntries(Object.entries(up.outputs).map(([k, { value }]) => [k, value]));
}

/**
 * The workflow's "cleanup" job: destroy and remove stack pr-<n> when it exists (a pull request that never
 * deployed has none), then make sure the backend no longer lists it.
 */
async function close(pr: string, service: Service): Promise<void> {
  const name = stackName(pr);
  const opts = runOptions(pr, service);
  forgetStackSettings(pr);
  if (stackExists(name)) {
    heading(`pulumi destroy (stack ${name})`);
    await runProgram({ ...opts, action: "destroy" });
    heading(`pulumi stack rm (stack ${name})`);
    await runProgram({ ...opts, action: "rm" });
  } else {
    say(`stack ${name} does not exist: the pull request never deployed, or it was removed already`);
  }
  check(!stackExists(name), `stack ${name} is gone from the backend`);
  forgetStackSettings(pr);
}

/** Whether the backend lists the stack, asked of the CLI as the workflow does (`pulumi stack ls`). */
function stackExists(name: string): boolean {
  const pulumiBin = findPulumiBin();
  const stateDir = defaultStateDir(workDir);
  fs.mkdirSync(workDir, { recursive: true });
  const env = { ...process.env, ...engineEnvironment({ pulumiBin, stateDir, workDir: root }) };
  // --all lists the stacks of every project, named <organization>/<project>/<stack>.
  const text = execFileSync(pulumiBin, ["stack", "ls", "--all", "--json", "--non-interactive"], { cwd: workDir, env, encoding: "utf8" });
  const stacks = JSON.parse(text || "[]") as Array<{ name: string }>;
  return stacks.some((s) => s.name === name || s.name.endsWith(`/${PROJECT}/${name}`));
}

async function startService(): Promise<Service> {
  let service: Service;
  if (values["base-url"]) {
    service = { baseUrl: values["base-url"], apiKey: process.env.REMOTE_BROWSER_API_KEY || undefined };
  } else {
    const emulator = await startEmulator({ port: values.port ? Number(values.port) : 0, prepMs: 1000 });
    heading("emulator");
    say(`API base URL: ${emulator.apiBaseUrl}`);
    say(`Share base:   ${emulator.shareBase}`);
    service = { baseUrl: emulator.apiBaseUrl, apiKey: emulator.apiKey, emulator };
  }
  // The program's data sources run in this process and read the same variables.
  Object.assign(process.env, serviceEnvironment(service));
  return service;
}

/** The sessions the emulator has that are starting or running. */
function active(emulator: Emulator): string[] {
  return emulator.control
    .sessions()
    .filter((s) => s.status === "starting" || s.status === "running")
    .map((s) => s.vmId)
    .sort();
}

/** A pull request's life against one emulator: opened, a push that changes its preview URL, closed. */
async function sequence(service: Service & { emulator: Emulator }, pr: string): Promise<void> {
  const emulator = service.emulator;
  const base = values["preview-url"] ?? `https://example.com/pr/${pr}`;
  const never = String(Number(pr) + 1);
  for (const n of [pr, never]) {
    if (stackExists(stackName(n))) throw new Error(`stack ${stackName(n)} exists in ${workDir} already; the sequence needs a fresh state dir`);
  }

  heading(`pull request #${pr} opened`);
  const opened = await deploy(pr, base, service);
  const first = Object.values(opened.sessionIds as Record<string, string>).sort();
  check(first.length > 0 && JSON.stringify(active(emulator)) === JSON.stringify(first), `${first.length} session(s) running: ${first.join(", ")}`);
  check(stackExists(stackName(pr)), `stack ${stackName(pr)} exists`);

  heading(`pull request #${pr}: a push changes its preview URL`);
  const pushed = await deploy(pr, `${base}${base.includes("?") ? "&" : "?"}push=2`, service);
  const second = Object.values(pushed.sessionIds as Record<string, string>).sort();
  check(
    second.every((id) => !first.includes(id)),
    "every session was replaced (a new URL needs a new session)",
  );
  check(JSON.stringify(active(emulator)) === JSON.stringify(second), `only the new session(s) run: ${second.join(", ")}`);

  heading(`pull request #${pr} closed`);
  await close(pr, service);
  check(active(emulator).length === 0, "no session is left running");
  check(emulator.control.books().neverEnded === 0, "every session the service started has ended");

  heading(`pull request #${never} closed without ever deploying`);
  await close(never, service);
}

async function main(): Promise<number> {
  if (values.help) {
    say(USAGE);
    return 0;
  }
  const pr = values.pr ?? (values.sequence ? "42" : undefined);
  if (!pr || !/^[1-9]\d*$/.test(pr) || (!values.sequence && !values.close && !values["preview-url"])) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (values.sequence && values["base-url"]) {
    process.stderr.write("--sequence starts its own emulator, to check what the service holds; drop --base-url\n");
    return 2;
  }
  if (values.sequence && !values["state-dir"]) fs.rmSync(workDir, { recursive: true, force: true });
  say(`state: ${path.relative(process.cwd(), workDir) || "."}`);
  const service = await startService();
  try {
    if (values.sequence) {
      await sequence(service as Service & { emulator: Emulator }, pr);
      say("\nThe pull request's environment came up, followed a push and went away, as in CI.");
    } else if (values.close) {
      await close(pr, service);
    } else {
      await deploy(pr, values["preview-url"]!, service);
      if (service.emulator) {
        heading("kept up");
        say("The sessions run while this does; --show-secrets prints the share links to open.");
        say(`Press Ctrl-C to stop the emulator. Stack ${stackName(pr)} stays: run again to update it, with --close to remove it.`);
        await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
      }
    }
    return 0;
  } finally {
    await service.emulator?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`pr-local failed: ${message.length > 4000 ? `…${message.slice(-4000)}` : message}\n`);
    process.exit(1);
  },
);
