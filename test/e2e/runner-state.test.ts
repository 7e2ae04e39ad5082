import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { startEmulator } from "../../emulator";
import type { Emulator } from "../../emulator";
import { passphraseFolder } from "../../runner/passphrase";
import { runRunner } from "./processes";

/**
 * The runner's own stacks, driven as a user drives it: the installed CLI, its default private backend in
 * the working folder, its own passphrase, and no --project unless a test gives one.
 */
let emulator: Emulator;
let workDir: string;
let env: NodeJS.ProcessEnv;
const KEY_VAR = "PRB_STATE_TEST_KEY";

beforeEach(async () => {
  const { projectDir, pulumiBin } = inject("e2e");
  emulator = await startEmulator({ prepMs: 100 });
  workDir = fs.mkdtempSync(path.join(projectDir, "runner-state-"));
  fs.copyFileSync(path.join(__dirname, "programs", "sessions.js"), path.join(workDir, "sessions.js"));
  env = { ...process.env, PULUMI_REMOTE_BROWSER_PULUMI: pulumiBin, [KEY_VAR]: emulator.apiKey };
  // The runner's own backend and passphrase, as for a user who set none of these.
  for (const name of ["PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE", "PULUMI_HOME", "PULUMI_BACKEND_URL"]) delete env[name];
});
afterEach(async () => {
  await emulator.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

const run = (action: string, ...args: string[]) => runRunner([action, "--stack", "dev", "--work-dir", workDir, ...args], env, workDir);

async function up(...args: string[]) {
  const r = await run(
    "up",
    "--program",
    path.join(workDir, "sessions.js"),
    "--project",
    "review",
    "--config",
    `remote-browser:baseUrl=${emulator.apiBaseUrl}`,
    "--secret-env",
    `remote-browser:apiKey=${KEY_VAR}`,
    ...args,
  );
  expect(r.code, r.stderr).toBe(0);
  expect(emulator.control.books().running).toBe(1);
  return r;
}

/** The stacks of the runner's file backend, as <project>/<stack>. */
function stacks(): string[] {
  const dir = path.join(workDir, ".pulumi-local", "backend", ".pulumi", "stacks");
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.replace(/\.json$/, ""))
    .sort();
}

describe("the runner's stacks", () => {
  // One stack for both: what its passphrase is kept as is read first, the wrong selections leave it alone,
  // then it is put back in the earlier runner's layout, for the right selection's destroy to open.
  it("refresh, destroy, rm and outputs select a stack, never create one: a wrong project or name fails, naming both; it keeps its passphrase out of the working folder, and opens a stack an earlier runner made with it beside the state", async () => {
    await up();
    expect(stacks()).toEqual(["review/dev"]);
    const stateDir = path.join(workDir, ".pulumi-local");
    const folder = passphraseFolder(env);
    const id = fs.readFileSync(path.join(stateDir, "id"), "utf8").trim();
    const kept = path.join(folder, id);
    const passphrase = fs.readFileSync(kept, "utf8");
    expect(passphrase).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.statSync(kept).mode & 0o777).toBe(0o600);
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    expect(fs.statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(path.join(stateDir, ".gitignore"), "utf8")).toMatch(/^\*$/m);
    for (const f of fs.readdirSync(workDir, { recursive: true, encoding: "utf8" })) {
      const p = path.join(workDir, f);
      if (!f.includes("node_modules") && fs.statSync(p).isFile()) expect(fs.readFileSync(p, "latin1").includes(passphrase), f).toBe(false);
    }

    const backend = `file://${path.join(workDir, ".pulumi-local", "backend")}`;
    // Without --project (and without --program) the project is "project"; then a stack that is not there at all.
    for (const [args, project, stack] of [
      [[], "project", "dev"],
      [["--project", "review", "--stack", "nope"], "review", "nope"],
    ] as const) {
      for (const action of ["destroy", "refresh", "rm", "outputs"]) {
        const r = await run(action, ...args);
        expect(r.code, `${action} ${args.join(" ")}: ${r.stdout}`).toBe(1);
        expect(r.stderr).toContain(`${action}: there is no stack "${stack}" of project "${project}" in the backend ${backend}; nothing was changed`);
        expect(r.stderr).toContain("--project");
      }
    }
    expect(stacks(), "no stack was made").toEqual(["review/dev"]);
    expect(emulator.control.books().running, "the session runs on, in its stack").toBe(1);

    // The earlier layout: the passphrase in the state folder, no id, nothing in the user's folder.
    fs.writeFileSync(path.join(stateDir, "passphrase"), passphrase, { mode: 0o600 });
    fs.rmSync(path.join(stateDir, "id"));
    fs.rmSync(kept);
    // The right project: destroyed (the earlier runner's passphrase taken over) and removed.
    const destroyed = await run("destroy", "--project", "review");
    expect(destroyed.code, destroyed.stderr).toBe(0);
    expect(emulator.control.books().neverEnded).toBe(0);
    expect(fs.existsSync(path.join(stateDir, "passphrase")), "moved out of the state folder").toBe(false);
    const movedTo = path.join(folder, fs.readFileSync(path.join(stateDir, "id"), "utf8").trim());
    expect(fs.readFileSync(movedTo, "utf8")).toBe(passphrase);
    expect((await run("rm", "--project", "review")).code).toBe(0);
    expect(stacks()).toEqual([]);
  });
});
