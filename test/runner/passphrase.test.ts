import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engineEnvironment } from "../../runner/environment";
import { PassphraseMissingError, resolvePassphrase } from "../../runner/passphrase";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-passphrase-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

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
      withoutPassphraseVariables(() =>
        expect(() => engineEnvironment({ pulumiBin: "/bin/true", stateDir: dir, workDir: ROOT, backendUrl })).toThrow(PassphraseMissingError),
      );
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

  it("is random for the runner's private file backend, kept 0600 in its 0700 folder, and never the old built-in one", () => {
    const a = path.join(dir, "a", ".pulumi-local");
    const b = path.join(dir, "b", ".pulumi-local");
    const first = resolvePassphrase({ stateDir: a, env: {} })!;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(first).not.toBe(OLD_BUILT_IN);
    expect(resolvePassphrase({ stateDir: a, env: {} })).toBe(first);
    expect(resolvePassphrase({ stateDir: b, env: {} })).not.toBe(first);
    expect(mode(path.join(a, "passphrase"))).toBe(0o600);
    expect(mode(a)).toBe(0o700);
    const env = engineEnvironment({ pulumiBin: "/bin/true", stateDir: a, workDir: ROOT });
    expect(env.PULUMI_CONFIG_PASSPHRASE).toBe(first);
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
    expect(() => resolvePassphrase({ stateDir, env: {} })).toThrow(/older version of the runner.*PULUMI_CONFIG_PASSPHRASE=pulumi-remote-browser-local/);
    expect(resolvePassphrase({ stateDir, env: { PULUMI_CONFIG_PASSPHRASE: OLD_BUILT_IN } })).toBe(OLD_BUILT_IN);
  });
});
