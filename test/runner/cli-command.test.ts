import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PulumiCommand } from "@pulumi/pulumi/automation";
import { automationCommand } from "../../engine-conventions/sdkInternals";
import { pulumiCommandFor } from "../../runner/cli-command";

/**
 * The runner asks a CLI binary its version once and keeps it (runner/cli-command.ts): each workspace the
 * Automation API makes would otherwise start `pulumi version` again.
 */
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function fakeCli(version: string): { bin: string; binDir: string; stateDir: string; calls: () => number } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "prb-cli-command-"));
  dirs.push(root);
  const binDir = path.join(root, "bin");
  fs.mkdirSync(binDir);
  const log = path.join(root, "calls");
  const bin = path.join(binDir, "pulumi");
  fs.writeFileSync(bin, `#!/bin/sh\necho "$@" >> '${log}'\necho v${version}\n`, { mode: 0o755 });
  return { bin, binDir, stateDir: path.join(root, "state"), calls: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").length : 0) };
}

describe("the CLI the runner's workspaces drive", () => {
  it("is asked its version once, and the answer kept for the next runs", async () => {
    const cli = fakeCli("3.248.0");
    fs.mkdirSync(cli.stateDir);
    const env = { PATH: `${cli.binDir}${path.delimiter}${process.env.PATH}` };
    const first = await pulumiCommandFor(cli.stateDir, env);
    const second = await pulumiCommandFor(cli.stateDir, env);
    expect(cli.calls()).toBe(1);
    for (const c of [first, second]) {
      expect(c.command).toBe("pulumi");
      expect(String(c.version)).toBe("3.248.0");
    }
  });

  it("is asked again when the binary at that path changed", async () => {
    const cli = fakeCli("3.248.0");
    fs.mkdirSync(cli.stateDir);
    const env = { PATH: `${cli.binDir}${path.delimiter}${process.env.PATH}` };
    await pulumiCommandFor(cli.stateDir, env);
    fs.writeFileSync(cli.bin, fs.readFileSync(cli.bin, "utf8").replace("3.248.0", "3.250.10"));
    const after = await pulumiCommandFor(cli.stateDir, env);
    expect(String(after.version)).toBe("3.250.10");
    expect(cli.calls()).toBe(2);
  });

  it("is built as the SDK builds its own: a version the workspace can compare", () => {
    const c = automationCommand(PulumiCommand, "pulumi", "3.248.0")!;
    expect(c).toBeDefined();
    expect((c.version as unknown as { compare(v: string): number }).compare("3.95.0")).toBe(1);
  });
});

describe("a stack the CLI says is missing", () => {
  it("is the stack named, plain or qualified, and no other", async () => {
    const { isMissingStack } = await import("../../runner");
    expect(isMissingStack(new Error("error: no stack named 'pr-7' found"), "pr-7")).toBe(true);
    expect(isMissingStack(new Error("error: no stack named 'organization/review/pr-7' found"), "pr-7")).toBe(true);
    expect(isMissingStack(new Error("error: no stack named 'pr-7' found"), "organization/review/pr-7")).toBe(true);
    // A stack reference of the program that names another stack is not this one.
    expect(isMissingStack(new Error("error: no stack named 'pr-70' found"), "pr-7")).toBe(false);
    expect(isMissingStack(new Error("error: stack 'pr-7' is locked"), "pr-7")).toBe(false);
  });
});
