#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import type { ConfigMap, OutputMap } from "@pulumi/pulumi/automation";
import { Action, linkThisPackage, loadProgram, runProgram } from "./index";

const USAGE = `usage: pulumi-remote-browser-run <up|preview|refresh|destroy|rm|outputs> --program <module> --stack <name>
       [--project <name>] [--work-dir <dir>] [--backend <url>] [--config key=value]... [--secret key=value]...
       [--expect-no-changes] [--show-secrets] [--json] [--outputs-file <path>] [--events-file <path>]
       [--quiet] [--verbose <level>]

Runs a Pulumi program module (its body exported as a function) through the Automation API, so the program
needs no Node.js language host. Config keys without a namespace belong to the project. --events-file
writes the engine's events as they stream, one JSON object a line.`;

const ACTIONS: readonly Action[] = ["up", "preview", "refresh", "destroy", "rm", "outputs"];

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      program: { type: "string" },
      stack: { type: "string" },
      project: { type: "string" },
      "work-dir": { type: "string" },
      backend: { type: "string" },
      config: { type: "string", multiple: true },
      secret: { type: "string", multiple: true },
      "expect-no-changes": { type: "boolean" },
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
  const programPath = values.program ? path.resolve(values.program) : undefined;
  const projectName = values.project ?? (programPath ? path.basename(path.dirname(programPath)) : "project");
  const config: ConfigMap = {};
  for (const [list, secret] of [[values.config, false], [values.secret, true]] as const) {
    for (const pair of list ?? []) {
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new Error(`--${secret ? "secret" : "config"} takes key=value, got "${pair}"`);
      config[pair.slice(0, eq)] = { value: pair.slice(eq + 1), secret };
    }
  }
  const workDir = path.resolve(values["work-dir"] ?? process.cwd());
  // The program may require this package by name; make it resolvable before loading the program.
  linkThisPackage(workDir);
  const eventsFile = values["events-file"];
  if (eventsFile) fs.writeFileSync(eventsFile, "", { mode: 0o600 });
  const result = await runProgram({
    action,
    program: programPath ? loadProgram(programPath) : async () => undefined,
    projectName,
    stackName: values.stack,
    workDir,
    backendUrl: values.backend,
    config,
    expectNoChanges: values["expect-no-changes"],
    verbose: values.verbose ? Number(values.verbose) : undefined,
    onOutput: values.quiet ? undefined : (text) => process.stdout.write(text),
    onError: (text) => process.stderr.write(text),
    onEvent: eventsFile ? (event) => fs.appendFileSync(eventsFile, `${JSON.stringify(event)}\n`) : undefined,
  });
  const shown = values["show-secrets"] ? plainOutputs(result.outputs) : result.masked;
  if (values["outputs-file"]) {
    fs.writeFileSync(values["outputs-file"], JSON.stringify({ outputs: shown, changes: result.changes }, null, 2));
  }
  printOutputs(shown, !!values.json);
  return 0;
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
