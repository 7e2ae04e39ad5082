/**
 * The demo: starts the emulator, brings up the example stack through the real engine, shows its
 * outputs and the emulator's books, then destroys the stack, removes it and shows that no session is
 * left running.
 *
 *   npm run demo                      everything, then tear down
 *   npm run demo -- --show-secrets    also print the share links (they are passwords to the sessions)
 *   npm run demo -- --keep            leave the sessions and the emulator up until Ctrl-C, to open the viewer
 *   npm run demo -- --backend <url>   keep the stack's state there (e.g. postgres://… from scripts/postgres.sh;
 *                                     a URL with a password: --backend-env <VAR>, the variable holding it);
 *                                     needs PULUMI_CONFIG_PASSPHRASE (or _FILE): the runner has none of its own
 *   npm run demo -- --state-dir <dir> the stack's working folder (default .work/demo)
 *
 * The emulator's key is handed to the runner in process (runProgram), so it is on no command line.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startEmulator } from "../emulator";
import { runProgram } from "../runner";
import { backendArg } from "../runner/backend-arg";
import { credentialsOf, redactor } from "../runner/redact";

const { values } = parseArgs({
  options: {
    "show-secrets": { type: "boolean" },
    keep: { type: "boolean" },
    port: { type: "string" },
    "prep-ms": { type: "string" },
    backend: { type: "string" },
    "backend-env": { type: "string" },
    "state-dir": { type: "string" },
  },
});

const root = path.resolve(__dirname, "..", "..");
// A URL with a password is refused on the command line, as the runner refuses it: --backend-env names its variable.
const backend = backendArg(values);
const say = (s = "") => process.stdout.write(`${s}\n`);
const heading = (s: string) => say(`\n=== ${s} ===`);

async function main(): Promise<void> {
  const emulator = await startEmulator({
    port: values.port ? Number(values.port) : 0,
    prepMs: values["prep-ms"] ? Number(values["prep-ms"]) : 1500,
  });
  heading("emulator");
  say(`API base URL: ${emulator.apiBaseUrl}`);
  say(`Share base:   ${emulator.shareBase}`);
  if (backend.url) say(`Backend:      ${redactor(credentialsOf(backend.url))(backend.url)}`);

  const common = {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built example, a path known only at run time
    program: require(path.join(root, "dist", "examples", "demo", "index.js")),
    projectName: "remote-browser-demo",
    stackName: "demo",
    workDir: path.resolve(root, values["state-dir"] ?? path.join(".work", "demo")),
    backendUrl: backend.url,
    config: {
      "remote-browser:baseUrl": { value: emulator.apiBaseUrl },
      "remote-browser:apiKey": { value: emulator.apiKey, secret: true },
    },
    onOutput: (s: string) => process.stdout.write(s),
  };

  try {
    heading("pulumi up");
    const up = await runProgram({ ...common, action: "up" });

    heading("stack outputs");
    for (const [key, { value, secret }] of Object.entries(up.outputs)) {
      const masked = JSON.stringify(up.masked[key]);
      const hasSecret = secret || masked.includes("[secret]");
      if (!hasSecret) say(`${key}: ${JSON.stringify(value)}`);
      else if (values["show-secrets"]) say(`${key}: ${JSON.stringify(value)}  (SECRET: a password to the session)`);
      else say(`${key}: ${masked}  (secret; rerun with --show-secrets to print)`);
    }
    books(emulator);

    if (values.keep) {
      heading("kept up");
      say("The sessions stay up. Open a share link (--show-secrets prints them) in a browser.");
      say("Press Ctrl-C to destroy the stack and stop the emulator.");
      await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
    }

    heading("pulumi destroy");
    await runProgram({ ...common, action: "destroy" });
    await runProgram({ ...common, action: "rm" });
    say("stack removed");
    books(emulator);
    const left = emulator.control.books().neverEnded;
    say(left === 0 ? "\nNo session is left running." : `\n${left} session(s) are still running!`);
    if (left !== 0) process.exitCode = 1;
  } finally {
    await emulator.close();
  }
}

function books(emulator: Awaited<ReturnType<typeof startEmulator>>): void {
  heading("emulator books");
  const b = emulator.control.books();
  say(`started ${b.started}, running ${b.running}, starting ${b.starting}, ended ${b.ended}, errored ${b.errored}, never ended ${b.neverEnded}`);
  say(`calls: create ${b.createCalls}, status ${b.statusCalls}, end ${b.removeCalls}, image ${b.imageCalls}, quota ${b.quotaCalls}, account ${b.accountCalls}`);
  for (const s of emulator.control.sessions()) {
    say(`  ${s.vmId}  ${s.status.padEnd(9)} ${s.browser.padEnd(8)} country=${s.country ?? "-"} locationApplied=${s.locationApplied} viewer=${s.shareLanguage}`);
  }
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
