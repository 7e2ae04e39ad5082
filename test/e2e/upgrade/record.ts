import * as fs from "node:fs";
import * as path from "node:path";
import { it } from "vitest";
import { withStack } from "../harness";
import { UPGRADE_API_KEY, UPGRADE_PASSPHRASE, UPGRADE_SESSIONS_FILE, UPGRADE_STATE_FILE } from "./fixture";

/**
 * How the recorded state was made. Not a test: at the commit of the release whose state is to be kept,
 * copy this file to `record.test.ts` beside it and run `npx vitest run test/e2e/upgrade/record.test.ts`
 * once; it brings the upgrade program up with that release's packed package and writes the exported
 * stack and the emulator's sessions next to this file. The upgrade test then replays them.
 * `state-dynamic-review.json` and `sessions-dynamic-review.json` were made the same way, with the program
 * `upgrade-review.js` and those file names, at the last commit whose ReviewSessions had dynamic sessions.
 */
process.env.PULUMI_CONFIG_PASSPHRASE = UPGRADE_PASSPHRASE;

it("records the state of the upgrade stack", async () => {
  const { projectDir } = (await import("vitest")).inject("e2e");
  await withStack(
    "upgrade.js",
    async (stack) => {
      await stack.run("up", { config: { readyTimeoutSeconds: "120" } });
      fs.writeFileSync(path.join(__dirname, UPGRADE_STATE_FILE), await stack.exportState());
      const seeds = stack.emulator.control.sessions().map(({ accountId: _a, ...view }) => view);
      fs.writeFileSync(path.join(__dirname, UPGRADE_SESSIONS_FILE), `${JSON.stringify({ apiBaseUrl: stack.emulator.apiBaseUrl, shareBase: stack.emulator.shareBase, sessions: seeds }, null, 2)}\n`);
    },
    {
      emulator: { apiKey: UPGRADE_API_KEY },
      pathDirs: [path.join(projectDir, "node_modules", ".bin")],
      name: "upgrade",
    },
  );
});
