import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { CreateAnswer } from "../../client";
import { startEmulator } from "../../emulator";
import { engineEnvironment } from "../../runner/environment";
import { type Postgres, startPostgres } from "../helpers/postgres";
import { run } from "../../release/run";
import { runAudit } from "./audit-run";
import { childPids, commandOf, until, withStack } from "./harness";
import type { E2EStack } from "./harness";

/**
 * The account audit under the real engine: stacks on one shared backend (a file backend and PostgreSQL),
 * a session each stack holds, one `up` killed before the engine recorded its create, one stack removed
 * with --force, and one session started by hand. The audit must name each, exit non-zero, start and end
 * nothing, and the command it prints for the pending create must settle it.
 */
let postgres: Postgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);
afterAll(() => postgres?.stop());

const BROWSER = { held: "firefox", pending: "chrome", forced: "edge", byHand: "brave" } as const;

/** The table's line of the session whose vmId ends like `vmId`. */
function rowOf(text: string, vmId: string): string {
  const line = text.split("\n").find((l) => new RegExp(`^vm-\\*+${vmId.slice(-4)}\\s`).test(l));
  if (!line) throw new Error(`no row for ${vmId} in:\n${text}`);
  return line;
}

async function scenario(backend: "file" | "postgres"): Promise<void> {
  const { projectDir } = inject("e2e");
  const base = path.join(projectDir, "stacks", `audit-${backend}-${process.pid}`);
  const backendUrl = backend === "file" ? `file://${path.join(base, "backend")}` : postgres.url;
  fs.mkdirSync(path.join(base, "backend"), { recursive: true });
  const emu = await startEmulator({ prepMs: 200 });
  const control = emu.control;
  const opts = { sharedEmulator: emu, backendUrl, destroy: false };
  try {
    await withStack(
      "sessions.js",
      async (held: E2EStack) => {
        await withStack(
          "sessions.js",
          async (pending: E2EStack) => {
            await withStack(
              "sessions.js",
              async (forced: E2EStack) => {
                await Promise.all([held.run("up", { config: { browsers: BROWSER.held } }), forced.run("up", { config: { browsers: BROWSER.forced } })]);
                const rm = await forced.cli(["stack", "rm", "--force", "--yes"]);
                expect(rm.code, rm.stderr).toBe(0);

                // An `up` killed while its session starts: the engine has not recorded the create.
                control.preparation({ paused: true });
                const run = pending.start("up", { config: { browsers: BROWSER.pending } });
                await until(() => control.sessions().find((s) => s.browser === BROWSER.pending), 60_000, "the pending session");
                const engine = await until(() => childPids(run.child.pid!).find((pid) => /\bpulumi\b.*\bup\b/.test(commandOf(pid))), 10_000, "the engine");
                process.kill(engine, "SIGKILL");
                await run.done;

                const byHand = (await (
                  await fetch(`${emu.apiBaseUrl}/vm/create`, {
                    method: "POST",
                    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
                    body: JSON.stringify({ browser: BROWSER.byHand }),
                  })
                ).json()) as CreateAnswer;
                expect(byHand.status).toBe("ok");

                const vmIdOf = (browser: string) => control.sessions().find((s) => s.browser === browser)!.vmId;
                const before = control.books();
                control.clearRequests();
                const first = await runAudit(emu, { workDir: path.join(base, "audit"), backendUrl });
                expect(first.code, first.stderr + first.stdout).toBe(3);
                const org = "organization/e2e";
                expect(rowOf(first.stdout, vmIdOf(BROWSER.held))).toMatch(new RegExp(`Mozilla Firefox\\s+running\\s+\\S+\\s+stack ${org}/${held.name}$`));
                expect(rowOf(first.stdout, vmIdOf(BROWSER.pending))).toMatch(new RegExp(`Google Chrome\\s+starting\\s+\\S+\\s+pending create in ${org}/${pending.name}$`));
                expect(rowOf(first.stdout, vmIdOf(BROWSER.forced))).toMatch(/Microsoft Edge\s+running\s+\S+\s+NONE$/);
                expect(rowOf(first.stdout, byHand.vmId)).toMatch(/Brave\s+(starting|running)\s+\S+\s+NONE$/);
                expect(first.stdout).toContain("running in the account: 4   held by a stack: 1   pending in a stack: 1   held by none: 2   masked-id collisions: 0");
                expect(first.stdout).toContain("held by none and older than 0 min: 2\n");
                // The audit shows no full id: the listed ids are masked.
                for (const s of control.sessions()) expect(first.stdout).not.toContain(s.vmId);
                // It started and ended nothing, and asked the service once for the list (and once for the images).
                const after = control.books();
                expect([after.createCalls, after.removeCalls, after.started]).toEqual([before.createCalls, before.removeCalls, before.started]);
                expect(
                  control
                    .requests()
                    .map((r) => r.operation)
                    .sort(),
                ).toEqual(["image", "list"]);

                // The printed commands: the plain CLI's, which fit any program, and the runner's too, since the runner
                // made the stack. The plain ones are followed, as printed, in the program's folder.
                const lines = first.stdout.split("\n").map((l) => l.trim());
                const fq = `${org}/${pending.name}`;
                const plain = [`pulumi cancel --yes --stack ${fq}`, `pulumi refresh --clear-pending-creates --yes --stack ${fq}`];
                for (const command of plain) expect(lines).toContain(command);
                expect(lines).toContain(
                  `or, as the runner made this stack: pulumi-remote-browser-run refresh --stack ${pending.name} --project e2e --backend-env PULUMI_BACKEND_URL --clear-pending-creates`,
                );
                // The backend is named by its variable, never by its value (a PostgreSQL URL may hold a password).
                expect(first.stdout).not.toContain(backendUrl);
                control.preparation({ paused: false });
                for (const command of plain) {
                  const done = await pending.cli(command.split(" ").slice(1));
                  expect(done.code, `${command}: ${done.stderr}`).toBe(0);
                }
                const adopted = await pending.run("up", { config: { browsers: BROWSER.pending } });
                expect((adopted.outputs.vmIds as Record<string, string>)[BROWSER.pending]).toBe(vmIdOf(BROWSER.pending));

                // Run inside a project's folder (where `pulumi stack ls` gives short names), for that project.
                const second = await runAudit(emu, { workDir: path.join(base, "audit"), backendUrl, cwd: held.workDir, args: ["--project", "e2e"] });
                expect(second.code, second.stderr + second.stdout).toBe(3);
                expect(rowOf(second.stdout, vmIdOf(BROWSER.pending))).toMatch(new RegExp(`Google Chrome\\s+running\\s+\\S+\\s+stack ${org}/${pending.name}$`));
                expect(second.stdout).not.toContain("pending create in");
                expect(second.stdout).toMatch(/held by a stack: 2 {3}pending in a stack: 0 {3}held by none: 2/);
                // Four sessions in all, the adopted one not started twice.
                expect(control.books().started).toBe(4);

                // Every session ended (the stacks' destroys would only end theirs, which the tests of destroy prove):
                // the audit of a clean account passes.
                for (const browser of Object.values(BROWSER)) control.endSession(vmIdOf(browser));
                const last = await runAudit(emu, { workDir: path.join(base, "audit"), backendUrl });
                expect(last.code, last.stderr + last.stdout).toBe(0);
                expect(last.stdout).toContain("running in the account: 0");
                expect(control.books().neverEnded).toBe(0);
              },
              { ...opts, name: `forced-${backend}` },
            );
          },
          { ...opts, name: `pending-${backend}` },
        );
      },
      { ...opts, name: `held-${backend}` },
    );
  } finally {
    await emu.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

describe.concurrent("the account audit", () => {
  it("on a file backend names the held, pending and held-by-none sessions, and the printed command settles the pending one", () => scenario("file"));
  it("on a PostgreSQL backend does the same", () => scenario("postgres"));
});

describe("the audit on stacks whose state it cannot trust", () => {
  it("escapes what a stack's state says, and names a truncated stack as unreadable while reading the others", async () => {
    const { projectDir } = inject("e2e");
    const base = path.join(projectDir, "stacks", `audit-state-${process.pid}`);
    const backendUrl = `file://${path.join(base, "backend")}`;
    fs.mkdirSync(path.join(base, "backend"), { recursive: true });
    const emu = await startEmulator({ prepMs: 50 });
    const opts = { sharedEmulator: emu, backendUrl, destroy: false };
    try {
      await withStack(
        "sessions.js",
        async (crafted: E2EStack) => {
          await withStack(
            "sessions.js",
            async (broken: E2EStack) => {
              await crafted.run("up", { config: { browsers: "chrome" } });
              // The broken one needs a stack file to cut in half, made by `stack init`, and a session the audit then
              // cannot see it hold (held by none), started by hand instead of by an up of the stack.
              fs.writeFileSync(path.join(broken.workDir, "Pulumi.yaml"), "name: e2e\nruntime: nodejs\n");
              const init = await broken.cli(["stack", "init"]);
              expect(init.code, init.stderr).toBe(0);
              const byHand = await fetch(`${emu.apiBaseUrl}/vm/create`, {
                method: "POST",
                headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
                body: JSON.stringify({ browser: "firefox" }),
              });
              expect(((await byHand.json()) as { status: string }).status).toBe("ok");
              const stackFile = (s: E2EStack) => path.join(base, "backend", ".pulumi", "stacks", "e2e", `${s.name}.json`);
              // Anyone who can write the backend (a pull request's job can) chooses what the state says.
              const state = JSON.parse(fs.readFileSync(stackFile(crafted), "utf8"));
              state.checkpoint.latest.pending_operations = [
                {
                  type: "creating",
                  resource: {
                    urn: `urn:pulumi:${crafted.name}::e2e::remote-browser:index:BrowserSession::x\n::error::injected\u001b[31m`,
                    type: "remote-browser:index:BrowserSession",
                    inputs: { browser: "edge\r\n::add-mask::x" },
                  },
                },
              ];
              fs.writeFileSync(stackFile(crafted), JSON.stringify(state));
              const text = fs.readFileSync(stackFile(broken), "utf8");
              fs.writeFileSync(stackFile(broken), text.slice(0, Math.floor(text.length / 2)));

              const result = await runAudit(emu, { workDir: path.join(base, "audit"), backendUrl });
              expect(result.code, result.stderr + result.stdout).toBe(3);
              expect(result.stdout).toMatch(new RegExp(`Stacks that could not be read \\(1\\): .*\\n {2}organization/e2e/${broken.name}: `));
              expect(result.stdout).toMatch(new RegExp(`Google Chrome\\s+running\\s+\\S+\\s+stack organization/e2e/${crafted.name}$`, "m"));
              expect(result.stdout).toMatch(/Mozilla Firefox\s+(starting|running)\s+\S+\s+NONE$/m);
              for (const line of result.stdout.split("\n")) expect(line.trimStart(), line).not.toMatch(/^::/);
              // eslint-disable-next-line no-control-regex -- no terminal escape may reach the output
              expect(result.stdout).not.toMatch(/[\u001b\r]/);
              expect(result.stdout).toContain("BrowserSession::x\\x0a::error::injected\\x1b[31m");
              expect(result.stdout).toContain("(browser edge\\x0d\\x0a::add-mask::x)");
            },
            { ...opts, name: "broken" },
          );
        },
        { ...opts, name: "crafted" },
      );
    } finally {
      await emu.close();
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("pulumi do list (the engine's List call, experimental in CLI 3.248.0)", () => {
  it("lists the account's sessions through the plugin with masked ids, filtered by a PCL query; a bad key is named", async () => {
    const { projectDir, pulumiBin } = inject("e2e");
    const dir = fs.mkdtempSync(path.join(projectDir, "do-list-"));
    const emu = await startEmulator({ prepMs: 50 });
    try {
      const env = { ...process.env, ...engineEnvironment({ pulumiBin, stateDir: path.join(dir, "state"), workDir: dir }), REMOTE_BROWSER_BASE_URL: emu.apiBaseUrl };
      const plugin = path.join(projectDir, "node_modules", ".bin", "pulumi-resource-remote-browser");
      const create = async (browser: string) =>
        (
          (await (
            await fetch(`${emu.apiBaseUrl}/vm/create`, {
              method: "POST",
              headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
              body: JSON.stringify({ browser }),
            })
          ).json()) as CreateAnswer
        ).vmId;
      const chrome = await create("chrome");
      const edge = await create("edge");
      emu.control.endSession(edge);
      fs.writeFileSync(path.join(dir, "running.pp"), 'states = ["starting", "running"]\n');
      const doList = (extra: string[], key = emu.apiKey) =>
        run(pulumiBin, ["do", "--package", plugin, "remote-browser:index:BrowserSession", "list", ...extra, "--non-interactive"], {
          cwd: dir,
          env: { ...env, REMOTE_BROWSER_API_KEY: key },
        });
      const all = JSON.parse(await doList([])) as Array<{ id: string; name: string }>;
      expect(all.map((i) => i.name.split(",")[0])).toEqual(["Microsoft Edge", "Google Chrome"]);
      expect(all.map((i) => i.id.slice(-4))).toEqual([edge.slice(-4), chrome.slice(-4)]);
      expect(all.map((i) => i.id)).not.toContain(chrome);
      const live = JSON.parse(await doList(["--input-file", path.join(dir, "running.pp")])) as Array<{ id: string; name: string }>;
      expect(live.map((i) => i.name.split(",")[0])).toEqual(["Google Chrome"]);
      expect(emu.control.books().createCalls).toBe(2);
      const refused = await doList([], "rb_not_the_key").catch((e: Error) => e);
      expect(String(refused)).toMatch(/list sessions failed: the service refused the request \(denied\)/);
      expect(String(refused)).not.toContain("rb_not_the_key");
    } finally {
      await emu.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the runner's refusals around the audit", () => {
  it("refuses --clear-pending-creates on anything but refresh, and a threshold that is no number, with exit code 2", async () => {
    const { projectDir } = inject("e2e");
    const runner = path.join(projectDir, "node_modules", "pulumi-remote-browser", "dist", "runner", "cli.js");
    const start = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [runner, ...args], { cwd: projectDir, env: { ...process.env, REMOTE_BROWSER_API_KEY: "rb_refusal_test_key" } });
        let stderr = "";
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (code) => resolve({ code, stderr }));
      });
    const up = await start(["up", "--clear-pending-creates", "--stack", "s", "--program", "p.js"]);
    expect([up.code, up.stderr]).toEqual([2, "error: --clear-pending-creates belongs to refresh, not up\n"]);
    const audit = await start(["audit", "--orphan-minutes", "soon"]);
    expect([audit.code, audit.stderr]).toEqual([2, 'error: --orphan-minutes takes a number of minutes from 0, got "soon"\n']);
  });
});
