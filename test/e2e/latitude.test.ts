import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { runAudit } from "./audit-run";
import { RunFailed, until, withStack } from "./harness";
import type { E2EStack } from "./harness";

/**
 * The provider against a service that takes every freedom the spec leaves (the emulator's latitude profile,
 * emulator/latitude.ts): status calls answered with the account's list, a list that lags and is capped,
 * refusals that repeat the credentials, rate-limit refusals as HTTP 429 and as HTTP 200, fields and a state
 * the spec does not name. One stack through up under a rate limit, refresh, import, a preview with a wrong key,
 * the audit and destroy: nothing may leak, nothing be dropped, no key be printed.
 */
const TYPE = "pulumi-nodejs:dynamic/remote-browser:BrowserSession";
const WRONG_KEY = "rb_wrong_key_latitude_0000000000";

async function sessionsInState(stack: E2EStack): Promise<Array<{ id: string }>> {
  const state = JSON.parse(await stack.exportState());
  return (state.deployment.resources ?? []).filter((r: { type: string }) => r.type === TYPE);
}

/** Starts a session outside Pulumi, as a user would by hand. */
async function startByHand(stack: E2EStack, browser: string): Promise<string> {
  const res = await fetch(`${stack.emulator.apiBaseUrl}/vm/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.emulator.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ browser }),
  });
  const { vmId } = (await res.json()) as { vmId: string };
  return vmId;
}

describe("under a service that takes the latitude its spec leaves", () => {
  it("up under a rate limit, refresh, import, a wrong key, the audit and destroy: nothing leaks, nothing is dropped, no key is printed", async () => {
    const { projectDir } = inject("e2e");
    const backendDir = path.join(projectDir, "stacks", `latitude-${process.pid}`);
    fs.mkdirSync(backendDir, { recursive: true });
    const backendUrl = `file://${backendDir}`;
    const printed: string[] = [];
    let apiKey = "";
    try {
      await withStack(
        "sessions.js",
        async (stack) => {
          const control = stack.emulator.control;
          apiKey = stack.emulator.apiKey;
          const active = () => control.sessions().filter((s) => s.status === "running" || s.status === "starting");

          // Four sessions waited for at once, under a rate limit: the shared poll, status answers that list the
          // account, refusals as HTTP 429 and as HTTP 200.
          control.settings({ rateLimit: 4 });
          const up = await stack.run("up", { config: { count: "4" } });
          printed.push(up.stdout, up.stderr);
          control.settings({ rateLimit: 0 });
          const vmIds = Object.values(up.outputs.vmIds as Record<string, string>);
          expect(new Set(vmIds).size).toBe(4);
          expect(control.books().started, "none started twice").toBe(4);
          expect(
            active()
              .map((s) => s.vmId)
              .sort(),
          ).toEqual([...vmIds].sort());
          const refusals = control.requests().filter((r) => r.status === "insecure");
          expect(new Set(refusals.map((r) => r.httpStatus)), "refused both ways").toEqual(new Set([429, 200]));
          // The state the spec does not name, shown while each session prepares, ended no wait.
          expect(Object.values(up.outputs.statuses as Record<string, string>)).toEqual(Array(4).fill("running"));

          // A newer session, started by hand and ended: first in the list that status calls are answered with.
          const ended = await startByHand(stack, "edge");
          control.endSession(ended);
          const refreshed = await stack.run("refresh", { expectNoChanges: true });
          printed.push(refreshed.stdout, refreshed.stderr);
          expect((await sessionsInState(stack)).map((r) => r.id).sort(), "refresh dropped nothing").toEqual([...vmIds].sort());

          // Import a session started by hand in place of the stack's four.
          const byHand = await startByHand(stack, "firefox");
          await until(() => control.sessions().find((s) => s.vmId === byHand && s.status === "running"));
          const imported = await stack.run("up", { config: { browsers: "firefox", count: "1", importId: byHand } });
          printed.push(imported.stdout, imported.stderr);
          expect((imported.outputs.vmIds as Record<string, string>).firefox).toBe(byHand);
          expect(active().map((s) => s.vmId)).toEqual([byHand]);
          expect(control.books().started, "none for the import").toBe(6);

          // A wrong key: the service's refusal repeats it; nothing shows it.
          const refused = await stack.run("preview", { apiKey: WRONG_KEY }).catch((e: unknown) => e);
          expect(refused).toBeInstanceOf(RunFailed);
          const { stdout, stderr } = refused as RunFailed;
          printed.push(stdout, stderr);
          expect(stdout + stderr).toMatch(/refused the API key/);

          // The imported session ends under the stack's feet, and a session no stack holds shows the same
          // visible characters: the audit must not take the stack's record for it.
          control.endSession(byHand);
          const orphan = `vm-${"f".repeat(byHand.length - 7)}${byHand.slice(-4)}`;
          expect(orphan).not.toBe(byHand);
          control.seedSession({ vmId: orphan, browser: "chrome", linkId: "latitudeorphan01", created: new Date(Date.now() - 3_600_000).toISOString() });
          const report = await runAudit(stack.emulator, { workDir: path.join(stack.workDir, "audit"), backendUrl });
          printed.push(report.stdout, report.stderr);
          expect(report.code, report.stderr + report.stdout).toBe(3);
          const row = report.stdout.split("\n").find((l) => new RegExp(`^vm-\\*+${orphan.slice(-4)}\\s`).test(l));
          expect(row, report.stdout).toMatch(/Google Chrome\s+running\s+\S+\s+NONE$/);
          expect(report.stdout).toMatch(/held by a stack: 0 .*held by none: 1 .*masked-id collisions: 1/);
          control.endSession(orphan);

          const destroyed = await stack.run("destroy");
          printed.push(destroyed.stdout, destroyed.stderr);
          expect(await sessionsInState(stack)).toHaveLength(0);
          expect(active()).toEqual([]);
          expect(control.books().neverEnded).toBe(0);
          const state = stack.stateFilesText();
          for (const key of [stack.emulator.apiKey, WRONG_KEY]) expect(state.includes(key), "a key in a state file").toBe(false);
        },
        { backendUrl, emulator: { prepMs: 1_000, prepJitterMs: 0, runningLimit: 20, latitude: { unnamedForMs: 500 } } },
      );
    } finally {
      fs.rmSync(backendDir, { recursive: true, force: true });
    }
    // Checked last, for everything any step printed: the service's refusals repeated the keys presented.
    expect(apiKey).not.toBe("");
    for (const text of printed) {
      expect(text.includes(WRONG_KEY), "the wrong key printed").toBe(false);
      expect(text.includes(apiKey), "the key printed").toBe(false);
    }
  });
});
