import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { startEmulator } from "../../emulator";
import { RunFailed, until, withStack } from "./harness";
import type { E2EStack, RunResult } from "./harness";
import { peakActive } from "./timeline";

/**
 * The per-pull-request example (examples/pr-environment) under the real engine, from the project that
 * installed the packed package, driven step by step as the workflow drives it: opened, pushed, closed.
 * The example is not in the package; the test runs its compiled form (the suite builds first).
 */
const root = path.resolve(__dirname, "..", "..");
const EXAMPLE = path.join(root, "dist", "examples", "pr-environment", "index.js");
const PROGRAM = "pr-environment.js";

/** The checkout: the program and its project file (the harness runs every stack as project `e2e`). */
function useExample(stack: E2EStack): void {
  if (!fs.existsSync(EXAMPLE)) throw new Error(`${EXAMPLE} is missing: build first (npx tsc -p tsconfig.json)`);
  fs.copyFileSync(EXAMPLE, path.join(stack.workDir, "programs", PROGRAM));
  fs.writeFileSync(path.join(stack.workDir, "Pulumi.yaml"), "name: e2e\nruntime: nodejs\n");
}

/** Every CI job starts from a fresh checkout, without the Pulumi.<stack>.yaml an earlier job wrote. */
function freshCheckout(stack: E2EStack): void {
  fs.rmSync(path.join(stack.workDir, `Pulumi.${stack.name}.yaml`), { force: true });
}

/**
 * The workflow's deploy job: refresh, then up with the pull request's settings. The runner refreshes only
 * a stack that exists (it never creates one for a refresh), as the workflow's `up` with `refresh: true`.
 * `expectNoChanges`: the refresh must find nothing changed (as right after an update).
 */
async function deploy(stack: E2EStack, config: Record<string, string>, opts: { expectNoChanges?: boolean } = {}): Promise<RunResult> {
  freshCheckout(stack);
  if (await listed(stack)) await stack.run("refresh", { expectNoChanges: opts.expectNoChanges });
  return stack.run("up", { program: PROGRAM, config });
}

async function listed(stack: E2EStack): Promise<boolean> {
  const r = await stack.cli(["stack", "ls", "--json"]);
  if (r.code !== 0) throw new Error(`stack ls failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as Array<{ name: string }>).some((s) => s.name === stack.name || s.name.endsWith(`/${stack.name}`));
}

/** The workflow's cleanup job: destroy and remove the stack when it exists, then check it is gone. */
async function close(stack: E2EStack): Promise<void> {
  freshCheckout(stack);
  if (await listed(stack)) {
    await stack.run("destroy");
    await stack.run("rm");
  }
  expect(await listed(stack), "the stack is gone from the backend").toBe(false);
}

function active(stack: E2EStack): string[] {
  return stack.emulator.control
    .sessions()
    .filter((s) => s.status === "starting" || s.status === "running")
    .map((s) => s.vmId)
    .sort();
}

const ids = (r: RunResult) => Object.values(r.outputs.sessionIds as Record<string, string>).sort();

describe.concurrent("per-pull-request environment (examples/pr-environment)", () => {
  it("closing a pull request that never deployed succeeds and leaves no stack", async () => {
    await withStack(
      "trivial.js",
      async (stack) => {
        useExample(stack);
        await close(stack);
        expect(stack.emulator.control.books().createCalls).toBe(0);
      },
      { destroy: false },
    );
  });

  it("opens with one session per browser and the links secret, previews and refreshes no change, replaces them on a push that moves the preview (never counting its own sessions twice against a full account), keeps them on a push that does not; a second pull request fails early without a capacity wait, queues with one, and both are gone after the close", async () => {
    const emulator = await startEmulator({ prepMs: 300, runningLimit: 2 });
    try {
      await withStack(
        "trivial.js",
        async (a) => {
          useExample(a);
          const settings = { prNumber: "1", previewUrl: "https://example.com/pr/1" };
          const opened = await deploy(a, settings);
          const first = ids(opened);
          // The default: two enabled browsers picked from getImages().
          expect(Object.keys(opened.outputs.sessionIds as object)).toEqual(["chrome", "firefox"]);
          expect(active(a)).toEqual(first);
          for (const s of emulator.control.sessions()) {
            expect(s.url).toBe("https://example.com/pr/1");
            expect(s.callbackUrl).toBe("https://example.com/pr/1");
          }
          // The share links: masked in the outputs, ciphertext in the state, nowhere in plain text.
          expect(opened.outputs.shareUrls).toBe("[secret]");
          expect(opened.outputs.reviewers).toMatch(/^Pull request #1 has 2 review session\(s\)/);
          expect(opened.outputs.reviewers).not.toMatch(/https?:/);
          const exported = JSON.parse(await a.exportState());
          const stackResource = exported.deployment.resources.find((r: { type: string }) => r.type === "pulumi:pulumi:Stack");
          expect(stackResource.outputs.shareUrls).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
          expect(typeof stackResource.outputs.shareUrls.ciphertext).toBe("string");
          const text = JSON.stringify(exported) + a.stateFilesText() + opened.stdout + opened.stderr;
          for (const s of emulator.control.sessions()) expect(text.includes(s.linkId), "a link id in plain text").toBe(false);
          expect(text.includes(emulator.apiKey)).toBe(false);
          expect(exported.deployment.resources.map((r: { type: string }) => r.type)).not.toContain("pulumi:pulumi:StackReference");

          // Right after the update, neither a preview nor a refresh sees a change (as pulumi/actions and
          // ProgramTest check it): the example keeps nothing in its state that a refresh would read anew.
          await a.run("preview", { program: PROGRAM, config: settings, expectNoChanges: true });
          await a.run("refresh", { expectNoChanges: true });

          // The account is full, with this stack's own sessions: a push that changes the preview still goes
          // through, and every session is replaced (ended before its replacement).
          const pushed = await deploy(a, { prNumber: "1", previewUrl: "https://example.com/pr/1?rev=2" });
          const second = ids(pushed);
          expect(pushed.changes.replace).toBe(2);
          expect(second.some((id) => first.includes(id))).toBe(false);
          expect(active(a)).toEqual(second);
          for (const id of first) {
            expect(emulator.control.sessions().find((s) => s.vmId === id)?.status).toMatch(/stopping|deleted/);
          }

          // A push that changes nothing else keeps the sessions; its refresh, right after the replacing
          // update, sees no change either.
          const same = await deploy(a, { prNumber: "1", previewUrl: "https://example.com/pr/1?rev=2" }, { expectNoChanges: true });
          expect(ids(same)).toEqual(second);
          expect(same.changes.replace ?? 0).toBe(0);

          await withStack(
            "trivial.js",
            async (b) => {
              useExample(b);
              const before = emulator.control.books().createCalls;
              const refused = await deploy(b, { prNumber: "2", previewUrl: "https://example.com/pr/2" }).catch((e) => e);
              expect(refused).toBeInstanceOf(RunFailed);
              expect((refused as RunFailed).stderr).toContain("the account has 0 free running slot(s) of 2, but this pull request needs 2 new session(s) (chrome, firefox)");
              expect((refused as RunFailed).stderr).not.toMatch(/at .*\.js:\d+/); // a message, not a stack trace
              expect(emulator.control.books().createCalls, "no session was asked for").toBe(before);

              // With a capacity wait the pull request queues until the other one closes.
              freshCheckout(b);
              const waiting = b.start("up", {
                program: PROGRAM,
                config: { prNumber: "2", previewUrl: "https://example.com/pr/2", waitForCapacitySeconds: "300" },
              });
              await until(() => emulator.control.books().createCalls > before, 120_000, "pull request 2 to ask for a session");
              expect(emulator.control.books().started).toBe(4);
              await close(a);
              const { code, stderr } = await waiting.done;
              expect(code, stderr).toBe(0);
              const running = active(b);
              expect(running).toHaveLength(2);
              // From the sessions' timelines: the queued pull request never ran beside the other one's sessions.
              expect(peakActive(emulator.control.sessions())).toBe(2);
              expect(emulator.control.books().maxRunning).toBe(2);
              await close(b);
              expect(active(b)).toEqual([]);
              expect(emulator.control.books().neverEnded).toBe(0);
            },
            { sharedEmulator: emulator },
          );
        },
        { sharedEmulator: emulator },
      );
    } finally {
      await emulator.close();
    }
  });

  it("npm run pr:local -- --sequence runs the workflow's steps against the emulator", async () => {
    const { pulumiBin } = inject("e2e");
    const stateDir = path.join(".work", `e2e-pr-local-${process.pid}`);
    try {
      const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn("bash", [path.join(root, "scripts", "pr-local.sh"), "--sequence", "--pr", "7", "--state-dir", stateDir], {
          cwd: root,
          env: { ...process.env, PULUMI_REMOTE_BROWSER_PULUMI: pulumiBin },
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (err += d));
        child.on("close", (c) => resolve({ code: c, stdout: out, stderr: err }));
      });
      expect(code, `${stderr}\n${stdout.slice(-4000)}`).toBe(0);
      for (const line of [
        "ok: 2 session(s) running",
        "ok: stack pr-7 exists",
        "ok: every session was replaced",
        "ok: stack pr-7 is gone from the backend",
        "ok: no session is left running",
        "ok: stack pr-8 is gone from the backend",
      ]) {
        expect(stdout).toContain(line);
      }
      expect(stdout).toContain('shareUrls: "[secret]"');
      // No share link (…/<locale>/s?<link id>) and no key in anything it printed.
      expect(stdout + stderr).not.toMatch(/\/[a-z]{2}\/s\?[A-Za-z0-9_-]/);
      expect(stdout + stderr).not.toMatch(/rb_test_[0-9a-f]/);
    } finally {
      fs.rmSync(path.join(root, stateDir), { recursive: true, force: true });
    }
  });
});
