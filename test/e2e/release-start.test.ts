import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { JobRun, World, loadWorkflow } from "../helpers/workflow-runner";
import { RELEASE_VERSION, linuxRelease } from "./release-build";

/**
 * The release workflow's `start` job, its `run:` step executed as the runner runs it (test/helpers/
 * workflow-runner.ts) on this machine's platform: the real linux-amd64 executable of the current sources,
 * started and asked for GetPluginInfo and GetSchema by dist/release/pluginCheck.js, as each platform's
 * runner does with its own before anything is published.
 */
const flow = loadWorkflow("release.yml");
const STEP = "Start the plugin and ask it for GetPluginInfo and GetSchema";
const ARCHIVE = `pulumi-resource-remote-browser-v${RELEASE_VERSION}-linux-amd64.tar.gz`;
let release: string;
let work: string;
beforeAll(async () => {
  release = await linuxRelease(inject("e2e").pulumiBin);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-release-start-"));
}, 600_000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

let runs = 0;
/** The job of the linux-amd64 cell for a push of `tag`, its workspace holding the release's archive. */
function startJob(tag: string): JobRun {
  const dir = path.join(work, `run-${++runs}`);
  const run = new JobRun(
    flow,
    "start",
    {
      github: { repository: "remote-browser/pulumi-remote-browser", ref: `refs/tags/${tag}`, ref_name: tag },
      needs: { build: { outputs: { version: tag.slice(1), prerelease: "false" } } },
      matrix: { platform: "linux-amd64", runner: "ubuntu-latest" },
    },
    new World(path.join(dir, "world"), {}),
    dir,
  );
  fs.mkdirSync(path.join(run.workspace, "dist-release"));
  return run;
}
const put = (run: JobRun, name: string, bytes: Buffer | string) => fs.writeFileSync(path.join(run.workspace, "dist-release", name), bytes);

describe("the release workflow's start of the linux-amd64 plugin", () => {
  it("starts the released executable and gets its version and schema", async () => {
    const run = startJob(`v${RELEASE_VERSION}`);
    put(run, ARCHIVE, fs.readFileSync(path.join(release, ARCHIVE)));
    put(run, "checksums.txt", fs.readFileSync(path.join(release, "checksums.txt")));
    const r = await run.step(STEP);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(
      new RegExp(
        `${ARCHIVE.replace(/\./g, "\\.")}: started, port printed in \\d+ ms; GetPluginInfo: version ${RELEASE_VERSION.replace(/\./g, "\\.")}; GetSchema: package remote-browser, \\d+ resources`,
      ),
    );
    expect(run.world.commandLines("npm")).toEqual(["npm ci --no-audit --no-fund", "npm run build"]);
  }, 120_000);

  it("fails when the plugin answers another version than the tag's", async () => {
    const run = startJob("v1.2.3");
    const renamed = "pulumi-resource-remote-browser-v1.2.3-linux-amd64.tar.gz";
    const bytes = fs.readFileSync(path.join(release, ARCHIVE));
    put(run, renamed, bytes);
    const sum = fs
      .readFileSync(path.join(release, "checksums.txt"), "utf8")
      .split("\n")
      .find((l) => l.endsWith(ARCHIVE))!
      .slice(0, 64);
    put(run, "checksums.txt", `${sum}  ${renamed}\n`);
    const r = await run.step(STEP);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain(`::error::GetPluginInfo answered version "${RELEASE_VERSION}", not 1.2.3`);
  }, 120_000);

  it("starts nothing when the archive is not the one checksums.txt names", async () => {
    const run = startJob(`v${RELEASE_VERSION}`);
    put(run, ARCHIVE, fs.readFileSync(path.join(release, ARCHIVE)));
    put(run, "checksums.txt", `${"0".repeat(64)}  ${ARCHIVE}\n`);
    const r = await run.step(STEP);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(new RegExp(`::error::${ARCHIVE.replace(/\./g, "\\.")} has SHA-256 [0-9a-f]{64}, but checksums.txt says 0{64}`));
  }, 120_000);
});
