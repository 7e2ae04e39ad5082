import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCommand } from "../release/run";
import { PLATFORMS, platformId } from "../release/platforms";
import { actionlint } from "./helpers/actionlint";

import type { Contexts } from "./helpers/github-expressions";
import { JobRun, World, loadWorkflow, runSteps } from "./helpers/workflow-runner";

/**
 * The release workflow, read as GitHub reads it, its `run:` steps run as the runner runs them
 * (test/helpers/workflow-runner.ts) against stand-ins for `npm`, `gh` and `sudo`, and real git for the Go
 * module's tag. Every `run:` step is run by some test here (the last test checks that); actionlint checks
 * the workflows as a whole.
 */
const flow = loadWorkflow("release.yml");
const REPOSITORY = "remote-browser/pulumi-remote-browser";
const root = path.resolve(__dirname, "..");

let work: string;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-release-workflow-"));
});
afterAll(() => fs.promises.rm(work, { recursive: true, force: true }));

/** The contexts of a push of `tag`; `build` is what the build job answered. */
function pushed(tag: string, build: { version?: string; prerelease?: string } = {}, secrets: Record<string, string> = {}): Contexts {
  return {
    github: { repository: REPOSITORY, ref: `refs/tags/${tag}`, ref_name: tag, event_name: "push", token: "ghs_job_token_release" },
    secrets: { NPM_TOKEN: "npm_token_4f1e", ...secrets },
    needs: { build: { outputs: { version: build.version ?? tag.replace(/^v/, ""), prerelease: build.prerelease ?? "false" } } },
  };
}

let runs = 0;
function jobRun(jobId: string, ctx: Contexts, setup: { releases?: string[]; npmPublished?: string[] } = {}): JobRun {
  const dir = path.join(work, `run-${++runs}`);
  const run = new JobRun(flow, jobId, ctx, new World(path.join(dir, "world"), {}), dir);
  if (setup.releases) fs.writeFileSync(path.join(run.world.dir, "releases"), setup.releases.map((r) => `${r}\n`).join(""));
  if (setup.npmPublished) fs.writeFileSync(path.join(run.world.dir, "npm-published"), setup.npmPublished.map((r) => `${r}\n`).join(""));
  return run;
}

const sh = (cwd: string, cmd: string) => runCommand("bash", ["-ec", cmd], { cwd });

/** What download-artifact leaves of a release of `version` (the layout `npm run release` writes), beside the checkout's publish script. */
async function release(workspace: string, version: string): Promise<string> {
  const out = path.join(workspace, "dist-release");
  fs.mkdirSync(out, { recursive: true });
  // The publishing jobs check the repository out: their steps run its scripts/publish.sh.
  fs.mkdirSync(path.join(workspace, "scripts"), { recursive: true });
  fs.copyFileSync(path.join(root, "scripts", "publish.sh"), path.join(workspace, "scripts", "publish.sh"));
  for (const platform of ["linux-amd64", "darwin-arm64"]) fs.writeFileSync(path.join(out, `pulumi-resource-remote-browser-v${version}-${platform}.tar.gz`), platform);
  await sh(out, "sha256sum ./*.tar.gz | sed 's# \\./# #' > checksums.txt");
  const npmTarball = async (name: string, file: string) => {
    const stage = fs.mkdtempSync(path.join(work, "npm-"));
    fs.mkdirSync(path.join(stage, "package"));
    fs.writeFileSync(path.join(stage, "package", "package.json"), JSON.stringify({ name, version }));
    await sh(stage, `tar -czf ${JSON.stringify(file)} package`);
  };
  await npmTarball("pulumi-remote-browser", path.join(out, `pulumi-remote-browser-${version}.tgz`));
  fs.mkdirSync(path.join(out, "nodejs"));
  await npmTarball("@remote-browser/pulumi", path.join(out, "nodejs", `remote-browser-pulumi-${version}.tgz`));
  fs.mkdirSync(path.join(out, "python"));
  for (const f of [`pulumi_remote_browser-${version}-py3-none-any.whl`, `pulumi_remote_browser-${version}.tar.gz`]) fs.writeFileSync(path.join(out, "python", f), f);
  fs.mkdirSync(path.join(out, "go", "remotebrowser"), { recursive: true });
  fs.writeFileSync(path.join(out, "go", "remotebrowser", "go.mod"), `module github.com/${REPOSITORY}/sdk/go/remotebrowser\n\ngo 1.24\n`);
  fs.writeFileSync(path.join(out, "go", "remotebrowser", "browserSession.go"), "package remotebrowser\n");
  return out;
}

describe("the build job", () => {
  it.each([
    ["v1.2.3", "1.2.3", "false"],
    ["v0.4.0-rc.1", "0.4.0-rc.1", "true"],
    ["v1.0.0+build.5", "1.0.0+build.5", "false"],
  ])("reads the version of tag %s", async (tag, version, prerelease) => {
    const r = await jobRun("build", pushed(tag)).step("Read the version from the tag");
    expect(r.code, r.out).toBe(0);
    expect(r.outputs).toEqual({ version, prerelease });
  });

  it.each(["v1.2", "1.2.3", "v01.2.3", "vnext", "v1.2.3-"])("refuses tag %s, saying what a tag must be", async (tag) => {
    const r = await jobRun("build", pushed(tag)).step("Read the version from the tag");
    expect(r.code).not.toBe(0);
    expect(r.out).toContain(`::error::the tag ${tag} is not v<semantic version>`);
    expect(r.outputs).toEqual({});
  });

  it("refuses version 2 and later until the Go module path has its /v<major> suffix", async () => {
    const r = await jobRun("build", pushed("v2.0.0")).step("Read the version from the tag");
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/the Go module path needs a \/v2 suffix/);
  });

  it("installs the system packages the tests need, runs the tests, then the same release command a maintainer runs, and checks its checksums", async () => {
    const run = jobRun("build", pushed("v1.2.3"));
    const results = await run.all();
    expect(results.filter((r) => r.ran && r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(run.world.commandLines("sudo")).toEqual(["sudo apt-get update -q", "sudo apt-get install -y -q --no-install-recommends postgresql maven default-jdk-headless python3-venv osslsigncode"]);
    expect(run.world.commandLines("npm")).toEqual(["npm ci --no-audit --no-fund", "npm test", "npm run release -- --version 1.2.3 --out dist-release"]);
    const build = results.find((r) => r.step.name === "Build the release")!;
    expect(build.out).toContain("pulumi-resource-remote-browser-v1.2.3-linux-amd64.tar.gz: OK");
    // The tests run before anything is built; the artifact is what the command wrote.
    const upload = results.find((r) => r.step.uses?.startsWith("actions/upload-artifact"))!;
    expect(upload.step.with).toMatchObject({ path: "dist-release", "if-no-files-found": "error" });
  });

  it("builds nothing when the tests fail", async () => {
    const run = jobRun("build", pushed("v1.2.3"));
    fs.writeFileSync(path.join(run.world.dir, "npm-test.error"), "1 failed");
    const results = await run.all();
    expect(results.find((r) => r.step.name === "Run the tests")!.code).not.toBe(0);
    expect(results.filter((r) => r.ran).map((r) => r.step.name ?? r.step.uses)).not.toContain("Build the release");
    expect(results.find((r) => r.step.uses?.startsWith("actions/upload-artifact"))!.ran).toBe(false);
    expect(run.world.commandLines("npm").some((l) => l.startsWith("npm run release"))).toBe(false);
  });
});

describe("the start of each platform's plugin on its own runner", () => {
  it("covers every platform the release builds, on a runner of that platform, before anything is published", () => {
    const job = flow.jobs.start! as unknown as { needs: string; "runs-on": string; strategy: { "fail-fast": boolean; matrix: { include: Array<{ platform: string; runner: string }> } } };
    expect(job.needs).toBe("build");
    expect(job["runs-on"]).toBe("${{ matrix.runner }}");
    expect(job.strategy["fail-fast"]).toBe(false);
    const cells = job.strategy.matrix.include;
    expect(cells.map((c) => c.platform).sort()).toEqual(PLATFORMS.map(platformId).sort());
    const runner = Object.fromEntries(cells.map((c) => [c.platform, c.runner]));
    // GitHub's hosted images: macos-14 is Apple silicon, macos-15-intel x86_64, ubuntu-24.04-arm arm64.
    expect(runner).toEqual({
      "linux-amd64": "ubuntu-latest",
      "linux-arm64": "ubuntu-24.04-arm",
      "darwin-arm64": "macos-14",
      "darwin-amd64": "macos-15-intel",
      "windows-amd64": "windows-latest",
    });
    for (const publisher of ["github-release", "npm", "pypi", "go"]) {
      expect((flow.jobs[publisher] as unknown as { needs: string[] }).needs, publisher).toContain("start");
    }
  });

  it("fails, naming the platform, when the release has no archive of it", async () => {
    const run = jobRun("start", { ...pushed("v1.2.3"), matrix: { platform: "darwin-amd64", runner: "macos-15-intel" } });
    await release(run.workspace, "1.2.3");
    const r = await run.step("Start the plugin and ask it for GetPluginInfo and GetSchema");
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("::error::the release has no darwin-amd64 archive of 1.2.3: nothing to start");
    expect(run.world.calls()).toEqual([]);
  });
});

describe("the GitHub release", () => {
  it("creates the tag's release and uploads every archive of the version with checksums.txt", async () => {
    const run = jobRun("github-release", pushed("v1.2.3"));
    const out = await release(run.workspace, "1.2.3");
    const r = await run.step(/^Upload the plugin archives/);
    expect(r.code, r.out).toBe(0);
    expect(run.world.commandLines("gh")).toEqual([
      `gh release view v1.2.3 --repo ${REPOSITORY} --json tagName`,
      `gh release create v1.2.3 --repo ${REPOSITORY} --verify-tag --title v1.2.3 --generate-notes`,
      `gh release view v1.2.3 --repo ${REPOSITORY} --json assets --jq .assets[].name`,
      `gh release upload v1.2.3 --repo ${REPOSITORY} ${["darwin-arm64", "linux-amd64"].map((p) => `dist-release/pulumi-resource-remote-browser-v1.2.3-${p}.tar.gz`).join(" ")} dist-release/checksums.txt`,
    ]);
    expect(fs.readdirSync(path.join(run.world.dir, "assets", "v1.2.3")).sort()).toEqual([
      "checksums.txt",
      "pulumi-resource-remote-browser-v1.2.3-darwin-arm64.tar.gz",
      "pulumi-resource-remote-browser-v1.2.3-linux-amd64.tar.gz",
    ]);
    expect(r.env.GH_TOKEN).toBe("ghs_job_token_release");
    expect(fs.existsSync(out)).toBe(true);
  });

  it("marks a prerelease, and a re-run uploads into the release it made", async () => {
    const first = jobRun("github-release", pushed("v0.4.0-rc.1", { prerelease: "true" }), { releases: ["v0.4.0-rc.1"] });
    await release(first.workspace, "0.4.0-rc.1");
    expect((await first.step(/^Upload the plugin archives/)).code).toBe(0);
    expect(first.world.commandLines("gh").map((l) => l.split(" ").slice(0, 3).join(" "))).toEqual(["gh release view", "gh release view", "gh release upload"]);
    const fresh = jobRun("github-release", pushed("v0.4.0-rc.1", { prerelease: "true" }));
    await release(fresh.workspace, "0.4.0-rc.1");
    expect((await fresh.step(/^Upload the plugin archives/)).code).toBe(0);
    expect(fresh.world.commandLines("gh")[1]).toMatch(/ --prerelease$/);
  });

  /** A published release of 1.2.3 holding `assets` (name → bytes). */
  function published(run: JobRun, assets: Record<string, string | Buffer>): void {
    fs.mkdirSync(path.join(run.world.dir, "assets", "v1.2.3"), { recursive: true });
    for (const [name, bytes] of Object.entries(assets)) fs.writeFileSync(path.join(run.world.dir, "assets", "v1.2.3", name), bytes);
  }
  const LINUX = "pulumi-resource-remote-browser-v1.2.3-linux-amd64.tar.gz";
  const DARWIN = "pulumi-resource-remote-browser-v1.2.3-darwin-arm64.tar.gz";

  it("a re-run leaves the assets published with the same bytes and uploads only the missing ones", async () => {
    const run = jobRun("github-release", pushed("v1.2.3"), { releases: ["v1.2.3"] });
    const out = await release(run.workspace, "1.2.3");
    published(run, { [LINUX]: fs.readFileSync(path.join(out, LINUX)) });
    const r = await run.step(/^Upload the plugin archives/);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`${LINUX} is published already, with the same bytes`);
    const gh = run.world.commandLines("gh");
    expect(gh.filter((l) => l.startsWith("gh release download"))).toEqual([expect.stringContaining(`--pattern ${LINUX} --dir `)]);
    expect(gh.filter((l) => l.startsWith("gh release upload"))).toEqual([`gh release upload v1.2.3 --repo ${REPOSITORY} dist-release/${DARWIN} dist-release/checksums.txt`]);
    expect(gh.join("\n")).not.toContain("--clobber");
  });

  it("refuses to replace a published asset whose bytes differ, uploading nothing", async () => {
    const run = jobRun("github-release", pushed("v1.2.3"), { releases: ["v1.2.3"] });
    await release(run.workspace, "1.2.3");
    published(run, { [DARWIN]: "what users downloaded yesterday" });
    const r = await run.step(/^Upload the plugin archives/);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain(`::error::v1.2.3 already has an asset ${DARWIN} whose bytes differ from this build's: not replacing a published asset`);
    expect(run.world.commandLines("gh").filter((l) => l.startsWith("gh release upload"))).toEqual([]);
    expect(fs.readFileSync(path.join(run.world.dir, "assets", "v1.2.3", DARWIN), "utf8")).toBe("what users downloaded yesterday");
    expect(fs.readdirSync(path.join(run.world.dir, "assets", "v1.2.3"))).toEqual([DARWIN]);
  });

  it("uploads nothing when an archive does not match checksums.txt", async () => {
    const run = jobRun("github-release", pushed("v1.2.3"));
    const out = await release(run.workspace, "1.2.3");
    fs.appendFileSync(path.join(out, "pulumi-resource-remote-browser-v1.2.3-linux-amd64.tar.gz"), "tampered");
    const r = await run.step(/^Upload the plugin archives/);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/FAILED/);
    expect(run.world.commandLines("gh")).toEqual([]);
  });

  it("uploads nothing when the release holds no archive of the tag's version", async () => {
    const run = jobRun("github-release", pushed("v1.2.4"));
    await release(run.workspace, "1.2.3");
    const r = await run.step(/^Upload the plugin archives/);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("::error::the release has no plugin archives of 1.2.4");
    expect(run.world.commandLines("gh")).toEqual([]);
  });
});

describe("npm", () => {
  const publish = "Publish the npm packages with provenance";

  it("publishes both packages with provenance, the token in the environment only", async () => {
    const run = jobRun("npm", pushed("v1.2.3"));
    await release(run.workspace, "1.2.3");
    const r = await run.step(publish);
    expect(r.code, r.out).toBe(0);
    expect(run.world.commandLines("npm")).toEqual([
      "npm view @remote-browser/pulumi@1.2.3 version",
      "npm publish --provenance --access public --tag latest dist-release/nodejs/remote-browser-pulumi-1.2.3.tgz",
      "npm view pulumi-remote-browser@1.2.3 version",
      "npm publish --provenance --access public --tag latest dist-release/pulumi-remote-browser-1.2.3.tgz",
    ]);
    expect(r.env.NODE_AUTH_TOKEN).toBe("npm_token_4f1e");
    expect(JSON.stringify(run.world.calls())).not.toContain("npm_token_4f1e");
    expect(flow.jobs.npm!).toMatchObject({ permissions: { "id-token": "write" } });
  });

  it("publishes a prerelease under the dist-tag next, and a re-run skips what is published", async () => {
    const run = jobRun("npm", pushed("v0.4.0-rc.1", { prerelease: "true" }), { npmPublished: ["pulumi-remote-browser@0.4.0-rc.1"] });
    await release(run.workspace, "0.4.0-rc.1");
    const r = await run.step(publish);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("pulumi-remote-browser@0.4.0-rc.1 is published already");
    expect(run.world.commandLines("npm").filter((l) => l.startsWith("npm publish"))).toEqual([
      "npm publish --provenance --access public --tag next dist-release/nodejs/remote-browser-pulumi-0.4.0-rc.1.tgz",
    ]);
  });

  it("publishes nothing when a tarball is missing", async () => {
    const run = jobRun("npm", pushed("v1.2.3"));
    const out = await release(run.workspace, "1.2.3");
    fs.rmSync(path.join(out, "nodejs"), { recursive: true });
    const r = await run.step(publish);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("::error::expected the two npm tarballs of 1.2.3");
    expect(run.world.commandLines("npm")).toEqual([]);
  });
});

describe("PyPI", () => {
  it("hands exactly the wheel and the sdist to trusted publishing (an OIDC identity, no token)", async () => {
    const run = jobRun("pypi", pushed("v1.2.3"));
    await release(run.workspace, "1.2.3");
    const r = await run.step("Collect the Python wheel and sdist");
    expect(r.code, r.out).toBe(0);
    expect(fs.readdirSync(path.join(run.workspace, "pypi")).sort()).toEqual(["pulumi_remote_browser-1.2.3-py3-none-any.whl", "pulumi_remote_browser-1.2.3.tar.gz"]);
    const job = flow.jobs.pypi!;
    expect(job).toMatchObject({ environment: "pypi", permissions: { "id-token": "write" } });
    const action = job.steps.find((s) => s.uses?.startsWith("pypa/gh-action-pypi-publish"))!;
    expect(action.with).toEqual({ "packages-dir": "pypi/", "skip-existing": true });
  });

  it("refuses a release without its wheel", async () => {
    const run = jobRun("pypi", pushed("v1.2.3"));
    const out = await release(run.workspace, "1.2.3");
    fs.rmSync(path.join(out, "python", "pulumi_remote_browser-1.2.3-py3-none-any.whl"));
    const r = await run.step("Collect the Python wheel and sdist");
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("::error::expected one wheel and one sdist");
  });
});

describe("the Go module's tag", () => {
  /** A checkout of the release's commit, with an origin to push to. */
  async function checkout(run: JobRun): Promise<string> {
    const origin = path.join(run.temp, "..", "origin.git");
    const git = (cwd: string, ...args: string[]) => runCommand("git", args, { cwd });
    await git(path.dirname(origin), "init", "--quiet", "--bare", origin);
    await git(run.workspace, "init", "--quiet");
    fs.mkdirSync(path.join(run.workspace, "sdk"));
    fs.writeFileSync(path.join(run.workspace, "sdk", "index.ts"), "export {};\n");
    fs.writeFileSync(path.join(run.workspace, ".gitignore"), "dist-release/\n");
    await git(run.workspace, "add", ".");
    await git(run.workspace, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "--quiet", "-m", "release");
    await git(run.workspace, "tag", "v1.2.3");
    await git(run.workspace, "remote", "add", "origin", origin);
    return origin;
  }

  it("pushes sdk/go/remotebrowser/v<version> on a commit holding the module at sdk/go/remotebrowser; a re-run leaves it", async () => {
    const run = jobRun("go", pushed("v1.2.3"));
    const origin = await checkout(run);
    await release(run.workspace, "1.2.3");
    const r = await run.step("Tag the Go module");
    expect(r.code, r.out).toBe(0);
    const tree = await runCommand("git", ["ls-tree", "-r", "--name-only", "sdk/go/remotebrowser/v1.2.3"], { cwd: origin });
    expect(tree.split("\n").filter(Boolean).sort()).toEqual([".gitignore", "sdk/go/remotebrowser/browserSession.go", "sdk/go/remotebrowser/go.mod", "sdk/index.ts"]);
    const mod = await runCommand("git", ["show", "sdk/go/remotebrowser/v1.2.3:sdk/go/remotebrowser/go.mod"], { cwd: origin });
    expect(mod).toMatch(/^module github\.com\/remote-browser\/pulumi-remote-browser\/sdk\/go\/remotebrowser$/m);
    // Its parent is the release's commit.
    const parent = await runCommand("git", ["rev-parse", "sdk/go/remotebrowser/v1.2.3^{commit}^"], { cwd: run.workspace });
    expect(parent).toBe(await runCommand("git", ["rev-parse", "v1.2.3^{commit}"], { cwd: run.workspace }));
    const again = await run.step("Tag the Go module");
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain("sdk/go/remotebrowser/v1.2.3 exists already");
  });

  it("refuses a module whose path is not this repository's", async () => {
    const run = jobRun("go", { ...pushed("v1.2.3"), github: { ...(pushed("v1.2.3").github as object), repository: "someone/fork" } });
    await checkout(run);
    await release(run.workspace, "1.2.3");
    const r = await run.step("Tag the Go module");
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("this repository serves github.com/someone/fork/sdk/go/remotebrowser");
  });
});

describe("the review-sessions workflows' major tag", () => {
  /** A checkout of the release's commit holding the two reusable workflows at `installs`, with an origin. */
  async function checkout(run: JobRun, installs: string): Promise<string> {
    const origin = path.join(run.temp, "..", "origin.git");
    const git = (cwd: string, ...args: string[]) => runCommand("git", args, { cwd });
    await git(path.dirname(origin), "init", "--quiet", "--bare", origin);
    await git(run.workspace, "init", "--quiet");
    fs.mkdirSync(path.join(run.workspace, ".github", "workflows"), { recursive: true });
    for (const file of ["review-sessions.yml", "review-sessions-sweep.yml"]) {
      const text = fs.readFileSync(path.join(__dirname, "..", ".github", "workflows", file), "utf8");
      fs.writeFileSync(path.join(run.workspace, ".github", "workflows", file), text.replace(/^ {2}PROVIDER_VERSION: .*$/m, `  PROVIDER_VERSION: ${installs}`));
    }
    await git(run.workspace, "add", ".");
    await git(run.workspace, "-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "--quiet", "-m", "release");
    await git(run.workspace, "tag", "v1.2.3");
    await git(run.workspace, "remote", "add", "origin", origin);
    return origin;
  }
  const tagOf = (origin: string, tag: string) => runCommand("git", ["rev-parse", "--verify", "--quiet", `refs/tags/${tag}^{commit}`], { cwd: origin }).catch(() => "");

  it("moves v<major> to the release once its npm package is published, again on the next release", async () => {
    expect((flow.jobs.workflows as unknown as { needs: string[] }).needs).toEqual(["build", "start", "npm"]);
    const run = jobRun("workflows", pushed("v1.2.3"));
    const origin = await checkout(run, "1.2.3");
    const r = await run.step("Move the review-sessions workflows' major tag");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("v1 now points at v1.2.3.");
    const release = await runCommand("git", ["rev-parse", "v1.2.3^{commit}"], { cwd: run.workspace });
    expect(await tagOf(origin, "v1")).toBe(release);
    // The next release moves it on.
    await runCommand("git", ["-c", "user.name=t", "-c", "user.email=t@example.test", "commit", "--quiet", "--allow-empty", "-m", "next"], { cwd: run.workspace });
    await runCommand("git", ["tag", "--force", "v1.2.3"], { cwd: run.workspace });
    expect((await run.step("Move the review-sessions workflows' major tag")).code).toBe(0);
    expect(await tagOf(origin, "v1")).toBe(await runCommand("git", ["rev-parse", "HEAD"], { cwd: run.workspace }));
  });

  it("moves nothing for a prerelease, and refuses workflows that install another version", async () => {
    const pre = jobRun("workflows", pushed("v1.3.0-rc.1", { prerelease: "true" }));
    const origin = await checkout(pre, "1.3.0-rc.1");
    const r = await pre.step("Move the review-sessions workflows' major tag");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("A prerelease: v1 stays where it is.");
    expect(await tagOf(origin, "v1")).toBe("");

    const stale = jobRun("workflows", pushed("v1.2.3"));
    const staleOrigin = await checkout(stale, "1.2.2");
    const refused = await stale.step("Move the review-sessions workflows' major tag");
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain("::error::.github/workflows/review-sessions.yml does not install 1.2.3 (its PROVIDER_VERSION): v1 is not moved");
    expect(await tagOf(staleOrigin, "v1")).toBe("");
  });
});

describe("the workflows as a whole", () => {
  it("pass actionlint", async () => {
    // `concurrency.queue` of the per-PR workflows is newer than actionlint's knowledge of the syntax.
    const findings = await actionlint(["-ignore", 'unexpected key "queue" for "concurrency" section']);
    expect(findings).toBe("");
  }, 600_000);

  it("every `run:` step of the release workflow was executed by a test in this file", async () => {
    const steps = runSteps(flow);
    expect(steps.length).toBeGreaterThanOrEqual(8);
    expect(steps.filter((s) => !s.executed).map((s) => `${s.key} ${s.name}`)).toEqual([]);
  });
});
