import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { accountBooks, newAccount } from "../e2e/plain-cli";
import type { PulumiCli } from "../e2e/plain-cli";
import { RELEASE_VERSION } from "../e2e/release-build";
import { acquireFrom, hostsBed, releaseProgramLifecycle, stack } from "./hosts";

/**
 * A Go program with `pulumi` under Pulumi's Go language host (pulumi-language-go), as a user runs it: on the
 * release's Go module, required by its import path (replaced by the release's folder, as the module proxy
 * would serve the tag), the plugin downloaded by the engine from the module's pluginDownloadURL.
 */
const IMPORT_PATH = "github.com/remote-browser/pulumi-remote-browser/sdk/go/remotebrowser";
const bed = hostsBed("go", ["go"]);
const text = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`;

/** A copy of `programs/<name>` on the release's Go module, with a stack of its own. */
async function goProgram(name: string) {
  const dir = path.join(bed.base, name);
  fs.cpSync(path.join(__dirname, "programs", name), dir, { recursive: true });
  const module = path.join(inject("hosts").sdks, "go", "remotebrowser");
  // Required at no version of its own: Go refuses v9.9.9-e2e for a module path without a /v9 suffix (the
  // release's module path has none, which Go accepts up to v1). The engine takes the plugin's version from
  // the module's pulumi-plugin.json, not from go.mod.
  fs.writeFileSync(path.join(dir, "go.mod"), `module example.test/hosts\n\ngo 1.24\n\nrequire ${IMPORT_PATH} v0.0.0-00010101000000-000000000000\n\nreplace ${IMPORT_PATH} => ${module}\n`);
  expect(JSON.parse(fs.readFileSync(path.join(module, "pulumi-plugin.json"), "utf8")).version).toBe(RELEASE_VERSION);
  fs.copyFileSync(path.join(module, "go.sum"), path.join(dir, "go.sum"));
  const { cli, account } = await stack(bed.pulumiBin, dir, path.join(bed.base, `${name}-state`), bed.emulator);
  // The module's go.sum has the SDK's modules; the program's own requirements are resolved at its first build.
  Object.assign(cli.env, { GOFLAGS: "-mod=mod", GOSUMDB: "off" });
  acquireFrom(cli, `${bed.server.url}go/`);
  return { cli, account };
}

it("a program on the release's Go module: BrowserSession, ReviewSessions and getImages through up, preview and refresh without changes, destroy; the plugin acquired by the engine", async () => {
  const { cli, account } = await goProgram("go");
  await releaseProgramLifecycle(cli, bed, account, "go");
});

describe("one session from Go on a running limit of 1, beyond up and destroy", () => {
  let cli: PulumiCli;
  let account: { apiKey: string; accountId: string };
  const recorded = async () => (await cli.resources()).find((r) => r.type === "remote-browser:index:BrowserSession")!;
  const statusOf = (vmId: string) => bed.emulator.control.sessions().find((s) => s.vmId === vmId)!.status;

  it("a session the service ended: a plain up reads it first (refresh_before_update) and starts a running one in its place", async () => {
    ({ cli } = await goProgram("go-lifecycle"));
    // The stack's key is swapped for an account of its own whose running limit is 1.
    account = newAccount(bed.emulator, { runningLimit: 1 });
    await cli.clean(["config", "set", "--secret", "remote-browser:apiKey"], account.apiKey);
    await cli.clean(["up", "--yes"]);
    const first = (await recorded()).id as string;
    expect(statusOf(first)).toBe("running");
    bed.emulator.control.endSession(first);
    await cli.clean(["up", "--yes"]);
    const second = (await recorded()).id as string;
    expect(second).not.toBe(first);
    expect(statusOf(second)).toBe("running");
    expect(accountBooks(bed.emulator, account.accountId)).toMatchObject({ started: 2, running: 1 });
  });

  it("pulumi up --replace, no --refresh and no deleteBeforeReplace: a new running session in the stack, the old one ended", async () => {
    const before = await recorded();
    try {
      // The engine asks the provider no diff for --replace, but reads the session first (refresh_before_update),
      // which shows the provider the session being replaced: on the limit of 1 it is ended first, saying so.
      expect(before.refreshBeforeUpdate).toBe(true);
      const replace = await cli.ok(["up", "--yes", "--replace", before.urn]);
      expect(text(replace)).toContain(`leaves no room for the replacement beside session ${before.id}, so that session was ended first`);
      expect(text(replace)).not.toContain("was not replaced");
      const after = (await recorded()).id as string;
      expect(after).not.toBe(before.id);
      expect(statusOf(after)).toBe("running");
      expect(statusOf(before.id)).not.toMatch(/starting|running/);
      await cli.clean(["destroy", "--yes"]);
      expect(accountBooks(bed.emulator, account.accountId)).toMatchObject({ running: 0, neverEnded: 0 });
    } finally {
      if (accountBooks(bed.emulator, account.accountId).neverEnded > 0) await cli.run(["destroy", "--yes"]);
    }
  });
});
