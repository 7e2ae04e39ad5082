import { describe, expect, it } from "vitest";
import { runAudit } from "./audit-run";
import { RunFailed, childPids, commandOf, until, withStack } from "./harness";
import type { E2EStack } from "./harness";
import { isRunning } from "../helpers/processes";
import { startEmulator } from "../../emulator";

const TYPE = "pulumi-nodejs:dynamic/remote-browser:BrowserSession";

async function sessionsInState(stack: E2EStack, exported?: string): Promise<Array<{ id: string; urn: string; outputs: Record<string, unknown> }>> {
  const state = JSON.parse(exported ?? (await stack.exportState()));
  return (state.deployment.resources ?? []).filter((r: { type: string }) => r.type === TYPE);
}

function running(stack: E2EStack): string[] {
  return stack.emulator.control
    .sessions()
    .filter((s) => s.status === "running" || s.status === "starting")
    .map((s) => s.vmId);
}

/** Nothing secret in the exported state (`exported`, or a new export) nor in any file of the backend or PULUMI_HOME. */
async function expectNoSecretsInState(stack: E2EStack, exported?: string): Promise<void> {
  exported ??= await stack.exportState();
  const files = stack.stateFilesText();
  const secrets = [stack.emulator.apiKey];
  for (const s of stack.emulator.control.sessions()) secrets.push(s.linkId);
  for (const secret of secrets) {
    expect(exported.includes(secret), "secret in stack export").toBe(false);
    expect(files.includes(secret), "secret in a state file").toBe(false);
  }
}

/** The first page of a session started outside Pulumi. */
const STARTED_URL = "https://started-elsewhere.example.com/";

/**
 * The resource options and lifecycle commands of the options table (docs/browser-session.md) on the
 * dynamic resource, chained on the stack of the first test and its imported session `vmId` (program
 * config `importing`), one runner run per step: ignoreChanges, aliases, protect, state delete,
 * retainOnDelete (which the account audit then finds), and taking a session left running back by import.
 */
async function resourceOptions(stack: E2EStack, vmId: string, importing: Record<string, string>) {
  const status = () => stack.emulator.control.sessions().find((s) => s.vmId === vmId)!.status;
  const recorded = async () => (await sessionsInState(stack)).map((r) => `${r.urn.split("::").at(-1)} ${r.id}`);

  // The stack's config keeps what a run set, so each run sets every option.
  const plain = { ...importing, namePrefix: "review", aliasOf: "", protect: "false", retainOnDelete: "false", ignoreChanges: "" };

  // ignoreChanges: a changed url the program ignores is no change.
  await stack.run("preview", { config: { ...plain, url: "https://changed.example.com/", ignoreChanges: "url" }, expectNoChanges: true });

  // aliases and protect: renamed, the same session under its new name, and protected.
  await stack.run("up", { config: { ...plain, namePrefix: "kept", aliasOf: "review", protect: "true" } });
  expect(await recorded()).toEqual([`kept-firefox ${vmId}`]);
  const refused = await stack.run("destroy").catch((e: RunFailed) => e);
  expect(refused).toBeInstanceOf(RunFailed);
  expect((refused as RunFailed).stdout + (refused as RunFailed).stderr).toMatch(/protected/);
  expect(status()).toBe("running");

  // pulumi state delete (after unprotect): out of the state, still running.
  const [kept] = await sessionsInState(stack);
  for (const args of [
    ["state", "unprotect", kept!.urn, "--yes"],
    ["state", "delete", kept!.urn, "--yes"],
  ]) {
    const r = await stack.cli(args);
    expect(r.code, r.stderr).toBe(0);
  }
  expect(await recorded()).toEqual([]);
  expect(status()).toBe("running");

  // Taken back by the import option, now with retainOnDelete; then removed from the program: left running,
  // and the account audit finds it held by no stack.
  await stack.run("up", { config: { ...plain, retainOnDelete: "true" } });
  expect(await recorded()).toEqual([`review-firefox ${vmId}`]);
  const removed = await stack.run("up", { config: { browsers: "" } });
  expect(removed.changes).toMatchObject({ delete: 1 });
  expect(await recorded()).toEqual([]);
  expect(status()).toBe("running");
  const found = await runAudit(stack.emulator, { workDir: stack.workDir });
  expect(found.code, found.stderr).toBe(3);
  expect(found.stdout.split("\n").find((l) => new RegExp(`^vm-\\*+${vmId.slice(-4)}\\s`).test(l))).toMatch(/running\s+\S+\s+NONE$/);

  // The documented way to end it: take it back by import, then destroy (the caller's).
  await stack.run("up", { config: plain });
  expect(await recorded()).toEqual([`review-firefox ${vmId}`]);
}

describe.concurrent("BrowserSession under the real engine", () => {
  it("creates, previews without changes, replaces on a url change, brings back a session ended out of band with a plain up (the runner refreshes first), imports a running session by vmId in its place, and destroys, ending it; on the imported session, the resource options (ignoreChanges, aliases, protect, state delete, retainOnDelete found by the account audit)", async () => {
    await withStack("sessions.js", async (stack) => {
      const up = await stack.run("up", { config: { url: "https://example.com/a", shareLanguage: "de", usageAfter: "true" } });
      const first = (up.outputs.vmIds as Record<string, string>).chrome;
      expect(running(stack)).toEqual([first]);
      // getUsageOutput with `dependsOn` the sessions: read once they run, so it counts this one.
      expect(up.outputs.runningAfter).toBe(1);
      expect((up.outputs.statuses as Record<string, string>).chrome).toBe("running");
      // The share link is a secret output of the stack (masked by the runner)...
      expect(up.outputs.shareUrls).toEqual({ chrome: "[secret]" });
      // ...and a secret in the state.
      const exported = await stack.exportState();
      const [recorded] = await sessionsInState(stack, exported);
      expect(recorded.id).toBe(first);
      expect(recorded.outputs.shareUrl).toMatchObject({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" });
      await expectNoSecretsInState(stack, exported);

      await stack.run("preview", { config: { url: "https://example.com/a", shareLanguage: "de", usageAfter: "true" }, expectNoChanges: true });
      await stack.run("refresh", { expectNoChanges: true });

      const replaced = await stack.run("up", { config: { url: "https://example.com/b", shareLanguage: "de" } });
      const second = (replaced.outputs.vmIds as Record<string, string>).chrome;
      expect(second).not.toBe(first);
      expect(replaced.changes.replace).toBe(1);
      expect(running(stack)).toEqual([second]);
      expect(stack.emulator.control.sessions().find((s) => s.vmId === first)?.status).toMatch(/stopping|deleted/);
      expect(stack.emulator.control.books().started).toBe(2);

      // On a running limit of 1, from here on: the viewer language changes in place -- the same session,
      // its link's locale segment rewritten -- and every other replacement still gives a new session.
      stack.emulator.control.settings({ runningLimit: 1 });
      const ja = { url: "https://example.com/b", shareLanguage: "ja" };
      const inPlace = await stack.run("up", { config: ja });
      expect(inPlace.changes.update).toBe(1);
      expect((inPlace.outputs.vmIds as Record<string, string>).chrome).toBe(second);
      expect(stack.emulator.control.books().started).toBe(2);
      expect((await sessionsInState(stack))[0]!.outputs.shareLanguage).toBe("ja");
      const tainted = await stack.cli(["state", "taint", "--yes", `urn:pulumi:${stack.name}::e2e::${TYPE}::review-chrome`]);
      expect(tainted.code, tainted.stderr).toBe(0);
      const afterTaint = (await stack.run("up", { config: ja })).outputs.vmIds as Record<string, string>;
      expect(afterTaint.chrome).not.toBe(second);
      const onChange = await stack.run("up", { config: { ...ja, shareLanguage: "fr", replaceOnChanges: "shareLanguage" } });
      const fourth = (onChange.outputs.vmIds as Record<string, string>).chrome;
      expect([second, afterTaint.chrome]).not.toContain(fourth);
      expect(running(stack)).toEqual([fourth]);
      expect(stack.emulator.control.books().started).toBe(4);
      stack.emulator.control.settings({ runningLimit: 5 });

      // Ended out of band: the runner's up refreshes first, which drops it from the state, and starts a new
      // session for it (the old key's session has ended).
      stack.emulator.control.endSession(fourth);
      const again = await stack.run("up", { config: { url: "https://example.com/b", shareLanguage: "fr" } });
      const third = (again.outputs.vmIds as Record<string, string>).chrome;
      expect([first, second, fourth]).not.toContain(third);
      expect(running(stack)).toEqual([third]);

      // A session started outside Pulumi, imported by its vmId in place of the stack's own, declared with
      // the url it was started with: the warning names what the service cannot confirm; no change afterwards.
      const res = await fetch(`${stack.emulator.apiBaseUrl}/vm/create`, {
        method: "POST",
        headers: { authorization: `Bearer ${stack.emulator.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ browser: "firefox", url: STARTED_URL }),
      });
      const { vmId } = (await res.json()) as { vmId: string };
      await until(() => stack.emulator.control.sessions().find((s) => s.vmId === vmId && s.status === "running"));
      const importing = { browsers: "firefox", importId: vmId, url: STARTED_URL };
      const imported = await stack.run("up", { config: importing });
      expect((imported.outputs.vmIds as Record<string, string>).firefox).toBe(vmId);
      expect(imported.stdout + imported.stderr).toContain(
        `BrowserSession ${vmId}, taken in by its id: the service reports its browser and state, not the other inputs it was started with (declared: url)`,
      );
      await stack.run("preview", { config: importing, expectNoChanges: true });
      expect(running(stack)).toEqual([vmId]); // the stack's own session ended with its resource
      expect(stack.emulator.control.books().started).toBe(6); // five by the stack, one by hand: none for the import
      const [adopted] = await sessionsInState(stack);
      expect(adopted.outputs.browserName).toBe("Mozilla Firefox");
      expect(adopted.outputs.shareUrl).toBeUndefined();

      await resourceOptions(stack, vmId, importing);

      await stack.run("destroy");
      expect(running(stack)).toEqual([]);
      expect(stack.emulator.control.books().neverEnded).toBe(0);
      await expectNoSecretsInState(stack);
    });
    // About 30 engine runs one after the other: 420 s beside the rest of the suite, over 600 s (the e2e
    // files' time-out) on a machine running two test cells at once.
  }, 1_200_000);

  it("refuses invalid inputs and a wrong key at preview without starting a session; ends the session and reports why when the location is required but not applied", async () => {
    await withStack("sessions.js", async (stack) => {
      const bad = await stack.run("preview", { config: { browsers: "netscape" } }).catch((e: RunFailed) => e);
      expect(bad).toBeInstanceOf(RunFailed);
      expect((bad as RunFailed).stdout + (bad as RunFailed).stderr).toMatch(/browser.*"netscape" is not a browser image.*chrome/s);

      const key = await stack.run("preview", { apiKey: "rb_wrong_key_000000000000" }).catch((e: RunFailed) => e);
      expect(key).toBeInstanceOf(RunFailed);
      expect((key as RunFailed).stdout + (key as RunFailed).stderr).toMatch(/refused the API key/);
      expect((key as RunFailed).stdout + (key as RunFailed).stderr).not.toContain("rb_wrong_key_000000000000");

      expect(stack.emulator.control.books().createCalls).toBe(0);

      // Valid inputs, but a location the service cannot apply.
      stack.emulator.control.settings({ locationCapacity: { de: 0 } });
      const failed = await stack.run("up", { config: { browsers: "chrome", country: "de", requireLocation: "true" } }).catch((e: RunFailed) => e);
      expect(failed).toBeInstanceOf(RunFailed);
      const text = (failed as RunFailed).stdout + (failed as RunFailed).stderr;
      const [session] = stack.emulator.control.sessions();
      expect(text).toContain(session.vmId);
      expect(text).toMatch(/no free exit in "de".*requireLocation is set.*the session was ended/s);
      expect(stack.emulator.control.books().neverEnded).toBe(0);
      expect(await sessionsInState(stack)).toHaveLength(0);
    });
  });

  it("starts no second session after a pulumi up killed while the session was starting", async () => {
    await withStack("sessions.js", async (stack) => {
      stack.emulator.control.preparation({ paused: true });
      const run = stack.start("up", { config: { readyTimeoutSeconds: "2" } });
      // A hang guard, not a goal: on a machine running another test cell beside this one, the runner's up
      // (a refresh first, then the update) took over 60 s to reach the create.
      const session = await until(() => stack.emulator.control.sessions()[0], 240_000, "the session to be created");
      const engine = await until(() => childPids(run.child.pid!).find((pid) => /\bpulumi\b.*\bup\b/.test(commandOf(pid))), 10_000, "the engine process");
      // The dynamic provider process, waiting for the session's 2 s deadline.
      const provider = childPids(engine).filter((pid) => /[\\/]cmd[\\/]dynamic-provider[\\/]/.test(commandOf(pid)));
      expect(provider).toHaveLength(1);
      process.kill(engine, "SIGKILL");
      await run.done;

      // Orphaned, the provider process exits without ending the session, deadline or not.
      await until(() => !isRunning(provider[0]!), 60_000, "the orphaned provider process to exit");
      expect(stack.emulator.control.books().removeCalls).toBe(0);
      expect(stack.emulator.control.sessions().find((s) => s.vmId === session.vmId)?.status).toBe("starting");

      await stack.cli(["cancel", "--yes"]);
      const cleared = await stack.cli(["refresh", "--clear-pending-creates", "--yes"]);
      expect(cleared.code, cleared.stderr + cleared.stdout).toBe(0);

      stack.emulator.control.preparation({ paused: false });
      const up = await stack.run("up", { config: { readyTimeoutSeconds: "30" } });
      expect((up.outputs.vmIds as Record<string, string>).chrome).toBe(session.vmId);
      expect(stack.emulator.control.books().started).toBe(1);

      await stack.run("refresh", { expectNoChanges: true });
      await stack.run("destroy");
      expect(running(stack)).toEqual([]);
    });
  });

  it("gives `session` under components of two types a session each, and each of two stacks of one project and name on two backends its own; destroying one stack ends only its own", async () => {
    const emulator = await startEmulator({ prepMs: 300 });
    const status = (vmId: unknown) => emulator.control.sessions().find((s) => s.vmId === vmId)?.status;
    try {
      await withStack(
        "parents.js",
        async (a) => {
          const { desktop, mobile } = (await a.run("up")).outputs as Record<string, string>;
          expect(mobile).not.toBe(desktop);
          // The same program as stack `dev` of the same project, on a backend of its own, one account.
          await withStack(
            "parents.js",
            async (b) => {
              const other = (await b.run("up")).outputs as Record<string, string>;
              expect([other.desktop, other.mobile]).not.toContain(desktop);
              expect([other.desktop, other.mobile]).not.toContain(mobile);
              await b.run("destroy");
              expect([other.desktop, other.mobile].map(status)).not.toContain("running");
            },
            { sharedEmulator: emulator, name: "dev" },
          );
          expect([desktop, mobile].map(status)).toEqual(["running", "running"]);
          await a.run("refresh", { expectNoChanges: true });
          await a.run("destroy");
        },
        { sharedEmulator: emulator, name: "dev" },
      );
      expect(emulator.control.books()).toMatchObject({ started: 4, running: 0, neverEnded: 0 });
    } finally {
      await emulator.close();
    }
  });

  it("reports the stack's outputs as the CLI prints them, masked and with --show-secrets, and the update's counts", async () => {
    // The runner reads outputs from one `stack export` and counts from the engine's summary event
    // (runner/index.ts); the CLI of this test cell is the reference for both views.
    await withStack("outputs.js", async (stack) => {
      const up = await stack.run("up");
      expect(up.changes).toEqual({ create: 2 });
      const cliMasked = await stack.cli(["stack", "output", "--json"]);
      expect(JSON.stringify(up.outputs)).toBe(JSON.stringify(JSON.parse(cliMasked.stdout)));
      expect(up.outputs.nested).toEqual({ open: "yes", closed: "[secret]", deeper: { link: "[secret]" } });

      const shown = await stack.run("outputs", { extraArgs: ["--show-secrets"] });
      const cliPlain = await stack.cli(["stack", "output", "--json", "--show-secrets"]);
      expect(JSON.stringify(shown.outputs)).toBe(JSON.stringify(JSON.parse(cliPlain.stdout)));
      expect(shown.outputs.secretText).toBe("top secret");

      const destroyed = await stack.run("destroy");
      expect(destroyed.changes).toEqual({ delete: 2 });
    });
  });
});
