import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { RUN_MARKER_VAR, describeLeftovers, reapLeftovers } from "./helpers/leftovers";

/**
 * Every project's global setup: marks the run's processes (the variable is inherited by the workers, and by
 * everything a test starts) and fails the run when any of them is still running after the last test.
 * The e2e setup makes the same check for the processes of its project folder (test/e2e/global-setup.ts).
 *
 * It also gives the run a temporary folder of its own (TMPDIR, inherited alike) and fails the run when
 * anything but a compiler cache is left in it after the last teardown: a file some code writes to the
 * temporary folder and never deletes stays on every machine that runs it (the Automation API's event logs
 * did, unredacted, until the runner kept them in a folder of its own).
 *
 * And a PULUMI_HOME of its own, inside that folder, for every `pulumi` started without one: the Automation
 * API asks `pulumi version` with the process's environment, not the workspace's, and CLIs from 3.259 on
 * write a log of every command into PULUMI_HOME/logs; a run would otherwise leave them in the user's ~/.pulumi.
 */
const RUN = Symbol.for("pulumi-remote-browser.test-run");
interface SharedRun {
  marker: string;
  tmp: string;
  before: { TMPDIR: string | undefined; PULUMI_HOME: string | undefined };
  /** Projects of this run whose teardown has not run yet: the last one checks the folder. */
  open: number;
}

export default function setup(): () => Promise<void> {
  // One marker for the projects of this run, and a new one for a run started inside it: an inherited one
  // would make the inner run take the outer run's processes for its own.
  const shared = globalThis as { [RUN]?: SharedRun };
  const run = (shared[RUN] ??= {
    marker: randomBytes(8).toString("hex"),
    before: { TMPDIR: process.env.TMPDIR, PULUMI_HOME: process.env.PULUMI_HOME },
    tmp: fs.mkdtempSync(path.join(os.tmpdir(), "prb-test-run-")),
    open: 0,
  });
  run.open++;
  process.env[RUN_MARKER_VAR] = run.marker;
  process.env.TMPDIR = run.tmp;
  process.env.PULUMI_HOME = path.join(run.tmp, PULUMI_HOME);
  return async () => {
    await failOnLeftovers({ marker: run.marker });
    // Projects tear down in reverse order, each its setups in reverse: the e2e setup has removed its folder
    // by the time the last of these runs.
    if (--run.open > 0) return;
    failOnLeftFiles(run.tmp);
    for (const [name, value] of Object.entries(run.before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    delete shared[RUN];
  };
}

const PULUMI_HOME = "pulumi-home";

/** What is in the temporary folder by design: Node's compile cache, ts-node's, the run's PULUMI_HOME. */
const CACHES = [/^node-compile-cache$/, /^ts-node-[0-9a-f]+$/, new RegExp(`^${PULUMI_HOME}$`)];

export function failOnLeftFiles(tmp: string): void {
  const left = fs.readdirSync(tmp).filter((name) => !CACHES.some((c) => c.test(name)));
  if (left.length > 0) {
    const shown = left.slice(0, 20).map((name) => `  ${path.join(tmp, name)}`);
    console.error(`\nthe run left ${left.length} file(s) or folder(s) in its temporary folder (now removed):\n${shown.join("\n")}\n`);
    process.exitCode = 1;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}

export async function failOnLeftovers(query: Parameters<typeof reapLeftovers>[0]): Promise<void> {
  const left = await reapLeftovers(query);
  if (left.length === 0) return;
  console.error(`\nthe run left ${left.length} process(es) running (now killed):\n${describeLeftovers(left)}\n`);
  process.exitCode = 1;
}
