import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * A temporary folder of the run's own, for the Automation API, the CLI and the plugins, removed when the
 * run's last action ends. Older @pulumi/pulumi releases (the floor of the peer range, 3.159.0, among them)
 * pass the engine's events through `automation-logs-<action>-*` in os.tmpdir() and delete it with an
 * unawaited `fs.rm`, which never completes when the process exits right after the action, as the runner's
 * command line does: the file stays, holding the events as the engine wrote them, unredacted -- a verbose
 * run's derived idempotency keys among them.
 *
 * os.tmpdir() reads TMPDIR at every call, so setting it here moves those files; actions running at once in
 * one process share the folder.
 */
let users = 0;
let folder: string | undefined;
let before: string | undefined;
let removedAtExit = false;

export function enterPrivateTmp(): { dir: string; leave: () => void } {
  if (users++ === 0) {
    before = process.env.TMPDIR;
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "prb-runner-"));
    process.env.TMPDIR = folder;
    if (!removedAtExit) {
      removedAtExit = true;
      // A run stopped at once (a second Ctrl-C) exits without reaching its `leave`: the folder goes with the process.
      process.once("exit", () => folder && fs.rmSync(folder, { recursive: true, force: true }));
    }
  }
  const dir = folder!;
  let left = false;
  return {
    dir,
    leave: () => {
      if (left) return;
      left = true;
      if (--users > 0) return;
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      fs.rmSync(dir, { recursive: true, force: true });
      folder = undefined;
    },
  };
}
