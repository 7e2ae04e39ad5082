import { randomBytes } from "node:crypto";
import { RUN_MARKER_VAR, describeLeftovers, reapLeftovers } from "./helpers/leftovers";

/**
 * Every project's global setup: marks the run's processes (the variable is inherited by the workers, and by
 * everything a test starts) and fails the run when any of them is still running after the last test.
 * The e2e setup makes the same check for the processes of its project folder (test/e2e/global-setup.ts).
 */
const RUN = Symbol.for("pulumi-remote-browser.test-run");

export default function setup(): () => Promise<void> {
  // One marker for the projects of this run, and a new one for a run started inside it: an inherited one
  // would make the inner run take the outer run's processes for its own.
  const shared = globalThis as { [RUN]?: string };
  const marker = (shared[RUN] ??= randomBytes(8).toString("hex"));
  process.env[RUN_MARKER_VAR] = marker;
  return () => failOnLeftovers({ marker });
}

export async function failOnLeftovers(query: Parameters<typeof reapLeftovers>[0]): Promise<void> {
  const left = await reapLeftovers(query);
  if (left.length === 0) return;
  console.error(`\nthe run left ${left.length} process(es) running (now killed):\n${describeLeftovers(left)}\n`);
  process.exitCode = 1;
}
