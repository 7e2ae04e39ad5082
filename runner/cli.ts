#!/usr/bin/env node
import "./sdk-runtime"; // first: it loads the SDK's runtime, with parts of it deferred
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { CONFIG_NAMESPACE, SECRET_SETTINGS } from "../core/config";
import { type Action, MAX_LOG_VERBOSITY, linkThisPackage, loadProgram, runProgram } from "./index";
import { INTERRUPTED_EXIT_CODE, Interrupted, interruptible } from "./interrupt";
import { runnerCommand } from "./advice";
import { backendArg } from "./backend-arg";
import { refuseForeignProjectFile } from "./project-file";
import { configFromArgs } from "./config-args";
import { UsageError } from "./usage";

const USAGE = `usage: pulumi-remote-browser-run <up|preview|refresh|destroy|rm|outputs|cancel> --program <module> --stack <name>
       [--project <name>] [--work-dir <dir>] [--backend <url> | --backend-env <VAR>] [--config key=value]...
       [--clear-pending-creates (refresh: after a killed up)] [--no-refresh (up: skip the read first)]
       [--secret-env key=ENV_VAR]... [--secrets-file <file.json>]
       [--expect-no-changes] [--show-secrets] [--json] [--outputs-file <path>] [--events-file <path>]
       [--quiet] [--verbose <level 1-${MAX_LOG_VERBOSITY}>]

Runs a Pulumi program module (its body exported as a function) through the Automation API, so the program
needs no Node.js language host. Config keys without a namespace belong to the project. \`up\` refreshes first
(a session the service ended is started again); the refresh reads with the settings the last update recorded,
so after a change of API key run one \`up --no-refresh\`. --events-file
writes the engine's events as they stream, one JSON object a line. refresh --clear-pending-creates clears the
lock and the pending creates a killed \`up\` left (only when no update of the stack runs); the next \`up\` adopts
their sessions. \`pulumi-remote-browser-run audit --help\`: the account's sessions set against every stack.

Ctrl-C cancels the run as the engine cancels one: the steps in flight end and the stack is left unlocked.
A second Ctrl-C stops at once; then \`cancel\` unlocks the stack and \`refresh --clear-pending-creates\`
drops what the engine did not record.

Secret config never goes on a command line: --secret-env takes the value from the named environment
variable, --secrets-file from a JSON object {"key": "value", ...} in a file only its owner can read (0600);
--config refuses the settings that are credentials (${SECRET_SETTINGS.map((s) => `${CONFIG_NAMESPACE}:${s}`).join(", ")}),
in any spelling (${CONFIG_NAMESPACE}:config:apiKey is the same key to Pulumi), and a ${CONFIG_NAMESPACE}:baseUrl
with a user name or password from any source (the engine would record it in the stack's state).
Log verbosity above ${MAX_LOG_VERBOSITY} is capped: above it the CLI logs the Pulumi Cloud token.
A backend URL with a password (user:password@, ?password=) is refused in --backend: --backend-env names
the environment variable that holds it. A backend other than the runner's own folder and Pulumi Cloud needs
PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE). The runner refuses a work folder whose
Pulumi.yaml it did not write, rather than replace it.`;

const ACTIONS: readonly Action[] = ["up", "preview", "refresh", "destroy", "rm", "outputs", "cancel"];

async function main(argv: string[]): Promise<number> {
  // The audit, and the client it reads the account with, load only for it: every other action starts faster.
  if (argv[0] === "audit") return (await import("./audit-cli")).auditMain(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      program: { type: "string" },
      stack: { type: "string" },
      project: { type: "string" },
      "work-dir": { type: "string" },
      backend: { type: "string" },
      "backend-env": { type: "string" },
      config: { type: "string", multiple: true },
      secret: { type: "string", multiple: true },
      "secret-env": { type: "string", multiple: true },
      "secrets-file": { type: "string" },
      "expect-no-changes": { type: "boolean" },
      "clear-pending-creates": { type: "boolean" },
      "no-refresh": { type: "boolean" },
      "show-secrets": { type: "boolean" },
      json: { type: "boolean" },
      "outputs-file": { type: "string" },
      "events-file": { type: "string" },
      quiet: { type: "boolean" },
      verbose: { type: "string" },
      help: { type: "boolean" },
    },
  });
  const action = positionals[0] as Action;
  if (values.help || !ACTIONS.includes(action) || !values.stack || (!values.program && needsProgram(action))) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const backend = backendArg(values);
  if (values["clear-pending-creates"] && action !== "refresh") throw new UsageError(`--clear-pending-creates belongs to refresh, not ${action}`);
  const programPath = values.program ? path.resolve(values.program) : undefined;
  const projectName = values.project ?? (programPath ? path.basename(path.dirname(programPath)) : "project");
  const config = configFromArgs(values);
  const workDir = path.resolve(values["work-dir"] ?? process.cwd());
  // Before anything is written to the folder (the package link, the project file).
  refuseForeignProjectFile(workDir, projectName);
  // The program may require this package by name; make it resolvable before loading the program.
  linkThisPackage(workDir);
  const stackName = values.stack;
  const eventsFile = values["events-file"];
  if (eventsFile) writePrivate(eventsFile, "");
  // The advice after a Ctrl-C repeats this command line without its secrets, and with the project even when
  // it was derived from the program's folder.
  const next = (again: string, extra?: string) => runnerCommand(again, { program: values.program, stack: stackName, project: projectName, workDir: values["work-dir"], backend: backend.shown }, extra);
  const result = await interruptible(action, next, (signal) =>
    runProgram({
      signal,
      action,
      program: programPath ? loadProgram(programPath) : async () => undefined,
      projectName,
      stackName,
      workDir,
      backendUrl: backend.url,
      config,
      expectNoChanges: values["expect-no-changes"],
      clearPendingCreates: values["clear-pending-creates"],
      noRefresh: values["no-refresh"],
      verbose: values.verbose ? verbosity(values.verbose) : undefined,
      onOutput: values.quiet ? undefined : (text) => process.stdout.write(text),
      onError: (text) => process.stderr.write(text),
      onEvent: eventsFile ? (event) => fs.appendFileSync(eventsFile, `${JSON.stringify(event)}\n`) : undefined,
    }),
  );
  const shown = values["show-secrets"] ? plainOutputs(result.outputs) : result.masked;
  if (values["outputs-file"]) writePrivate(values["outputs-file"], JSON.stringify({ outputs: shown, changes: result.changes }, null, 2));
  printOutputs(shown, !!values.json);
  return 0;
}

function verbosity(text: string): number {
  const level = Number(text);
  if (!Number.isInteger(level) || level < 1) throw new UsageError(`--verbose takes a whole number from 1, got "${text}"`);
  return level;
}

/** Writes a file only its owner can read (also when it existed before with a wider mode). */
function writePrivate(file: string, text: string): void {
  const fd = fs.openSync(file, "w", 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

function needsProgram(action: Action): boolean {
  return action === "up" || action === "preview";
}

function plainOutputs(outputs: OutputMap): Record<string, unknown> {
  return Object.fromEntries(Object.entries(outputs).map(([key, { value }]) => [key, value]));
}

function printOutputs(shown: Record<string, unknown>, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return;
  }
  if (Object.keys(shown).length === 0) return;
  process.stdout.write("\nStack outputs:\n");
  for (const [key, value] of Object.entries(shown)) {
    process.stdout.write(`  ${key}: ${typeof value === "string" ? value : JSON.stringify(value)}\n`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof Interrupted) {
      process.stderr.write(`runner: ${err.message}\n`);
      process.exit(INTERRUPTED_EXIT_CODE);
    }
    // The Automation API's errors carry the whole CLI transcript; the engine's own diagnosis is what matters.
    process.stderr.write(`error: ${engineMessage(err)}\n`);
    process.exit(1);
  },
);

function engineMessage(err: unknown): string {
  if (err && typeof err === "object" && "stderr" in err && typeof (err as { stderr: unknown }).stderr === "string") {
    const stderr = (err as { stderr: string }).stderr.trim();
    const lines = stderr.split("\n").filter((l) => l.trim() !== "");
    if (lines.length > 0) return lines.join("\n");
  }
  return err instanceof Error ? err.message : String(err);
}
