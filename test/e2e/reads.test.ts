import * as fs from "node:fs";
import type { Server } from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Emulator, startEmulator } from "../../emulator";
import { startEchoingProxy } from "../helpers/echoing-proxy";
import { until, withStack } from "./harness";
import { type PulumiCli, filesText, pulumiInstall, yamlLanguageHost, yamlProject } from "./plain-cli";

/**
 * What the provider may conclude from the service's status answers, under the real engine:
 * - under a service that answers every status call about an id with the account's list (the emulator's
 *   latitude profile, `listForId: "always"`), where no status read proves one session's state, refresh,
 *   the read before an update or a destroy, destroy and import of one of several listed sessions all
 *   succeed, the record kept as it was with a warning, nothing left running: from YAML with the plugin
 *   (`pulumi import`, `refresh`, `up`, `destroy`) and from TypeScript with the dynamic package;
 * - the dynamic package brings back a session ended behind the stack's back on a plain `pulumi up` (no
 *   refresh first): its diff asks the service, and `pulumi preview` says why it replaces the session.
 */
const UNPROVABLE = { prepMs: 200, prepJitterMs: 0, latitude: { listForId: "always" as const, unnamedForMs: 0, listLagMs: 0 } };
const NOT_PROVEN = /refreshing session (vm-\S+): 3 status answers for this id did not list it alone .*It stays in the stack as recorded/;
const BROWSER_SESSION = "remote-browser:index:BrowserSession";
const DYNAMIC_TYPE = "pulumi-nodejs:dynamic/remote-browser:BrowserSession";

/** Starts `browsers.length` sessions outside Pulumi and waits until they run. */
async function startedOutside(emulator: Emulator, apiKey: string, browsers: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const browser of browsers) {
    const res = await fetch(`${emulator.apiBaseUrl}/vm/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ browser }),
    });
    ids.push(((await res.json()) as { vmId: string }).vmId);
  }
  await until(() => ids.every((id) => emulator.control.sessions().find((s) => s.vmId === id)?.status === "running") || undefined);
  return ids;
}

/**
 * A proxy before `emulator` that repeats the credentials each request presented -- the Authorization header,
 * the key URL-encoded -- in every successful answer's `location_reason`, as a service or a proxy may.
 */
function echoingProxy(emulator: Emulator): Promise<{ baseUrl: string; server: Server }> {
  return startEchoingProxy(emulator.apiBaseUrl, (answer, { presented }) => {
    const reason = `unavailable (${presented}; key=${encodeURIComponent(presented.replace(/^Bearer /, ""))})`;
    if (answer.location_reason) answer.location_reason = reason;
    for (const e of answer.data ?? []) if (e.location_reason) e.location_reason = reason;
  });
}

const statusOf = (emulator: Emulator, vmId: string) => emulator.control.sessions().find((s) => s.vmId === vmId)?.status;
const text = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`;

describe.concurrent("status answers that prove nothing, and sessions ended behind the stack's back", () => {
  let base: string;
  let pulumiBin: string;
  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-reads-"));
    pulumiBin = pulumiInstall(path.join(base, "pulumi", "bin"), inject("e2e").pulumiBin, await yamlLanguageHost());
  });
  afterAll(() => {
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it("YAML with the plugin: pulumi import of one of several listed sessions, refresh, up and destroy all succeed under a service that answers every id with the list", async () => {
    const emulator = await startEmulator(UNPROVABLE);
    let cli: PulumiCli | undefined;
    try {
      cli = await yamlProject({
        source: path.join(__dirname, "programs", "native-yaml", "import"),
        dir: path.join(base, "yaml"),
        stateDir: path.join(base, "yaml-state"),
        pulumiBin,
        sharedModules: path.join(inject("e2e").projectDir, "node_modules"),
      });
      await cli.ok(["stack", "init", "dev"]);
      await cli.ok(["config", "set", "remote-browser:baseUrl", emulator.apiBaseUrl]);
      await cli.ok(["config", "set", "--secret", "remote-browser:apiKey"], emulator.apiKey);
      const [a, b, c] = await startedOutside(emulator, emulator.apiKey, ["chrome", "firefox", "edge"]);

      const out = path.join(cli.dir, "imported.yaml");
      const imported = await cli.ok(["import", BROWSER_SESSION, "review", b!, "--yes", "--protect=false", "--out", out]);
      expect(imported.stdout).toMatch(/=\s+1 imported/);
      expect((await cli.resources()).find((r) => r.type === BROWSER_SESSION)).toMatchObject({ id: b, outputs: { vmId: b, status: "running", browserName: "Mozilla Firefox" } });
      fs.appendFileSync(path.join(cli.dir, "Pulumi.yaml"), fs.readFileSync(out, "utf8"));

      // An explicit refresh: kept as recorded, with the warning.
      const refreshed = await cli.ok(["refresh", "--yes"]);
      expect(text(refreshed)).toMatch(NOT_PROVEN);
      // An update: the engine reads the session first (refresh_before_update); kept, and no change.
      const up = await cli.ok(["up", "--yes"]);
      expect(text(up)).toMatch(NOT_PROVEN);
      expect(up.stdout).not.toMatch(/[+-]\s+\d+ (created|deleted|replaced)/);
      expect((await cli.resources()).find((r) => r.type === BROWSER_SESSION)?.id).toBe(b);

      // A destroy, read first the same way: it ends the session.
      const destroyed = await cli.ok(["destroy", "--yes"]);
      expect(text(destroyed)).toMatch(NOT_PROVEN);
      expect(statusOf(emulator, b!)).not.toBe("running");
      expect(await cli.resources()).toEqual([]);
      expect([statusOf(emulator, a!), statusOf(emulator, c!)]).toEqual(["running", "running"]);
      expect(emulator.control.books().started).toBe(3);
      expect(filesText(cli.stateDir).includes(emulator.apiKey)).toBe(false);
    } finally {
      for (const s of emulator.control.sessions()) if (s.status === "running" || s.status === "starting") emulator.control.endSession(s.vmId);
      await emulator.close();
    }
  });

  it("TypeScript with the dynamic package: import of one of several listed sessions, refresh, up and destroy all succeed under a service that answers every id with the list", async () => {
    await withStack(
      "sessions.js",
      async (stack) => {
        const { emulator } = stack;
        const [a, b, c] = await startedOutside(emulator, emulator.apiKey, ["chrome", "firefox", "chrome"]);
        const imported = await stack.run("up", { config: { browsers: "firefox", count: "1", importId: b! } });
        expect((imported.outputs.vmIds as Record<string, string>).firefox).toBe(b);

        const refreshed = await stack.run("refresh");
        expect(text(refreshed)).toMatch(NOT_PROVEN);
        // The runner's up refreshes first, then the diff lists the account once: no change.
        const up = await stack.run("up", { config: { browsers: "firefox", count: "1", importId: b! }, expectNoChanges: true });
        expect(text(up)).toMatch(NOT_PROVEN);
        const state = JSON.parse(await stack.exportState());
        expect(state.deployment.resources.filter((r: { type: string }) => r.type === DYNAMIC_TYPE).map((r: { id: string }) => r.id)).toEqual([b]);

        await stack.run("destroy");
        expect(statusOf(emulator, b!)).not.toBe("running");
        expect([statusOf(emulator, a!), statusOf(emulator, c!)]).toEqual(["running", "running"]);
        emulator.control.endSession(a!);
        emulator.control.endSession(c!);
        expect(emulator.control.books().neverEnded).toBe(0);
      },
      { emulator: UNPROVABLE },
    );
  });

  it("YAML with the plugin: a service that repeats the key in location_reason puts it in no output, warning or state", async () => {
    const emulator = await startEmulator({ prepMs: 200 });
    const proxy = await echoingProxy(emulator);
    try {
      emulator.control.settings({ locationCapacity: { de: 0 } });
      const cli = await yamlProject({
        source: path.join(__dirname, "programs", "native-yaml", "import"),
        dir: path.join(base, "yaml-echo"),
        stateDir: path.join(base, "yaml-echo-state"),
        pulumiBin,
        sharedModules: path.join(inject("e2e").projectDir, "node_modules"),
      });
      fs.appendFileSync(
        path.join(cli.dir, "Pulumi.yaml"),
        "resources:\n  located:\n    type: remote-browser:index:BrowserSession\n    properties:\n      browser: chrome\n      country: de\noutputs:\n  reason: ${located.locationReason}\n",
      );
      await cli.ok(["stack", "init", "dev"]);
      await cli.ok(["config", "set", "remote-browser:baseUrl", proxy.baseUrl]);
      await cli.ok(["config", "set", "--secret", "remote-browser:apiKey"], emulator.apiKey);
      const up = await cli.ok(["up", "--yes"]);
      expect(text(up)).toMatch(/no free exit in "de" \(unavailable \(Bearer \[redacted\]; key=\[redacted\]\)\)/);
      expect(JSON.parse((await cli.ok(["stack", "output", "--json"])).stdout).reason).toBe("unavailable (Bearer [redacted]; key=[redacted])");
      const destroyed = await cli.ok(["destroy", "--yes"]);
      for (const where of [text(up), text(destroyed), await cli.exportText(), filesText(cli.stateDir)]) {
        expect(where.includes(emulator.apiKey), "the key in an output, a message or the state").toBe(false);
        expect(where.includes(encodeURIComponent(emulator.apiKey))).toBe(false);
      }
      expect(emulator.control.books().neverEnded).toBe(0);
    } finally {
      proxy.server.close();
      await emulator.close();
    }
  });

  it("TypeScript with the dynamic package: a service that repeats the key in location_reason puts it in no output, warning or state", async () => {
    await withStack("sessions.js", async (stack) => {
      const { emulator } = stack;
      const proxy = await echoingProxy(emulator);
      try {
        emulator.control.settings({ locationCapacity: { de: 0 } });
        const up = await stack.run("up", { baseUrl: proxy.baseUrl, config: { country: "de" } });
        expect((up.outputs.locationApplied as Record<string, boolean>).chrome).toBe(false);
        expect(text(up)).toMatch(/no free exit in "de" \(unavailable \(Bearer \[redacted\]; key=\[redacted\]\)\)/);
        const [recorded] = JSON.parse(await stack.exportState()).deployment.resources.filter((r: { type: string }) => r.type === DYNAMIC_TYPE);
        expect(recorded.outputs.locationReason).toBe("unavailable (Bearer [redacted]; key=[redacted])");
        const destroyed = await stack.run("destroy", { baseUrl: proxy.baseUrl });
        for (const where of [text(up), text(destroyed), stack.stateFilesText()]) {
          expect(where.includes(emulator.apiKey), "the key in an output, a message or the state").toBe(false);
          expect(where.includes(encodeURIComponent(emulator.apiKey))).toBe(false);
        }
        expect(emulator.control.books().neverEnded).toBe(0);
      } finally {
        proxy.server.close();
      }
    });
  });

  it("TypeScript with the dynamic package: a session ended behind the stack's back is replaced by a plain pulumi up, and pulumi preview says why", async () => {
    await withStack("sessions.js", async (stack) => {
      const { emulator } = stack;
      const first = ((await stack.run("up")).outputs.vmIds as Record<string, string>).chrome!;
      emulator.control.endSession(first);

      const preview = await stack.run("preview");
      expect(preview.changes.replace).toBe(1);
      expect(text(preview)).toContain(`session ${first} has ended outside Pulumi (the service reports it "deleted"), so it is replaced by a new session`);
      expect(emulator.control.books().started).toBe(1);

      // No refresh first: the diff alone finds it ended.
      const up = await stack.run("up", { extraArgs: ["--no-refresh"] });
      const second = (up.outputs.vmIds as Record<string, string>).chrome!;
      expect(second).not.toBe(first);
      expect(up.changes.replace).toBe(1);
      expect(statusOf(emulator, second)).toBe("running");
      expect(emulator.control.books().started).toBe(2);

      // A running session is kept: no change, however many updates.
      await stack.run("up", { extraArgs: ["--no-refresh"], expectNoChanges: true });
      await stack.run("destroy");
      expect(emulator.control.books().neverEnded).toBe(0);
    });
  });
});
