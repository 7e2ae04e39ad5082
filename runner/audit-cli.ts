/**
 * The `audit` command of the runner: reads its options and the service's settings from the environment, runs
 * the audit (audit-stacks.ts, audit.ts) and prints its table (audit-table.ts). Only reads: see audit.ts.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";
import { ENV_API_KEY, ENV_BASE_URL, loadConfig } from "../core/config";
import { clientForConfig } from "../core/context";
import { classify, readAccount } from "./audit";
import { RUNNER_STACK_TAG, listStacks, neutralFolder, readStacks } from "./audit-stacks";
import { formatReport, type BackendShown } from "./audit-table";
import { engineEnvironment, findPulumiBin } from "./environment";
import { backendArg } from "./backend-arg";
import { credentialsOf, redactError, redactor, secretsOfEnvironment } from "./redact";
import { defaultStateDir } from "./state-dir";
import { UsageError } from "./usage";

/** How old a session held by none may be before the audit fails, in minutes. */
const DEFAULT_ORPHAN_MINUTES = 60;

export const AUDIT_USAGE = `usage: pulumi-remote-browser-run audit [--backend <url> | --backend-env <VAR>] [--project <name>]... [--orphan-minutes <n>]
       [--work-dir <dir>]

Sets the account's live sessions (one list call to the service) against the sessions every stack of the
backend records (of the given projects, or all), and prints who holds each: a stack, a pending create of a
killed \`up\` (with the commands that settle it through its stack), or none. Ends nothing, starts nothing.
The service's key and address come from ${ENV_API_KEY} and ${ENV_BASE_URL}; the backend from --backend,
else the variable --backend-env names, else PULUMI_BACKEND_URL, else the runner's own folder (a backend URL
with a password is refused on the command line: any local user can read it there). Exits 3 when a session held by none is older than
--orphan-minutes (default ${DEFAULT_ORPHAN_MINUTES}), 1 on an error, 0 otherwise.`;

/** The exit status that says "a session held by none is older than the threshold". */
export const EXIT_HELD_BY_NONE = 3;

export async function auditMain(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      backend: { type: "string" },
      "backend-env": { type: "string" },
      project: { type: "string", multiple: true },
      "orphan-minutes": { type: "string" },
      "work-dir": { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    process.stdout.write(`${AUDIT_USAGE}\n`);
    return 0;
  }
  const given = backendArg(values);
  const orphanMinutes = Number(values["orphan-minutes"] ?? DEFAULT_ORPHAN_MINUTES);
  if (!Number.isFinite(orphanMinutes) || orphanMinutes < 0) {
    throw new UsageError(`--orphan-minutes takes a number of minutes from 0, got "${values["orphan-minutes"]}"`);
  }
  const cfg = loadConfig(() => undefined);
  if (!cfg.apiKey) throw new UsageError(`the audit reads the account's sessions: set ${ENV_API_KEY} (and ${ENV_BASE_URL}) in its environment`);
  const backendUrl = given.url ?? process.env.PULUMI_BACKEND_URL;
  const workDir = path.resolve(values["work-dir"] ?? process.cwd());
  const redact = redactor([...secretsOfEnvironment(process.env), ...credentialsOf(backendUrl)]);
  const client = clientForConfig(cfg);
  // The CLI's reads run in an empty folder: inside a project's folder `pulumi stack ls` names that project's
  // stacks by their short names, which select nothing afterwards.
  const neutral = neutralFolder();
  try {
    const pulumiBin = findPulumiBin();
    const env = engineEnvironment({ pulumiBin, stateDir: defaultStateDir(workDir), workDir, backendUrl });
    const cli = { pulumiBin, env, cwd: neutral.dir };
    const stackNames = await listStacks(cli, values.project);
    const stacks = await readStacks(cli, stackNames);
    // Without this list (a backend the CLI cannot list by tag right now) only the plain commands are printed: they fit any stack.
    const runnerStacks = new Set(stacks.pending.length ? await listStacks(cli, values.project, RUNNER_STACK_TAG).catch(() => []) : []);
    const account = await readAccount(client, stacks.pending, stacks.recorded);
    const report = classify(account.sessions, { ...stacks, count: stackNames.length }, account.browserNames, { now: Date.now(), orphanMinutes }, account.recordedStates);
    // Printed commands name the backend as given; one from the environment, or one with a password, by its variable.
    const variable = values["backend-env"] ?? (values.backend === undefined && process.env.PULUMI_BACKEND_URL ? "PULUMI_BACKEND_URL" : undefined);
    const shown: BackendShown | undefined = variable ? { variable } : values.backend ? { url: values.backend } : undefined;
    const text = formatReport(report, { backend: shown, orphanMinutes, calls: account.calls, reads: account.reads, runnerStacks, unreadable: stacks.unreadable });
    process.stdout.write(redact(text));
    return report.heldByNoneTooOld > 0 ? EXIT_HELD_BY_NONE : 0;
  } catch (e) {
    throw redactError(e, redact);
  } finally {
    neutral.done();
    await client.close();
  }
}
