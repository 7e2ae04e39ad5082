import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engineEnvironment } from "../../runner/environment";
import { PassphraseMissingError, passphraseFolder, resolvePassphrase } from "../../runner/passphrase";
import { run } from "../../release/run";

let dir: string;
/** The user's state folder of these tests (XDG_STATE_HOME): never the real one of whoever runs them. */
let stateHome: string;
let savedStateHome: string | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-passphrase-"));
  stateHome = path.join(dir, "user-state");
  savedStateHome = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = stateHome;
});
afterEach(() => {
  if (savedStateHome === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = savedStateHome;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** @pulumi/pulumi resolves from here (the engine's environment puts its plugin folder on PATH). */
const ROOT = path.resolve(__dirname, "..", "..");
const OLD_BUILT_IN = "pulumi-remote-browser-local";
const mode = (p: string) => fs.statSync(p).mode & 0o777;

function withoutPassphraseVariables(fn: () => void): void {
  const saved = { p: process.env.PULUMI_CONFIG_PASSPHRASE, f: process.env.PULUMI_CONFIG_PASSPHRASE_FILE };
  delete process.env.PULUMI_CONFIG_PASSPHRASE;
  delete process.env.PULUMI_CONFIG_PASSPHRASE_FILE;
  try {
    fn();
  } finally {
    if (saved.p !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE = saved.p;
    if (saved.f !== undefined) process.env.PULUMI_CONFIG_PASSPHRASE_FILE = saved.f;
  }
}

describe("the passphrase of a run", () => {
  it.each(["postgres://pulumi@db.example.test/pulumi", "s3://bucket/state", "gs://bucket", "azblob://container", "file:///srv/shared/state"])(
    "is required for the self-managed backend %s, naming both variables",
    (backendUrl) => {
      for (const env of [{}, { PULUMI_CONFIG_PASSPHRASE: "" }, { PULUMI_CONFIG_PASSPHRASE: "", PULUMI_CONFIG_PASSPHRASE_FILE: "" }]) {
        const run = () => resolvePassphrase({ stateDir: dir, backendUrl, env });
        expect(run).toThrow(PassphraseMissingError);
        expect(run).toThrow(/PULUMI_CONFIG_PASSPHRASE .*PULUMI_CONFIG_PASSPHRASE_FILE/);
      }
      // The same refusal reaches whoever builds the engine's environment.
      withoutPassphraseVariables(() => expect(() => engineEnvironment({ pulumiBin: "/bin/true", stateDir: dir, workDir: ROOT, backendUrl })).toThrow(PassphraseMissingError));
    },
  );

  it("is taken from PULUMI_CONFIG_PASSPHRASE, else from PULUMI_CONFIG_PASSPHRASE_FILE (trimmed, as the CLI reads it)", () => {
    const backendUrl = "s3://bucket/state";
    expect(resolvePassphrase({ stateDir: dir, backendUrl, env: { PULUMI_CONFIG_PASSPHRASE: "from-env" } })).toBe("from-env");
    const file = path.join(dir, "pass.txt");
    fs.writeFileSync(file, "  from-file\n");
    // An empty variable left in the environment does not win over the file.
    expect(resolvePassphrase({ stateDir: dir, backendUrl, env: { PULUMI_CONFIG_PASSPHRASE: "", PULUMI_CONFIG_PASSPHRASE_FILE: file } })).toBe("from-file");
    fs.writeFileSync(file, "\n");
    expect(() => resolvePassphrase({ stateDir: dir, backendUrl, env: { PULUMI_CONFIG_PASSPHRASE_FILE: file } })).toThrow(/is empty/);
    expect(() => resolvePassphrase({ stateDir: dir, backendUrl, env: { PULUMI_CONFIG_PASSPHRASE_FILE: path.join(dir, "nope") } })).toThrow(/cannot be read/);
  });

  it("is not needed for Pulumi Cloud, which encrypts with keys of its own", () => {
    expect(resolvePassphrase({ stateDir: dir, backendUrl: "https://api.pulumi.com", env: {} })).toBeUndefined();
  });

  it("is random for the runner's private file backend, kept 0600 in the user's 0700 passphrase folder, never beside the state", () => {
    const a = path.join(dir, "a", ".pulumi-local");
    const b = path.join(dir, "b", ".pulumi-local");
    const env = { XDG_STATE_HOME: stateHome };
    const first = resolvePassphrase({ stateDir: a, env })!;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(first).not.toBe(OLD_BUILT_IN);
    expect(resolvePassphrase({ stateDir: a, env })).toBe(first);
    expect(resolvePassphrase({ stateDir: b, env })).not.toBe(first);
    const folder = passphraseFolder(env);
    expect(folder).toBe(path.join(stateHome, "pulumi-remote-browser", "passphrases"));
    expect(mode(folder)).toBe(0o700);
    const files = fs.readdirSync(folder);
    expect(files).toHaveLength(2);
    for (const f of files) expect(mode(path.join(folder, f))).toBe(0o600);
    expect(files.map((f) => fs.readFileSync(path.join(folder, f), "utf8"))).toContain(first);
    // Nothing in the state folder holds it, and the folder is 0700.
    expect(mode(a)).toBe(0o700);
    for (const f of fs.readdirSync(a, { recursive: true, encoding: "utf8" })) {
      const p = path.join(a, f);
      if (fs.statSync(p).isFile()) expect(fs.readFileSync(p, "utf8"), f).not.toContain(first);
    }
    // A working folder moved elsewhere still finds its passphrase.
    const moved = path.join(dir, "moved", ".pulumi-local");
    fs.mkdirSync(path.dirname(moved));
    fs.renameSync(a, moved);
    expect(resolvePassphrase({ stateDir: moved, env })).toBe(first);
    expect(engineEnvironment({ pulumiBin: "/bin/true", stateDir: moved, workDir: ROOT }).PULUMI_CONFIG_PASSPHRASE).toBe(first);
  });

  it("moves the passphrase an earlier runner kept beside the state into the user's folder, and still opens its stacks", () => {
    const stateDir = path.join(dir, "earlier", ".pulumi-local");
    const stacks = path.join(stateDir, "backend", ".pulumi", "stacks", "organization", "demo");
    fs.mkdirSync(stacks, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(stacks, "dev.json"), "{}");
    const earlier = "ab".repeat(32);
    fs.writeFileSync(path.join(stateDir, "passphrase"), `${earlier}\n`, { mode: 0o600 });
    const env = { XDG_STATE_HOME: stateHome };
    expect(resolvePassphrase({ stateDir, env })).toBe(earlier);
    expect(fs.existsSync(path.join(stateDir, "passphrase")), "no longer beside the state").toBe(false);
    const [moved] = fs.readdirSync(passphraseFolder(env));
    expect(fs.readFileSync(path.join(passphraseFolder(env), moved!), "utf8").trim()).toBe(earlier);
    expect(mode(path.join(passphraseFolder(env), moved!))).toBe(0o600);
    expect(resolvePassphrase({ stateDir, env })).toBe(earlier);
  });

  it("refuses, saying where it looked, stacks whose passphrase is not in the user's folder (another user, machine, or removed)", () => {
    const stateDir = path.join(dir, "lost", ".pulumi-local");
    const env = { XDG_STATE_HOME: stateHome };
    resolvePassphrase({ stateDir, env });
    const stacks = path.join(stateDir, "backend", ".pulumi", "stacks", "organization", "demo");
    fs.mkdirSync(stacks, { recursive: true });
    fs.writeFileSync(path.join(stacks, "dev.json"), "{}");
    const other = { XDG_STATE_HOME: path.join(dir, "another-user") };
    expect(() => resolvePassphrase({ stateDir, env: other })).toThrow(PassphraseMissingError);
    expect(() => resolvePassphrase({ stateDir, env: other })).toThrow(/is not in .*another-user.*set PULUMI_CONFIG_PASSPHRASE/);
    expect(fs.readdirSync(passphraseFolder(other)), "no new passphrase for stacks made with another").toEqual([]);
  });

  it("keeps the state folder out of git: a checkout that holds it commits nothing of it", async () => {
    const work = path.join(dir, "checkout");
    fs.mkdirSync(work);
    await run("git", ["init", "-q"], { cwd: work });
    fs.writeFileSync(path.join(work, "index.js"), "module.exports = () => undefined;\n");
    const stateDir = path.join(work, ".pulumi-local");
    engineEnvironment({ pulumiBin: "/bin/true", stateDir, workDir: ROOT });
    fs.mkdirSync(path.join(stateDir, "backend", ".pulumi", "stacks"), { recursive: true });
    fs.writeFileSync(path.join(stateDir, "backend", ".pulumi", "stacks", "dev.json"), "{}");
    await run("git", ["add", "-A"], { cwd: work });
    expect((await run("git", ["diff", "--cached", "--name-only"], { cwd: work })).trim()).toBe("index.js");
  });

  it("an empty PULUMI_CONFIG_PASSPHRASE does not become the private backend's passphrase either", () => {
    const saved = process.env.PULUMI_CONFIG_PASSPHRASE;
    process.env.PULUMI_CONFIG_PASSPHRASE = "";
    try {
      const env = engineEnvironment({ pulumiBin: "/bin/true", stateDir: path.join(dir, "s"), workDir: ROOT });
      expect(env.PULUMI_CONFIG_PASSPHRASE).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      if (saved === undefined) delete process.env.PULUMI_CONFIG_PASSPHRASE;
      else process.env.PULUMI_CONFIG_PASSPHRASE = saved;
    }
  });

  it("refuses, with the way out, a private backend whose stacks an older runner encrypted with its built-in passphrase", () => {
    const stateDir = path.join(dir, "old");
    const stacks = path.join(stateDir, "backend", ".pulumi", "stacks", "organization", "demo");
    fs.mkdirSync(stacks, { recursive: true });
    fs.writeFileSync(path.join(stacks, "dev.json"), "{}");
    const env = { XDG_STATE_HOME: stateHome };
    expect(() => resolvePassphrase({ stateDir, env })).toThrow(/older version of the runner.*PULUMI_CONFIG_PASSPHRASE=pulumi-remote-browser-local/);
    expect(resolvePassphrase({ stateDir, env: { ...env, PULUMI_CONFIG_PASSPHRASE: OLD_BUILT_IN } })).toBe(OLD_BUILT_IN);
  });
});
