import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator } from "../../emulator";
import type { Emulator } from "../../emulator";
import { pulumiInstall, yamlLanguageHost, yamlProject } from "./plain-cli";

/**
 * The native plugin's front under the service's rate limit, as the limit was first met: Pulumi YAML with
 * the plain CLI, `--parallel 64`, 20 sessions, 5 requests per second per key. The plugin builds its client
 * the way the dynamic provider does (test/e2e/rate-limit.test.ts), so it paces the same way.
 */
const SESSIONS = 20;
const RATE = 5;

let emulator: Emulator;
let base: string;
beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-native-rate-"));
  emulator = await startEmulator({ prepMs: 300, prepJitterMs: 0, rateLimit: RATE, runningLimit: 40 });
});
afterAll(async () => {
  await emulator?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

function program(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const sessions = Array.from({ length: SESSIONS }, (_, i) => `  review-${i}:\n    type: remote-browser:index:BrowserSession\n    properties:\n      browser: chrome\n`).join("");
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: native-rate-limit\nruntime: yaml\nplugins:\n  providers:\n    - name: remote-browser\n      path: ./node_modules/.bin\nresources:\n${sessions}`,
  );
  return dir;
}

describe(`the native plugin under a rate limit of ${RATE} requests per second per key`, () => {
  it(`brings up ${SESSIONS} sessions at --parallel 64 at the first try, none started twice, and destroys them`, async () => {
    const pulumiBin = pulumiInstall(path.join(base, "pulumi", "bin"), inject("e2e").pulumiBin, await yamlLanguageHost());
    const cli = await yamlProject({
      source: program(path.join(base, "source")),
      dir: path.join(base, "stack"),
      stateDir: path.join(base, "stack-state"),
      pulumiBin,
      sharedModules: path.join(inject("e2e").projectDir, "node_modules"),
    });
    try {
      await cli.clean(["stack", "init", "dev"]);
      await cli.clean(["config", "set", "remote-browser:baseUrl", emulator.apiBaseUrl]);
      await cli.clean(["config", "set", "--secret", "remote-browser:apiKey"], emulator.apiKey);
      await cli.ok(["up", "--yes", "--parallel", "64"]);
      const books = emulator.control.books();
      expect(books.started, "one session per resource: none started twice").toBe(SESSIONS);
      expect(books.rateLimited, "the limit was really reached").toBeGreaterThan(0);
      expect(emulator.control.sessions().filter((s) => s.status === "running")).toHaveLength(SESSIONS);
      await cli.ok(["destroy", "--yes", "--parallel", "64"]);
      expect(emulator.control.books().neverEnded).toBe(0);
    } finally {
      if (emulator.control.books().neverEnded > 0) await cli.run(["destroy", "--yes"]);
    }
  });
});
