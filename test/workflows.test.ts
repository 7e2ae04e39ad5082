import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_IDEMPOTENCY_SECRET, MAX_SETTING_LENGTH, MIN_IDEMPOTENCY_SECRET_LENGTH, loadConfig } from "../core/config";

import type { Contexts } from "./helpers/github-expressions";
import type { Job, Step, Workflow, WorldSetup } from "./helpers/workflow-runner";
import { JobRun, World, findStep, loadWorkflow, runSteps } from "./helpers/workflow-runner";
import { type PullRequestCase, REPOSITORY, STACK, type SweepCase, pullRequestContexts, sweepContexts } from "./helpers/workflow-events";
import { runStatus } from "../release/run";

/**
 * The per-pull-request workflows, read as GitHub reads them (YAML, anchors resolved), and their `run:`
 * steps run as the runner runs them (test/helpers/workflow-runner.ts): the workflow's own shell, env and
 * expressions, against stand-ins for `pulumi`, `gh`, `npm`, `node` (and the package's runner through it) and
 * `openssl` that answer as the real ones do and record how they were called. The reusable workflows users call
 * (review-sessions.yml, review-sessions-sweep.yml) hold every step; this repository's own workflows
 * (pr-environment.yml, pr-environment-sweep.yml) pack the pull request's code and call them. Every `run:` step
 * of the four is run by some test here (the last test checks that); test/e2e/review-sessions.test.ts runs the
 * reusable workflows' steps again under the real engine against the emulator.
 */
const deployFlow = loadWorkflow("review-sessions.yml");
const sweepFlow = loadWorkflow("review-sessions-sweep.yml");
const ownFlow = loadWorkflow("pr-environment.yml");
const ownSweepFlow = loadWorkflow("pr-environment-sweep.yml");
const root = path.resolve(__dirname, "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };

const RUNNER = "node node_modules/pulumi-remote-browser/dist/runner/cli.js";
const indexOf = (job: Job, s: Step) => job.steps.indexOf(s);
/** The first step that talks to the backend: a script calling `pulumi` or the package's runner. */
const firstPulumiStep = (job: Job) => job.steps.findIndex((s) => /(^|\s|\()pulumi\s|dist\/runner\/cli\.js/m.test(s.run ?? ""));
/** The steps that run the provider: the runner's up, refresh and destroy. */
const providerSteps = (job: Job) => job.steps.filter((s) => /dist\/runner\/cli\.js (up|refresh|destroy)\b/.test(s.run ?? ""));

let work: string;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-workflows-"));
});
// Thousands of small files (every job run's world and workspace): deleted without holding the worker.
afterAll(() => fs.promises.rm(work, { recursive: true, force: true }));

// Distinct values, so that a test can look for each of them where it must not be.
const SECRETS = {
  PULUMI_ACCESS_TOKEN: "",
  PULUMI_BACKEND_URL: "postgres://pulumi:pw-inside-the-url@db.example.test/pulumi",
  PULUMI_CONFIG_PASSPHRASE: "state-passphrase-7c1d",
  REMOTE_BROWSER_API_KEY: "rb_live_apikey_5e2a",
  REMOTE_BROWSER_IDEMPOTENCY_SECRET: "idem-secret-3f9a0c6e1b2d4a5f",
  SHARE_LINKS_PASSPHRASE: "",
};
const SERVICE_URL = "https://api.remote-browser.test/v8";
const LINKS = { chrome: "https://share.example.test/en/s?lnk_chrome_8d1f", edge: "https://share.example.test/en/s?lnk_edge_42ab" };
const REVIEWERS = `Pull request #7 has 2 review session(s); links: pulumi stack output shareUrls --show-secrets --stack ${STACK}`;
const SESSION_IDS = { chrome: "vm-aaaa1111", edge: "vm-bbbb2222" };

/** The caller: this file's secrets and service, no provider artifact (the package comes from npm). */
const CALLER = { secrets: SECRETS, serviceUrl: SERVICE_URL, providerArtifact: "" };
/** The contexts of a `pull_request` event for pull request #7 of acme/webapp, calling review-sessions.yml. */
const pullRequest = (c?: PullRequestCase) => pullRequestContexts(CALLER, c);
/** The contexts of the scheduled sweep; `pr` sets the destroy job's matrix. */
const sweep = (c?: SweepCase) => sweepContexts(CALLER, c);

let runs = 0;
function jobRun(flow: Workflow, jobId: string, ctx: Contexts, setup: WorldSetup = {}): JobRun {
  const dir = path.join(work, `run-${++runs}`);
  const run = new JobRun(flow, jobId, ctx, new World(path.join(dir, "world"), setup), dir);
  // What the install step leaves: the folder the backend's steps work in.
  fs.mkdirSync(path.join(run.temp, "review-sessions"), { recursive: true });
  return run;
}
const listed = (...names: string[]) => names.map((name) => ({ name: `acme/pr-environment/${name}` }));
const tools = (run: JobRun) => path.join(run.temp, "review-sessions");

/** Every job of the reusable workflows, by label, for tests of a step all of them share. */
const allJobs: Array<[string, Workflow, string]> = [
  ["review-sessions.yml deploy", deployFlow, "deploy"],
  ["review-sessions.yml close", deployFlow, "close"],
  ["review-sessions-sweep.yml find", sweepFlow, "find"],
  ["review-sessions-sweep.yml destroy", sweepFlow, "destroy"],
];
const contextsFor = (flow: Workflow, extra: { secrets?: Record<string, string> } = {}) => (flow === deployFlow ? pullRequest({ secrets: extra.secrets }) : sweep({ pr: "7", secrets: extra.secrets }));
/** Every job that hands the stack's passphrase to a step, i.e. that reads or writes the stack's secrets. */
const jobsWithSecrets = allJobs.filter(([label]) => !label.endsWith("find"));
const reusable = [deployFlow, sweepFlow];

describe("the workflows refuse a self-managed backend without a passphrase", () => {
  it("every job that handles the stack's secrets checks the backend settings before it talks to the backend", async () => {
    for (const [label, flow, jobId] of [...allJobs, ["review-sessions-sweep.yml audit", sweepFlow, "audit"] as [string, Workflow, string]]) {
      const job = flow.jobs[jobId]!;
      const check = findStep(job, "Check the state backend settings");
      expect(indexOf(job, check), label).toBeLessThan(firstPulumiStep(job));
      expect(check.env).toEqual({
        PULUMI_ACCESS_TOKEN: "${{ secrets.PULUMI_ACCESS_TOKEN }}",
        PULUMI_BACKEND_URL: "${{ secrets.PULUMI_BACKEND_URL }}",
        PULUMI_CONFIG_PASSPHRASE: "${{ secrets.PULUMI_CONFIG_PASSPHRASE }}",
      });
    }
    // Not vacuous: the jobs really pass the passphrase on.
    for (const [label, flow, jobId] of jobsWithSecrets) {
      expect(
        flow.jobs[jobId]!.steps.some((s) => s.env?.PULUMI_CONFIG_PASSPHRASE),
        label,
      ).toBe(true);
    }
  });

  it.each(allJobs)("%s: fails with a message naming the secret when the passphrase is missing or empty", async (_label, flow, jobId) => {
    const check = (secrets: Record<string, string>) => jobRun(flow, jobId, contextsFor(flow, { secrets })).step("Check the state backend settings");
    const password = "pw-inside-the-url";
    for (const url of [`postgres://pulumi:${password}@db.example.test/pulumi`, "s3://bucket/state", "gs://bucket", "azblob://c", "file:///srv/state"]) {
      // An unset repository secret reads as ''.
      const r = await check({ PULUMI_BACKEND_URL: url, PULUMI_ACCESS_TOKEN: "", PULUMI_CONFIG_PASSPHRASE: "" });
      expect(r.code, url).not.toBe(0);
      expect(r.out).toMatch(/::error::PULUMI_BACKEND_URL is a self-managed backend, but the repository secret PULUMI_CONFIG_PASSPHRASE is not set or empty/);
      expect(r.out).not.toContain(password);
      expect((await check({ PULUMI_BACKEND_URL: url, PULUMI_CONFIG_PASSPHRASE: "set" })).code).toBe(0);
    }
    // Pulumi Cloud needs no passphrase; no backend at all is an error of its own.
    expect((await check({ PULUMI_ACCESS_TOKEN: "pul-token", PULUMI_BACKEND_URL: "", PULUMI_CONFIG_PASSPHRASE: "" })).code).toBe(0);
    expect((await check({ PULUMI_BACKEND_URL: "https://api.pulumi.com", PULUMI_ACCESS_TOKEN: "pul-token", PULUMI_CONFIG_PASSPHRASE: "" })).code).toBe(0);
    const none = await check({ PULUMI_BACKEND_URL: "", PULUMI_ACCESS_TOKEN: "" });
    expect(none.code).not.toBe(0);
    expect(none.out).toMatch(/::error::No state backend/);
  });
});

describe("the idempotency secret: the review sessions' keys cannot be computed from their public inputs", () => {
  const secretEnv = { [ENV_IDEMPOTENCY_SECRET]: "${{ secrets.REMOTE_BROWSER_IDEMPOTENCY_SECRET }}" };

  it("every job checks it in its first step, and every step that runs the provider gets it, in the variable the provider reads", async () => {
    for (const [label, flow, jobId] of allJobs) {
      const first = flow.jobs[jobId]!.steps[0]!;
      expect(first.name, label).toBe("Check the idempotency secret");
      expect(first.env, label).toEqual(secretEnv);
    }
    const steps = reusable.flatMap((flow) => Object.values(flow.jobs).flatMap(providerSteps));
    expect(steps.map((s) => s.name)).toEqual([
      "Recover a lock left by a killed run",
      "pulumi up (stack ${{ inputs.stack-prefix }}${{ github.event.pull_request.number }})",
      "Recover a lock left by a killed run",
      "Adopt the sessions a killed run started",
      "pulumi destroy and stack rm (stack ${{ inputs.stack-prefix }}${{ github.event.pull_request.number }})",
      "Recover a lock left by a killed run",
      "pulumi destroy and stack rm",
    ]);
    for (const s of steps) expect(s.env, s.name).toMatchObject(secretEnv);
  });

  it.each(allJobs)("%s: refuses to run without a secret the provider would use, without printing it", async (_label, flow, jobId) => {
    const check = (value: string) => jobRun(flow, jobId, contextsFor(flow, { secrets: { REMOTE_BROWSER_IDEMPOTENCY_SECRET: value } })).step("Check the idempotency secret");
    const short = "x".repeat(MIN_IDEMPOTENCY_SECRET_LENGTH - 1);
    const rejected = ["", " ", " ".repeat(MIN_IDEMPOTENCY_SECRET_LENGTH), `  ${short}\n`, short, `\t${short}\t`];
    const accepted = ["k".repeat(MIN_IDEMPOTENCY_SECRET_LENGTH), ` ${"k".repeat(MIN_IDEMPOTENCY_SECRET_LENGTH)} `, "f3".repeat(32), "a b c d e f g h i", "k".repeat(MAX_SETTING_LENGTH)];
    for (const value of rejected) {
      const r = await check(value);
      expect(r.code, JSON.stringify(value)).not.toBe(0);
      expect(r.out).toContain(
        "::error::The repository secret REMOTE_BROWSER_IDEMPOTENCY_SECRET is not set or shorter than 16 characters: without it anyone with the service's API key can compute the review sessions' idempotency keys and read their share links. Create it once with `openssl rand -hex 32` and keep it",
      );
      if (value.trim()) expect(r.out).not.toContain(value.trim());
    }
    // Longer than the provider takes (blanks count there too): refused here, not at the first step that loads it.
    const long = ["k".repeat(MAX_SETTING_LENGTH + 1), ` ${"k".repeat(MAX_SETTING_LENGTH - 1)} `];
    for (const value of long) {
      const r = await check(value);
      expect(r.code, `${value.length} characters`).not.toBe(0);
      expect(r.out).toContain(`::error::The repository secret REMOTE_BROWSER_IDEMPOTENCY_SECRET is ${value.length} characters long; the provider takes at most ${MAX_SETTING_LENGTH}.`);
      expect(r.out).not.toContain(value.trim());
    }
    rejected.push(...long);
    for (const value of accepted) {
      const r = await check(value);
      expect(r.code, `${JSON.stringify(value)}: ${r.out}`).toBe(0);
      expect(r.out).not.toContain(value.trim());
    }
    // The check and the provider agree: what passes is a key the provider uses, what fails one it would
    // refuse or ignore (blank).
    for (const value of [...rejected, ...accepted]) {
      let used: boolean;
      try {
        used = loadConfig(() => undefined, { [ENV_IDEMPOTENCY_SECRET]: value }).idempotencySecret !== undefined;
      } catch {
        used = false;
      }
      expect(used, JSON.stringify(value)).toBe(accepted.includes(value));
    }
  });

  it.each(allJobs)("%s: without it the job stops at its first step, before anything talks to the backend", async (_label, flow, jobId) => {
    const ctx =
      flow === deployFlow
        ? pullRequest({ action: jobId === "close" ? "closed" : "opened", secrets: { REMOTE_BROWSER_IDEMPOTENCY_SECRET: "" } })
        : sweep({ pr: "7", prs: '["7"]', secrets: { REMOTE_BROWSER_IDEMPOTENCY_SECRET: "" } });
    const run = jobRun(flow, jobId, ctx, { stacks: listed(STACK), prStates: { "7": "CLOSED" } });
    const actions: string[] = [];
    const results = await run.all((step) => {
      actions.push(step.name ?? step.uses ?? "");
    });
    expect(results[0]!.code).not.toBe(0);
    expect(
      results
        .slice(1)
        .filter((r) => r.ran)
        .map((r) => r.step.name),
    ).toEqual(jobId === "deploy" ? ["Remove the plain links from the runner"] : []);
    expect(actions).toEqual([]);
    expect(run.world.calls()).toEqual([]);
  });
});

describe("the service's key and address are checked before any step uses them", () => {
  it.each([
    ["deploy", deployFlow, "deploy"],
    ["close", deployFlow, "close"],
    ["sweep destroy", sweepFlow, "destroy"],
    ["sweep audit", sweepFlow, "audit"],
  ])("%s: a missing key or an address that is not a plain http(s) one stops the job, naming what to set, printing neither", async (_label, flow, jobId) => {
    const check = (secrets: Record<string, string>, inputs: Record<string, string> = {}) =>
      jobRun(flow, jobId, flow === deployFlow ? pullRequest({ action: jobId === "close" ? "closed" : "opened", secrets, inputs }) : sweep({ pr: "7", secrets, inputs })).step(
        "Check the service settings",
      );
    for (const key of ["", "  ", "\n"]) {
      const r = await check({ REMOTE_BROWSER_API_KEY: key });
      expect(r.code).not.toBe(0);
      expect(r.out).toContain("::error::The secret REMOTE_BROWSER_API_KEY is not set or empty");
    }
    for (const url of ["", "api.example.test", "ftp://api.example.test", "https://user:pw-in-url@api.example.test/v8", "https://api.example.test/v8 --x", "javascript:alert(1)"]) {
      const r = await check({}, { "service-url": url });
      expect(r.code, url).not.toBe(0);
      expect(r.out).toContain("::error::input service-url must be the service's http(s) address");
      expect(r.out).not.toContain("pw-in-url");
    }
    for (const url of [SERVICE_URL, "http://127.0.0.1:8080/v8", "https://api.example.test"]) {
      const r = await check({}, { "service-url": url });
      expect(r.code, `${url}: ${r.out}`).toBe(0);
      expect(r.out).not.toContain(SECRETS.REMOTE_BROWSER_API_KEY);
    }
    const job = flow.jobs[jobId]!;
    expect(indexOf(job, findStep(job, "Check the service settings"))).toBeLessThan(firstPulumiStep(job));
  });
});

describe("secrets reach the steps through their environment only", () => {
  it("no action input and no script text holds an expression: an action may put its inputs on a command line, and a script's text is code", async () => {
    let steps = 0;
    for (const flow of [...reusable, ownFlow, ownSweepFlow]) {
      for (const job of Object.values(flow.jobs)) {
        for (const s of job.steps ?? []) {
          steps++;
          expect(JSON.stringify(s.with ?? {}), s.name ?? s.uses).not.toMatch(/secrets\./);
          // A value expanded into a script is run as code: a branch name or an input would be script injection.
          expect(s.run ?? "", s.name).not.toMatch(/\$\{\{/);
        }
      }
    }
    expect(steps).toBeGreaterThan(30);
    // The backend is still given to every step that runs the provider, through PULUMI_BACKEND_URL.
    for (const flow of reusable) {
      for (const s of Object.values(flow.jobs).flatMap(providerSteps)) expect(s.env?.PULUMI_BACKEND_URL, s.name).toBe("${{ secrets.PULUMI_BACKEND_URL }}");
    }
  });

  it.each(jobsWithSecrets)("%s: the provider's install gets no secret", async (_label, flow, jobId) => {
    const run = jobRun(flow, jobId, contextsFor(flow, { secrets: { SHARE_LINKS_PASSPHRASE: "links-passphrase-0b7e" } }));
    const install = findStep(flow.jobs[jobId]!, "Install the provider");
    const env = run.stepEnv(install);
    const secretValues = [...Object.values(SECRETS), "links-passphrase-0b7e", REPOSITORY.token].filter(Boolean);
    for (const value of secretValues) expect(Object.values(env).join("\n")).not.toContain(value);
    // Not vacuous: the step after `up`/`destroy` that reads the stack does get the passphrase.
    expect(Object.values(run.stepEnv(findStep(flow.jobs[jobId]!, /^Check that the stack is gone|^Read and mask/))).join("\n")).toContain(SECRETS.PULUMI_CONFIG_PASSPHRASE);
  });

  it("the pull request's code is built in a job of this repository's workflows that holds no secret and no write permission", () => {
    for (const flow of [ownFlow, ownSweepFlow]) {
      const pack = flow.jobs.package!;
      expect(JSON.stringify(pack), flow.file).not.toMatch(/secrets\./);
      expect((pack as Job & { permissions?: unknown }).permissions, flow.file).toEqual({ contents: "read" });
    }
  });
});

describe("every script runs with pipefail, as the team's scripts assume", () => {
  it("a step without `shell:` would get `bash -e` only: every workflow sets bash for every run step", async () => {
    for (const flow of [...reusable, ownFlow, ownSweepFlow]) {
      for (const [jobId, job] of Object.entries(flow.jobs)) {
        for (const s of (job.steps ?? []).filter((x) => x.run !== undefined)) {
          expect(s.shell ?? job.defaults?.run?.shell ?? flow.defaults?.run?.shell, `${flow.file} ${jobId} ${s.name}`).toBe("bash");
        }
      }
    }
  });

  it.each([
    ["pr-environment.yml", ownFlow],
    ["pr-environment-sweep.yml", ownSweepFlow],
  ])("%s: a failed `npm pack` fails the package job instead of uploading nothing", async (_label, flow) => {
    const run = jobRun(flow, "package", flow === ownFlow ? pullRequest() : sweep(), { npmPackError: "npm error code E403" });
    const r = await run.step("Build and pack the package");
    expect(r.code, r.out).not.toBe(0);
  });
});

describe("the provider comes at the workflows' own version, or from the caller's tarball", () => {
  it("PROVIDER_VERSION is the package's version, and the example calls the reusable workflows at its major", () => {
    for (const flow of reusable) expect(flow.env.PROVIDER_VERSION, flow.file).toBe(manifest.version);
    const major = manifest.version.split(".")[0];
    const example = fs.readFileSync(path.join(root, "examples", "review-sessions", "review-sessions.yml"), "utf8");
    const uses = [...example.matchAll(/uses:\s*(\S+)/g)].map((m) => m[1]);
    expect(uses).toEqual([
      `remote-browser/pulumi-remote-browser/.github/workflows/review-sessions.yml@v${major}`,
      `remote-browser/pulumi-remote-browser/.github/workflows/review-sessions-sweep.yml@v${major}`,
    ]);
  });

  it.each(jobsWithSecrets)("%s: installs pulumi-remote-browser@<version> from npm with the tested SDK, where the later steps run", async (_label, flow, jobId) => {
    const run = jobRun(flow, jobId, contextsFor(flow));
    const r = await run.step("Install the provider");
    expect(r.code, r.out).toBe(0);
    const calls = run.world.calls().filter((c) => c.cmd === "npm");
    expect(calls.map((c) => [c.cmd, ...c.argv].join(" "))).toEqual([`npm install --ignore-scripts --no-audit --no-fund pulumi-remote-browser@${manifest.version} @pulumi/pulumi@3.248.0`]);
    expect(calls[0]!.cwd).toBe(tools(run));
    expect(JSON.parse(fs.readFileSync(path.join(tools(run), "package.json"), "utf8"))).toEqual({ name: "review-sessions", private: true });
  });

  it("provider-artifact: installs the one tarball the caller uploaded, and refuses an artifact without exactly one", async () => {
    const ctx = pullRequest({ inputs: { "provider-artifact": "provider-package" } });
    const run = jobRun(deployFlow, "deploy", ctx);
    fs.mkdirSync(path.join(run.temp, "provider"));
    fs.writeFileSync(path.join(run.temp, "provider", "pulumi-remote-browser-0.2.0.tgz"), "");
    const r = await run.step("Install the provider");
    expect(r.code, r.out).toBe(0);
    expect(run.world.commandLines("npm")).toEqual([`npm install --ignore-scripts --no-audit --no-fund ${run.temp}/provider/pulumi-remote-browser-0.2.0.tgz @pulumi/pulumi@3.248.0`]);
    for (const files of [[], ["pulumi-remote-browser-0.2.0.tgz", "pulumi-remote-browser-0.3.0.tgz"]]) {
      const bad = jobRun(deployFlow, "deploy", ctx);
      fs.mkdirSync(path.join(bad.temp, "provider"));
      for (const f of files) fs.writeFileSync(path.join(bad.temp, "provider", f), "");
      const refused = await bad.step("Install the provider");
      expect(refused.code).not.toBe(0);
      expect(refused.out).toContain("::error::input provider-artifact: the artifact must hold exactly one pulumi-remote-browser-<version>.tgz");
      expect(bad.world.calls("npm")).toEqual([]);
    }
  });

  it.each([
    ["pr-environment.yml", ownFlow],
    ["pr-environment-sweep.yml", ownSweepFlow],
  ])("%s: packs this checkout and hands the tarball to the reusable workflow", async (_label, flow) => {
    const run = jobRun(flow, "package", flow === ownFlow ? pullRequest() : sweep());
    const r = await run.step("Build and pack the package");
    expect(r.code, r.out).toBe(0);
    expect(run.world.commandLines("npm")).toEqual(["npm ci --ignore-scripts --no-audit --no-fund", "npm run build", `npm pack --silent --pack-destination ${run.temp}/provider`]);
    expect(fs.readdirSync(path.join(run.temp, "provider"))).toEqual(["pulumi-remote-browser-0.0.0-test.tgz"]);
    const upload = flow.jobs.package!.steps.find((s) => s.uses?.startsWith("actions/upload-artifact"))!;
    const caller = Object.values(flow.jobs).find((j) => (j as Job & { uses?: string }).uses) as Job & { uses: string; with: Record<string, unknown>; needs: string };
    expect(upload.with!.name).toBe(caller.with["provider-artifact"]);
    expect(caller.needs).toBe("package");
  });
});

describe("the deploy job's inputs: checked before use, each refusal naming its input", () => {
  const deploy = deployFlow.jobs.deploy!;
  const check = (inputs: Record<string, string>) => jobRun(deployFlow, "deploy", pullRequest({ inputs })).step("Check the inputs");

  it("the preview address comes from the template, with the pull request's number", async () => {
    expect((await check({})).outputs).toEqual({ "preview-url": "https://pr-7.preview.example.com/" });
    expect((await check({ "preview-url": "https://preview.acme.test/{number}/?pr={number}" })).outputs).toEqual({ "preview-url": "https://preview.acme.test/7/?pr=7" });
  });

  it("refuses what it cannot use, without evaluating or echoing it", async () => {
    const refusals: Array<[string, string, string]> = [
      ["preview-url", "", "input preview-url must be an http(s) address"],
      ["preview-url", "javascript:alert(1)", "input preview-url must be an http(s) address"],
      ["preview-url", "https://x.test/ $(touch pwned)", "input preview-url must be an http(s) address"],
      ["browsers", 'chrome", "x": {"value": "$(touch pwned)', "input browsers must be browser image ids separated by commas"],
      ["browsers", "chrome;edge", "input browsers must be browser image ids separated by commas"],
      ["share-language", "klingon", "input share-language must be one of en, de, fr, es, it, pt, ja"],
      ["stack-prefix", "", "input stack-prefix must start with a letter"],
      ["stack-prefix", "7-", "input stack-prefix must start with a letter"],
      ["stack-prefix", "pr/$(touch pwned)", "input stack-prefix must start with a letter"],
      ["stack-prefix", "a".repeat(33), "input stack-prefix must start with a letter"],
      ["program", "/etc/passwd.js", "input program must be the path of a .js module inside the repository"],
      ["program", "review/../../x.js", "input program must be the path of a .js module inside the repository"],
      ["program", "review/index.ts", "input program must be the path of a .js module inside the repository"],
      ["provider-artifact", "a b", "input provider-artifact must be an artifact's name"],
    ];
    for (const [input, value, message] of refusals) {
      const run = jobRun(deployFlow, "deploy", pullRequest({ inputs: { [input]: value } }));
      const r = await run.step("Check the inputs");
      expect(r.code, `${input}=${value}`).not.toBe(0);
      expect(r.out).toContain(`::error::${message}`);
      expect(r.out).not.toContain("pwned");
      expect(r.outputs).toEqual({});
      expect(fs.readdirSync(run.workspace)).not.toContain("pwned");
    }
    for (const [input, value] of [
      ["browsers", "chrome,edge"],
      ["browsers", " chrome , edge "],
      ["share-language", "ja"],
      ["stack-prefix", "review_"],
      ["program", "review/index.js"],
      ["program", "dist/review.cjs"],
    ]) {
      const r = await check({ [input!]: value! });
      expect(r.code, `${input}=${value}: ${r.out}`).toBe(0);
    }
  });

  it("is longer than the longest capacity wait plus preparation, installs and engine", async () => {
    // wait-for-capacity-seconds goes up to 3600 s; the rest of the job needs a good 10 minutes more.
    expect(deploy["timeout-minutes"]! * 60).toBeGreaterThanOrEqual(3600 + 20 * 60);
  });

  it("refuses a capacity wait the timeout does not cover, or that is not a number, before anything starts", async () => {
    for (const wait of ["3601", "86400", "-1", "abc", "1e3", "$(touch pwned)", "10 "]) {
      const r = await check({ "wait-for-capacity-seconds": wait });
      expect(r.code, wait).not.toBe(0);
      expect(r.out).toContain("::error::input wait-for-capacity-seconds must be a whole number of seconds from 0 to 3600");
      expect(r.outputs).toEqual({});
    }
    for (const wait of ["", "0", "900", "3600"]) {
      const r = await check({ "wait-for-capacity-seconds": wait });
      expect(r.code, `${wait}: ${r.out}`).toBe(0);
    }
  });

  it("hands every setting to the program as its config, the optional ones only when set, each one argument", async () => {
    const inputs = { "preview-url": "https://pr-{number}.acme.test/", browsers: "chrome,edge", "share-language": "de", "wait-for-capacity-seconds": "900" };
    const upOf = async (given: Record<string, string>) => {
      const run = jobRun(deployFlow, "deploy", pullRequest({ inputs: given }), { outputs: { sessionIds: SESSION_IDS, reviewers: REVIEWERS, shareUrls: LINKS }, secretOutputs: ["shareUrls"] });
      expect((await run.step("Check the inputs")).code).toBe(0);
      const r = await run.step(/^pulumi up/);
      expect(r.code, r.out).toBe(0);
      return { r, argv: run.world.calls("node")[0]!.argv };
    };
    const { r, argv } = await upOf(inputs);
    expect(argv).toEqual([
      "node_modules/pulumi-remote-browser/dist/runner/cli.js",
      "up",
      "--program",
      expect.stringMatching(/review-sessions\/node_modules\/pulumi-remote-browser\/dist\/sdk\/reviewProgram\.js$/),
      "--project",
      "pr-environment",
      "--stack",
      STACK,
      "--backend-env",
      "PULUMI_BACKEND_URL",
      "--no-refresh",
      "--config",
      "prNumber=7",
      "--config",
      "previewUrl=https://pr-7.acme.test/",
      "--config",
      "pullRequestUrl=https://github.com/acme/webapp/pull/7",
      "--config",
      "browsers=chrome,edge",
      "--config",
      "shareLanguage=de",
      "--config",
      "waitForCapacitySeconds=900",
      "--outputs-file",
      expect.stringMatching(/outputs\.json$/),
    ]);
    // The job's outputs: the stack, the session ids and the message, no link.
    expect(r.outputs).toEqual({ stack: STACK, "session-ids": JSON.stringify(SESSION_IDS), message: REVIEWERS });
    expect(JSON.stringify(r.outputs)).not.toContain("lnk_");
    const bare = (await upOf({})).argv;
    expect(bare.filter((a) => a.startsWith("browsers=") || a.startsWith("shareLanguage=") || a.startsWith("waitForCapacitySeconds="))).toEqual([]);
    // A wait of 0 is a setting too, not an unset one.
    expect((await upOf({ "wait-for-capacity-seconds": "0" })).argv).toContain("waitForCapacitySeconds=0");
  });

  it("runs a program of the repository's own, from its checkout, resolving the provider from the install", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ inputs: { program: "review/index.js" } }), { outputs: { sessionIds: {}, reviewers: "" } });
    expect((await run.step("Check the inputs")).code).toBe(0);
    const r = await run.step(/^pulumi up/);
    expect(r.code, r.out).toBe(0);
    const argv = run.world.calls("node")[0]!.argv;
    expect(argv[argv.indexOf("--program") + 1]).toBe(path.join(run.workspace, "review/index.js"));
    const checkout = deployFlow.jobs.deploy!.steps.find((s) => s.uses?.startsWith("actions/checkout"))!;
    expect(checkout.if).toBe("inputs.program != ''");
    expect(checkout.with).toEqual({ "persist-credentials": false });
  });
});

describe("the share links reach reviewers only where the repository chose a way, never in the log", () => {
  const deployed: WorldSetup = { stacks: listed(STACK), outputs: { shareUrls: LINKS, reviewers: REVIEWERS, sessionIds: SESSION_IDS }, secretOutputs: ["shareUrls"] };

  it("masks every link and its link id before anything else reads them, and keeps them in a file only the job's user reads", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ secrets: { SHARE_LINKS_PASSPHRASE: "links-passphrase-0b7e" } }), deployed);
    const r = await run.step("Read and mask the share links");
    expect(r.code, r.out).toBe(0);
    expect(r.masks).toEqual([LINKS.chrome, "lnk_chrome_8d1f", LINKS.edge, "lnk_edge_42ab"]);
    const shown = r.out.split("\n").filter((l) => !l.startsWith("::add-mask::"));
    for (const secret of ["lnk_chrome_8d1f", "lnk_edge_42ab"]) expect(shown.join("\n")).not.toContain(secret);
    const file = path.join(run.temp, "share-links.json");
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(LINKS);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(run.world.commandLines("pulumi")).toEqual([`pulumi stack output shareUrls --show-secrets --json --stack ${STACK} --non-interactive`]);
    expect(run.world.calls("pulumi").every((c) => c.cwd === tools(run))).toBe(true);
  });

  it("one comment with the message and no link, edited on the next push instead of a second one", async () => {
    const someoneElse = { id: 5, user: { login: "octocat" }, body: "<!-- pr-environment --> copied by hand" };
    const run = jobRun(deployFlow, "deploy", pullRequest(), { ...deployed, comments: [someoneElse] });
    expect((await run.step("Check the inputs")).code).toBe(0);
    expect((await run.step(/^pulumi up/)).code).toBe(0);
    const first = await run.step("Comment for reviewers");
    expect(first.code, first.out).toBe(0);
    const [, posted] = run.world.comments();
    expect(posted!.user.login).toBe("github-actions[bot]");
    expect(posted!.body.split("\n")[0]).toBe("<!-- pr-environment -->");
    expect(posted!.body).toContain(`### Review environment \`${STACK}\``);
    expect(posted!.body).toContain(REVIEWERS);
    expect(posted!.body).not.toContain("share.example.test");
    expect(posted!.body).not.toContain("lnk_");
    expect(posted!.body).not.toContain("share-links-");
    expect(posted!.body).toContain("Updated for 0123456.");

    const second = await run.step("Comment for reviewers");
    expect(second.code, second.out).toBe(0);
    expect(run.world.comments().map((c) => c.id)).toEqual([5, posted!.id]);
    expect(run.world.comments()[0]).toEqual(someoneElse);
    const requests = run.world.calls("gh").map((c) => `${c.argv.includes("--method") ? c.argv[c.argv.indexOf("--method") + 1] : "GET"} ${c.argv.find((a) => a.startsWith("repos/"))}`);
    expect(requests).toEqual([
      "GET repos/acme/webapp/issues/7/comments",
      "POST repos/acme/webapp/issues/7/comments",
      "GET repos/acme/webapp/issues/7/comments",
      `PATCH repos/acme/webapp/issues/comments/${posted!.id}`,
    ]);
  });

  it("with a links passphrase: the comment says where the encrypted links are, and holds none", async () => {
    const passphrase = "links-passphrase-0b7e";
    const run = jobRun(deployFlow, "deploy", pullRequest({ secrets: { SHARE_LINKS_PASSPHRASE: passphrase } }), deployed);
    expect((await run.step("Check the inputs")).code).toBe(0);
    expect((await run.step(/^pulumi up/)).code).toBe(0);
    const r = await run.step("Comment for reviewers");
    expect(r.code, r.out).toBe(0);
    const [comment] = run.world.comments();
    expect(comment!.body).not.toContain("lnk_");
    expect(comment!.body).toContain(`share-links-${STACK}`);
    expect(comment!.body).not.toContain(passphrase);
  });

  it("encrypts the links without the passphrase on a command line, the way the comment tells reviewers to decrypt them", async () => {
    const passphrase = "links-passphrase-0b7e";
    const run = jobRun(deployFlow, "deploy", pullRequest({ secrets: { SHARE_LINKS_PASSPHRASE: passphrase } }), deployed);
    expect((await run.step("Read and mask the share links")).code).toBe(0);
    const r = await run.step("Encrypt the share links");
    expect(r.code, r.out).toBe(0);
    expect(r.outputs).toEqual({ done: "true" });
    const encrypted = path.join(run.temp, "encrypted", "share-links.json.enc");
    expect(fs.readFileSync(encrypted, "utf8")).not.toContain("lnk_");
    const d = await runStatus("openssl", ["enc", "-d", "-aes-256-cbc", "-pbkdf2", "-iter", "200000", "-pass", "env:P", "-in", encrypted], {
      env: { ...process.env, P: passphrase },
    });
    expect(d.status, d.stderr).toBe(0);
    expect(JSON.parse(d.stdout)).toEqual(LINKS);
    const openssl = run.world.calls("openssl");
    expect(openssl).toHaveLength(1);
    expect(openssl[0]!.argv.join(" ")).not.toContain(passphrase);
    expect(openssl[0]!.argv).toContain("env:SHARE_LINKS_PASSPHRASE");
  });

  it("the plain links and the comment's text are removed from the runner at the end, even after a failure", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ secrets: { SHARE_LINKS_PASSPHRASE: "p" } }), deployed);
    expect((await run.step("Read and mask the share links")).code).toBe(0);
    expect(fs.existsSync(path.join(run.temp, "share-links.json"))).toBe(true);
    const remove = findStep(deployFlow.jobs.deploy!, "Remove the plain links from the runner");
    expect(remove.if).toBe("always()");
    expect((await run.step(remove)).code).toBe(0);
    expect(fs.existsSync(path.join(run.temp, "share-links.json"))).toBe(false);
    expect(fs.existsSync(path.join(run.temp, "comment.md"))).toBe(false);
  });
});

describe("closing a pull request destroys its stack and checks that it is gone", () => {
  it("asks the backend whether the stack exists; a backend error is not a missing stack", async () => {
    const exists = await jobRun(deployFlow, "close", pullRequest({ action: "closed" }), { stacks: listed("pr-6-r111", STACK) }).step("Does the stack exist?");
    expect(exists.code, exists.out).toBe(0);
    expect(exists.outputs).toEqual({ exists: "true" });
    const missing = await jobRun(deployFlow, "close", pullRequest({ action: "closed" }), { stacks: [...listed("pr-6-r111", "pr-7-r1112"), { name: `acme/other/${STACK}` }] }).step(
      "Does the stack exist?",
    );
    expect(missing.code, missing.out).toBe(0);
    expect(missing.outputs).toEqual({ exists: "false" });
    expect(missing.out).toContain(`Stack ${STACK} does not exist: nothing to destroy.`);
    const broken = await jobRun(deployFlow, "close", pullRequest({ action: "closed" }), { stackLsError: "error: could not reach the backend" }).step("Does the stack exist?");
    expect(broken.code).not.toBe(0);
    expect(broken.outputs).toEqual({});
  });

  const goneChecks: Array<[string, Workflow, string, Contexts]> = [
    ["close", deployFlow, "close", pullRequest({ action: "closed" })],
    ["sweep destroy", sweepFlow, "destroy", sweep({ pr: "7" })],
  ];

  it.each(goneChecks)("%s: a stack the destroy left behind is removed when empty, and the job fails when it stays", async (_label, flow, jobId, ctx) => {
    const gone = jobRun(flow, jobId, ctx, { stacks: listed("pr-8-r111") });
    const r = await gone.step("Check that the stack is gone");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`Stack ${STACK} is gone.`);
    expect(gone.world.commandLines("pulumi").some((l) => l.startsWith("pulumi stack rm"))).toBe(false);

    const leftOver = jobRun(flow, jobId, ctx, { stacks: listed(STACK, "pr-8-r111") });
    const removed = await leftOver.step("Check that the stack is gone");
    expect(removed.code, removed.out).toBe(0);
    expect(leftOver.world.commandLines("pulumi")).toContain(`pulumi stack rm ${STACK} --yes --non-interactive`);
    expect(leftOver.world.stacks()).toEqual(listed("pr-8-r111"));

    const refused = jobRun(flow, jobId, ctx, { stacks: listed(STACK), stackRmRefused: true });
    const stays = await refused.step("Check that the stack is gone");
    expect(stays.code).not.toBe(0);
    expect(stays.out).not.toContain("is gone");
  });

  it.each(goneChecks)("%s: a backend that cannot be asked fails the check instead of passing for a gone stack", async (_label, flow, jobId, ctx) => {
    const run = jobRun(flow, jobId, ctx, { stacks: listed(STACK), stackLsError: "error: could not reach the backend" });
    const r = await run.step("Check that the stack is gone");
    expect(r.code, r.out).not.toBe(0);
    expect(r.out).not.toContain("is gone");
  });

  it("edits the deploy's comment to say the environment is gone, and adds none when there was none", async () => {
    const ours = { id: 12, user: { login: "github-actions[bot]" }, body: `<!-- pr-environment -->\n${REVIEWERS}` };
    const theirs = { id: 13, user: { login: "octocat" }, body: "<!-- pr-environment --> quoted" };
    const run = jobRun(deployFlow, "close", pullRequest({ action: "closed" }), { comments: [ours, theirs] });
    const r = await run.step("Update the comment for reviewers");
    expect(r.code, r.out).toBe(0);
    const [edited, untouched] = run.world.comments();
    expect(edited!.body).toBe(`<!-- pr-environment -->\n### Review environment \`${STACK}\`\n\nThe pull request is closed: its browser sessions have ended and the stack is removed.\n`);
    expect(untouched).toEqual(theirs);

    const none = jobRun(deployFlow, "close", pullRequest({ action: "closed" }), { comments: [theirs] });
    expect((await none.step("Update the comment for reviewers")).code).toBe(0);
    expect(none.world.comments()).toEqual([theirs]);
    expect(none.world.calls("gh")).toHaveLength(1);
  });
});

describe("whole jobs, steps chosen by their own `if:`", () => {
  const noSecretInArguments = (world: World) => {
    const values = [...Object.values(SECRETS), REPOSITORY.token, "links-passphrase-0b7e"].filter(Boolean);
    for (const c of world.calls()) for (const v of values) expect([c.cmd, ...c.argv].join(" "), c.cmd).not.toContain(v);
    expect(world.calls().length).toBeGreaterThan(3);
  };
  const deployed = { outputs: { shareUrls: LINKS, reviewers: REVIEWERS, sessionIds: SESSION_IDS }, secretOutputs: ["shareUrls"] };

  it("which job runs: deploy on a push, close on close, neither for a fork's pull request nor on a schedule; the sweep only on a schedule or by hand", async () => {
    const runs = (action: string, fork = false, event?: string) => ["deploy", "close"].filter((jobId) => jobRun(deployFlow, jobId, pullRequest({ action, fork, event })).jobRuns());
    expect(runs("opened")).toEqual(["deploy"]);
    expect(runs("synchronize")).toEqual(["deploy"]);
    expect(runs("reopened")).toEqual(["deploy"]);
    expect(runs("closed")).toEqual(["close"]);
    expect(runs("synchronize", true)).toEqual([]);
    expect(runs("closed", true)).toEqual([]);
    expect(runs("closed", false, "schedule")).toEqual([]);
    expect(jobRun(sweepFlow, "find", sweep()).jobRuns()).toBe(true);
    expect(jobRun(sweepFlow, "find", sweep({ event: "workflow_dispatch" })).jobRuns()).toBe(true);
    expect(jobRun(sweepFlow, "find", sweep({ event: "pull_request" })).jobRuns()).toBe(false);
    // This repository's own workflows: the package job for its own pull requests only.
    expect(jobRun(ownFlow, "package", pullRequest({ fork: true })).jobRuns()).toBe(false);
    expect(jobRun(ownFlow, "package", pullRequest()).jobRuns()).toBe(true);
  });

  it("deploy: checks, install, the lock of an existing stack recovered, up with the settings, one comment, nothing left on the runner", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ action: "opened", inputs: { "wait-for-capacity-seconds": "120" } }), { stacks: listed(STACK), ...deployed });
    const results = await run.all();
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(results.filter((r) => !r.ran).map((r) => r.step.name ?? r.step.uses)).toEqual([
      "actions/checkout@d23441a48e516b6c34aea4fa41551a30e30af803",
      "Download the provider package built by the caller",
      "Read and mask the share links",
      "Encrypt the share links",
      "Upload the encrypted share links",
    ]);
    const runner = run.world.calls("node").filter((c) => c.argv[0]!.endsWith("cli.js"));
    expect(runner.map((c) => c.argv[1])).toEqual(["refresh", "up"]);
    expect(runner[0]!.argv).toEqual([
      "node_modules/pulumi-remote-browser/dist/runner/cli.js",
      "refresh",
      "--clear-pending-creates",
      "--stack",
      STACK,
      "--project",
      "pr-environment",
      "--backend-env",
      "PULUMI_BACKEND_URL",
      "--quiet",
    ]);
    expect(runner[1]!.argv).toContain("waitForCapacitySeconds=120");
    const upEnv = results.find((r) => r.step.id === "up")!.env;
    expect(upEnv.REMOTE_BROWSER_API_KEY).toBe(SECRETS.REMOTE_BROWSER_API_KEY);
    expect(upEnv[ENV_IDEMPOTENCY_SECRET]).toBe(SECRETS.REMOTE_BROWSER_IDEMPOTENCY_SECRET);
    expect(upEnv.REMOTE_BROWSER_BASE_URL).toBe(SERVICE_URL);
    expect(upEnv.PULUMI_BACKEND_URL).toBe(SECRETS.PULUMI_BACKEND_URL);
    expect(run.world.comments()).toHaveLength(1);
    expect(run.world.comments()[0]!.body).not.toContain("lnk_");
    expect(fs.readdirSync(run.temp).filter((f) => /share-links|comment|outputs/.test(f))).toEqual([]);
    noSecretInArguments(run.world);
  });

  it("deploy with a links passphrase and without a comment: the links go only into the encrypted artifact", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ inputs: { comment: false }, secrets: { SHARE_LINKS_PASSPHRASE: "links-passphrase-0b7e" } }), { stacks: [], ...deployed });
    let uploaded: Record<string, string> | undefined;
    const results = await run.all((step, inputs) => {
      if (step.uses?.startsWith("actions/upload-artifact")) uploaded = inputs;
    });
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(uploaded).toEqual({ name: `share-links-${STACK}`, path: `${run.temp}/encrypted/share-links.json.enc`, "retention-days": "7" });
    expect(results.filter((r) => !r.ran).map((r) => r.step.name ?? r.step.uses)).toContain("Comment for reviewers");
    expect(run.world.comments()).toEqual([]);
    // A new stack: nothing to recover, no refresh before the up.
    expect(
      run.world
        .calls("node")
        .filter((c) => c.argv[0]!.endsWith("cli.js"))
        .map((c) => c.argv[1]),
    ).toEqual(["up"]);
    noSecretInArguments(run.world);
  });

  it("a failed up stops the job before any link is read, and still cleans the runner", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ secrets: { SHARE_LINKS_PASSPHRASE: "p" } }), {
      stacks: listed(STACK),
      ...deployed,
      upError: "error: the account has 0 free running slot(s)",
    });
    const results = await run.all();
    expect(results.filter((r) => r.code !== 0).map((r) => r.step.id)).toEqual(["up"]);
    expect(results.filter((r) => r.ran).at(-1)!.step.name).toBe("Remove the plain links from the runner");
    expect(run.world.calls("pulumi").some((c) => c.argv[0] === "stack" && c.argv[1] === "output")).toBe(false);
    expect(run.world.comments()).toEqual([]);
  });

  it("close of a pull request that never deployed: nothing to destroy, and the job succeeds", async () => {
    const run = jobRun(deployFlow, "close", pullRequest({ action: "closed" }), { stacks: listed("pr-8-r111") });
    const results = await run.all();
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(run.world.calls("node").filter((c) => c.argv[0]!.endsWith("cli.js"))).toEqual([]);
    expect(results.filter((r) => !r.ran).map((r) => r.step.name ?? r.step.uses)).toEqual([
      "actions/checkout@d23441a48e516b6c34aea4fa41551a30e30af803",
      "Download the provider package built by the caller",
      "Recover a lock left by a killed run",
      "Adopt the sessions a killed run started",
      "pulumi destroy and stack rm (stack ${{ inputs.stack-prefix }}${{ github.event.pull_request.number }})",
    ]);
    expect(run.world.stacks()).toEqual(listed("pr-8-r111"));
  });

  it("close of a deployed pull request: recover, destroy and remove through the runner, then the comment says so", async () => {
    const comment = { id: 12, user: { login: "github-actions[bot]" }, body: `<!-- pr-environment -->\n${REVIEWERS}` };
    const run = jobRun(deployFlow, "close", pullRequest({ action: "closed" }), { stacks: listed(STACK, "pr-8-r111"), comments: [comment] });
    const results = await run.all();
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    const runner = run.world.calls("node").filter((c) => c.argv[0]!.endsWith("cli.js"));
    expect(runner.map((c) => c.argv.slice(1, 4).join(" "))).toEqual([`refresh --clear-pending-creates --stack`, `destroy --stack ${STACK}`, `rm --stack ${STACK}`]);
    const destroyEnv = results.find((r) => r.step.name?.startsWith("pulumi destroy"))!.env;
    expect(destroyEnv.REMOTE_BROWSER_API_KEY).toBe(SECRETS.REMOTE_BROWSER_API_KEY);
    expect(destroyEnv[ENV_IDEMPOTENCY_SECRET]).toBe(SECRETS.REMOTE_BROWSER_IDEMPOTENCY_SECRET);
    expect(results.find((r) => r.step.name === "Adopt the sessions a killed run started")!.ran).toBe(false);
    expect(run.world.stacks()).toEqual(listed("pr-8-r111"));
    expect(run.world.comments()[0]!.body).toContain("The pull request is closed");
    noSecretInArguments(run.world);
  });

  it("close after a killed deploy: the sessions its pending creates stand for are adopted by an up, then destroyed", async () => {
    const run = jobRun(deployFlow, "close", pullRequest({ action: "closed" }), { stacks: listed(STACK), pendingCreates: 2, outputs: { sessionIds: SESSION_IDS, reviewers: REVIEWERS } });
    const results = await run.all();
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(results.find((r) => r.step.id === "recover")!.out).toContain(`::warning::Stack ${STACK} holds 2 create(s) a killed run left pending`);
    const runner = run.world.calls("node").filter((c) => c.argv[0]!.endsWith("cli.js"));
    expect(runner.map((c) => c.argv[1])).toEqual(["refresh", "up", "destroy", "rm"]);
    expect(run.world.commandLines("pulumi")).toContain(`pulumi stack export --stack acme/pr-environment/${STACK} --non-interactive`);
  });
});

describe("stack names are unique per repository and prefix, and the sweep keeps to its own", () => {
  it("names the stacks with the prefix and the repository's id, the same way in both workflows", async () => {
    expect(deployFlow.env.STACK).toBe("${{ inputs.stack-prefix }}${{ github.event.pull_request.number }}-r${{ github.repository_id }}");
    expect(sweepFlow.jobs.destroy!.env!.STACK).toBe("${{ inputs.stack-prefix }}${{ matrix.pr }}-r${{ github.repository_id }}");
    expect(sweepFlow.env.REPOSITORY_ID).toBe("${{ github.repository_id }}");
    expect(jobRun(deployFlow, "deploy", pullRequest()).stepEnv({}).STACK).toBe(STACK);
    expect(jobRun(deployFlow, "deploy", pullRequest({ inputs: { "stack-prefix": "review-" } })).stepEnv({}).STACK).toBe("review-7-r111");
    expect(jobRun(sweepFlow, "destroy", sweep({ pr: "7" })).stepEnv({}).STACK).toBe(STACK);
  });

  it("the sweep picks only this repository's stale stacks of its prefix and project; another repository's are never looked at", async () => {
    const recent = new Date().toISOString();
    const old = new Date(Date.now() - 30 * 86400_000).toISOString();
    const stacks = [
      { name: "acme/pr-environment/pr-5-r111", lastUpdate: recent }, // closed pull request: stale
      { name: "acme/pr-environment/pr-6-r222", lastUpdate: old }, // another repository's: not ours
      { name: "acme/pr-environment/pr-6", lastUpdate: old }, // no repository id: not ours
      { name: "acme/pr-environment/pr-8-r111", lastUpdate: old }, // open but older than the TTL: stale
      { name: "acme/pr-environment/pr-9-r111", lastUpdate: recent }, // open and fresh: kept
      { name: "acme/pr-environment/pr-10-r1112", lastUpdate: old }, // an id that only starts like ours
      { name: "acme/pr-environment/pr-11-r111", lastUpdate: old }, // its pull request cannot be read: kept
      { name: "acme/pr-environment/pr-12-r111", lastUpdate: recent }, // merged: stale
      { name: "acme/pr-environment/review-13-r111", lastUpdate: old }, // another prefix: not ours
      { name: "acme/other/pr-14-r111", lastUpdate: old }, // another project: not ours
      { name: "acme/other/main", lastUpdate: old },
    ];
    const run = jobRun(sweepFlow, "find", sweep(), { stacks, prStates: { "5": "CLOSED", "6": "CLOSED", "8": "OPEN", "9": "OPEN", "10": "CLOSED", "12": "MERGED", "13": "CLOSED", "14": "CLOSED" } });
    const r = await run.step(/^List this repository's stacks/);
    expect(r.code, r.out).toBe(0);
    expect(r.outputs).toEqual({ prs: '["5","8","12"]' });
    expect(r.out).toContain("::warning::acme/pr-environment/pr-11-r111: cannot read pull request #11; left alone");
    const asked = run.world.calls("gh").map((c) => c.argv[2]);
    expect(asked.sort()).toEqual(["11", "12", "5", "8", "9"]);
    // The same stacks with the prefix review-: only that one.
    const other = jobRun(sweepFlow, "find", sweep({ inputs: { "stack-prefix": "review-" } }), { stacks, prStates: { "13": "CLOSED" } });
    expect((await other.step(/^List this repository's stacks/)).outputs).toEqual({ prs: '["13"]' });
  });

  it("the sweep's destroy jobs run for the stale pull requests it found, and none on a dry run or when none is stale", async () => {
    const destroyRuns = (prs: string, inputs?: Record<string, string | boolean>) => jobRun(sweepFlow, "destroy", sweep({ prs, inputs })).jobRuns();
    expect(destroyRuns('["5","8"]')).toBe(true);
    expect(destroyRuns("[]")).toBe(false);
    expect(destroyRuns('["5"]', { "dry-run": true })).toBe(false);
    expect(destroyRuns('["5"]', { "dry-run": false })).toBe(true);
  });

  it("a destroy job checks again when its turn comes: gone, reopened or updated meanwhile is left alone", async () => {
    const recent = new Date().toISOString();
    const old = new Date(Date.now() - 30 * 86400_000).toISOString();
    const recheck = async (stacks: WorldSetup["stacks"], state: string) => {
      const run = jobRun(sweepFlow, "destroy", sweep({ pr: "7" }), { stacks, prStates: { "7": state } });
      const r = await run.step("Still stale?");
      expect(r.code, r.out).toBe(0);
      return { stale: r.outputs.stale, gh: run.world.calls("gh").length };
    };
    expect(await recheck([], "CLOSED")).toEqual({ stale: "false", gh: 0 });
    expect(await recheck([{ name: `acme/pr-environment/${STACK}`, lastUpdate: recent }], "CLOSED")).toEqual({ stale: "true", gh: 1 });
    expect(await recheck([{ name: `acme/pr-environment/${STACK}`, lastUpdate: recent }], "MERGED")).toEqual({ stale: "true", gh: 1 });
    expect(await recheck([{ name: `acme/pr-environment/${STACK}`, lastUpdate: old }], "OPEN")).toEqual({ stale: "true", gh: 1 });
    expect(await recheck([{ name: `acme/pr-environment/${STACK}`, lastUpdate: recent }], "OPEN")).toEqual({ stale: "false", gh: 1 });
    expect(await recheck([{ name: `acme/pr-environment/${STACK}` }], "OPEN")).toEqual({ stale: "false", gh: 1 });
    // Another repository's stack of the same number does not count.
    expect(await recheck([{ name: "acme/pr-environment/pr-7-r222", lastUpdate: old }], "CLOSED")).toEqual({ stale: "false", gh: 0 });
  });

  it("a sweep's destroy job: recover, destroy and remove through the runner, check gone; a stack found fresh again is left alone", async () => {
    const old = new Date(Date.now() - 30 * 86400_000).toISOString();
    const stale = jobRun(sweepFlow, "destroy", sweep({ pr: "7" }), { stacks: [{ name: `acme/pr-environment/${STACK}`, lastUpdate: old }], prStates: { "7": "OPEN" } });
    const results = await stale.all();
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    const runner = stale.world.calls("node").filter((c) => c.argv[0]!.endsWith("cli.js"));
    expect(runner.map((c) => c.argv[1])).toEqual(["refresh", "destroy", "rm"]);
    expect(results.find((r) => r.step.name === "pulumi destroy and stack rm")!.env[ENV_IDEMPOTENCY_SECRET]).toBe(SECRETS.REMOTE_BROWSER_IDEMPOTENCY_SECRET);
    expect(stale.world.stacks()).toEqual([]);
    noSecretInArgumentsOf(stale.world);

    const fresh = jobRun(sweepFlow, "destroy", sweep({ pr: "7" }), { stacks: [{ name: `acme/pr-environment/${STACK}`, lastUpdate: new Date().toISOString() }], prStates: { "7": "OPEN" } });
    const kept = await fresh.all();
    expect(kept.filter((r) => r.code !== 0)).toEqual([]);
    expect(kept.filter((r) => !r.ran).map((r) => r.step.name ?? r.step.uses)).toEqual([
      "Download the provider package built by the caller",
      "Recover a lock left by a killed run",
      "pulumi destroy and stack rm",
      "Check that the stack is gone",
    ]);
    expect(fresh.world.calls("node").filter((c) => c.argv[0]!.endsWith("cli.js"))).toEqual([]);
  });
});

function noSecretInArgumentsOf(world: World) {
  const values = [...Object.values(SECRETS), REPOSITORY.token].filter(Boolean);
  for (const c of world.calls()) for (const v of values) expect([c.cmd, ...c.argv].join(" ")).not.toContain(v);
}

describe("the sweep's inputs are checked before use", () => {
  it.each([
    ["find", "find"],
    ["destroy", "destroy"],
    ["audit", "audit"],
  ])("%s: takes a whole number of days and of minutes and nothing else, without evaluating them", async (_label, jobId) => {
    const check = async (inputs: Record<string, string>) => {
      const run = jobRun(sweepFlow, jobId, sweep({ pr: "7", inputs }));
      return { r: await run.step("Check the inputs"), run };
    };
    for (const ttl of ["1", "7", "30", "9999"]) expect((await check({ "ttl-days": ttl })).r.out).toContain(`TTL: ${ttl} days`);
    for (const ttl of ["0", "-1", "abc", "1.5", "1e3", "10000", "7 ", "", "a[$(touch pwned)]", "$(touch pwned)"]) {
      const { r, run } = await check({ "ttl-days": ttl });
      expect(r.code, ttl).not.toBe(0);
      expect(r.out).toContain("::error::input ttl-days must be a whole number of days from 1 to 9999");
      expect(r.out).not.toContain("pwned");
      expect(fs.readdirSync(run.workspace, { recursive: true, encoding: "utf8" }).some((f) => f.endsWith("pwned"))).toBe(false);
    }
    for (const minutes of ["-1", "1.5", "$(touch pwned)", "60 --project x", ""]) {
      const { r } = await check({ "orphan-minutes": minutes });
      expect(r.code, minutes).not.toBe(0);
      expect(r.out).toContain("::error::input orphan-minutes must be a whole number of minutes");
    }
    const { r } = await check({ "stack-prefix": "pr-.*" });
    expect(r.out).toContain("::error::input stack-prefix must start with a letter");
  });

  it("runs first in every sweep job that does arithmetic with the TTL or hands the threshold to the audit", async () => {
    for (const [name, job] of Object.entries(sweepFlow.jobs)) {
      const uses = job.steps.findIndex((s) => /TTL_DAYS \*|--orphan-minutes "\$ORPHAN_MINUTES"/.test(s.run ?? ""));
      if (uses < 0) continue;
      const checked = job.steps.findIndex((s) => s.name === "Check the inputs");
      expect(checked, name).toBeGreaterThanOrEqual(0);
      expect(checked, name).toBeLessThan(uses);
    }
    expect(sweepFlow.jobs.find!.steps.some((s) => /TTL_DAYS \*/.test(s.run ?? ""))).toBe(true);
    expect(sweepFlow.jobs.destroy!.steps.some((s) => /TTL_DAYS \*/.test(s.run ?? ""))).toBe(true);
    expect(sweepFlow.jobs.audit!.steps.some((s) => /--orphan-minutes "\$ORPHAN_MINUTES"/.test(s.run ?? ""))).toBe(true);
  });

  it("this repository's sweep hands its variables and the manual run's inputs to the reusable one", () => {
    const call = ownSweepFlow.jobs.sweep as unknown as { uses: string; with: Record<string, string> };
    expect(call.uses).toBe("./.github/workflows/review-sessions-sweep.yml");
    expect(call.with["ttl-days"]).toBe("${{ inputs.ttl-days || vars.PR_ENVIRONMENT_TTL_DAYS || '7' }}");
    expect(call.with["orphan-minutes"]).toBe("${{ vars.REMOTE_BROWSER_ORPHAN_MINUTES || '60' }}");
  });
});

describe("a lock left by a killed run is recovered by the next run", () => {
  const cases: Array<[string, string, Workflow, string, Contexts]> = [
    ["deploy", "up", deployFlow, "deploy", pullRequest()],
    ["close", "destroy", deployFlow, "close", pullRequest({ action: "closed" })],
    ["sweep destroy", "destroy", sweepFlow, "destroy", sweep({ pr: "7" })],
  ];

  it.each(cases)("%s: releases the stack's lock and settles its pending creates before its %s", async (_label, command, flow, jobId, ctx) => {
    const job = flow.jobs[jobId]!;
    const recover = findStep(job, "Recover a lock left by a killed run");
    expect(indexOf(job, recover)).toBeLessThan(job.steps.findIndex((s) => new RegExp(`cli\\.js ${command}\\b`).test(s.run ?? "")));
    expect(indexOf(job, recover)).toBeGreaterThan(indexOf(job, findStep(job, "Check the state backend settings")));
    const run = jobRun(flow, jobId, ctx, { stacks: listed(STACK), pendingCreates: 1 });
    const r = await run.step(recover);
    expect(r.code, r.out).toBe(0);
    expect(run.world.commandLines("node")).toEqual([`${RUNNER} refresh --clear-pending-creates --stack ${STACK} --project pr-environment --backend-env PULUMI_BACKEND_URL --quiet`]);
    // Pulumi Cloud: the runner is pointed at it when no self-managed backend is set.
    const cloud = jobRun(flow, jobId, contextsFor(flow, { secrets: { PULUMI_BACKEND_URL: "", PULUMI_ACCESS_TOKEN: "pul-token" } }), { stacks: listed(STACK) });
    expect((await cloud.step(recover)).code).toBe(0);
  });

  it("does not touch a stack that does not exist yet", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest(), { stacks: [] });
    const r = await run.step("Recover a lock left by a killed run");
    expect(r.code, r.out).toBe(0);
    expect(r.outputs).toEqual({ "pending-creates": "0" });
    expect(run.world.calls("node")).toEqual([]);
  });

  it("one concurrency group per pull request and prefix for deploy, close and the sweep's destroy, never cancelled, every run queued", () => {
    const groups = [deployFlow.jobs.deploy!, deployFlow.jobs.close!, sweepFlow.jobs.destroy!].map((j) => (j as Job & { concurrency?: Record<string, unknown> }).concurrency!);
    for (const g of groups) expect(g).toMatchObject({ "cancel-in-progress": false, queue: "max" });
    expect(groups.map((g) => String(g.group).replace("matrix.pr", "github.event.pull_request.number"))).toEqual(
      Array(3).fill("review-sessions-${{ inputs.stack-prefix }}${{ github.event.pull_request.number }}"),
    );
    // This repository's callers add no group of their own that a called job would wait on.
    for (const flow of [ownFlow, ownSweepFlow]) expect(parse(fs.readFileSync(path.join(root, ".github", "workflows", flow.file), "utf8")).concurrency).toBeUndefined();
  });
});

describe("the sweep audits the account after its destroys", () => {
  const TABLE = "vm-********a1b2  Microsoft Edge  running  3h10m  NONE\nheld by none: 1 (1 older than 60 min)\n";

  it("runs after the destroy jobs whichever way they went, also on a dry run, once the find job succeeded", async () => {
    const job = sweepFlow.jobs.audit!;
    expect((job as Job & { needs?: string[] }).needs).toEqual(["find", "destroy"]);
    const runs = (find: string, destroy: string, inputs?: Record<string, string | boolean>) =>
      jobRun(sweepFlow, "audit", { ...sweep({ inputs }), needs: { find: { result: find, outputs: { prs: "[]" } }, destroy: { result: destroy } } }).jobRuns();
    expect(runs("success", "success")).toBe(true);
    expect(runs("success", "failure")).toBe(true);
    expect(runs("success", "skipped")).toBe(true);
    expect(runs("success", "skipped", { "dry-run": true })).toBe(true);
    expect(runs("failure", "skipped")).toBe(false);
  });

  it("checks the backend settings before it reads any stack, and installs without secrets", async () => {
    const job = sweepFlow.jobs.audit!;
    expect(indexOf(job, findStep(job, "Check the state backend settings"))).toBeLessThan(indexOf(job, findStep(job, "Audit the account")));
    const run = jobRun(sweepFlow, "audit", sweep());
    const install = await run.step("Install the provider");
    expect(install.code, install.out).toBe(0);
    for (const value of [...Object.values(SECRETS), REPOSITORY.token].filter(Boolean)) {
      expect(Object.values(install.env).join("\n")).not.toContain(value);
    }
    expect((await run.step("Check the state backend settings")).code).toBe(0);
  });

  it("prints the audit's table, and fails naming the threshold when a session held by none is too old", async () => {
    const run = jobRun(sweepFlow, "audit", sweep(), { audit: { out: TABLE, code: 3 } });
    const r = await run.step("Audit the account");
    expect(r.code).toBe(3);
    expect(r.out).toContain(TABLE);
    expect(r.out).toContain("::error::Sessions that no stack holds have run for more than 60 minutes");
    expect(run.world.commandLines("node")).toEqual([`${RUNNER} audit --orphan-minutes 60`]);
    // Secrets reach the audit through its environment only: the key, the backend URL, the passphrase.
    expect(r.env.REMOTE_BROWSER_API_KEY).toBe(SECRETS.REMOTE_BROWSER_API_KEY);
    expect(r.env.PULUMI_BACKEND_URL).toBe(SECRETS.PULUMI_BACKEND_URL);
    expect(r.env.PULUMI_CONFIG_PASSPHRASE).toBe(SECRETS.PULUMI_CONFIG_PASSPHRASE);
    expect(r.env.REMOTE_BROWSER_BASE_URL).toBe(SERVICE_URL);
    noSecretInArgumentsOf(run.world);
  });

  it("passes when nothing is held by none, and passes on any other failure of the audit as itself", async () => {
    const clean = await jobRun(sweepFlow, "audit", sweep(), { audit: { out: "held by none: 0 (0 older than 60 min)\n", code: 0 } }).step("Audit the account");
    expect(clean.code, clean.out).toBe(0);
    expect(clean.out).not.toContain("::error::");
    const broken = await jobRun(sweepFlow, "audit", sweep(), { audit: { out: "error: pulumi stack ls failed: unreachable\n", code: 1 } }).step("Audit the account");
    expect(broken.code).toBe(1);
    expect(broken.out).not.toContain("::error::Sessions that no stack holds");
  });

  it("takes the threshold from its input", async () => {
    const ok = jobRun(sweepFlow, "audit", sweep({ inputs: { "orphan-minutes": "1440" } }), { audit: { out: "", code: 0 } });
    expect((await ok.step("Audit the account")).code).toBe(0);
    expect(ok.world.commandLines("node")).toEqual([`${RUNNER} audit --orphan-minutes 1440`]);
  });

  it("reads the stacks of Pulumi Cloud when no self-managed backend is set", async () => {
    const run = jobRun(sweepFlow, "audit", sweep({ secrets: { PULUMI_BACKEND_URL: "", PULUMI_ACCESS_TOKEN: "pul-token" } }), { audit: { out: "", code: 0 } });
    const r = await run.step("Audit the account");
    expect(r.code, r.out).toBe(0);
    expect(run.world.calls("node")).toHaveLength(1);
  });
});

describe("what a user writes: the example workflow, and this repository's own callers", () => {
  const exampleFile = path.join(root, "examples", "review-sessions", "review-sessions.yml");
  const example = fs.readFileSync(exampleFile, "utf8");

  it("is at most 25 lines, the folder holds only it, and docs/per-pull-request.md shows exactly that file", () => {
    expect(example.trimEnd().split("\n").length).toBeLessThanOrEqual(25);
    expect(fs.readdirSync(path.dirname(exampleFile))).toEqual(["review-sessions.yml"]);
    const doc = fs.readFileSync(path.join(root, "docs", "per-pull-request.md"), "utf8");
    const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(example);
  });

  it("gives every required input and secret, and only ones the reusable workflows declare", () => {
    const user = parse(example) as { jobs: Record<string, { uses: string; with?: Record<string, unknown>; secrets?: Record<string, unknown> }> };
    const own = [ownFlow, ownSweepFlow]
      .flatMap((f) =>
        Object.values(
          parse(fs.readFileSync(path.join(root, ".github", "workflows", f.file), "utf8")).jobs as Record<string, { uses?: string; with?: Record<string, unknown>; secrets?: Record<string, unknown> }>,
        ),
      )
      .filter((j) => j.uses);
    const callers = [...Object.values(user.jobs), ...own];
    expect(own.map((j) => j.uses)).toEqual(["./.github/workflows/review-sessions.yml", "./.github/workflows/review-sessions-sweep.yml"]);
    for (const call of callers) {
      const file = call.uses!.replace(/^(remote-browser\/pulumi-remote-browser\/|\.\/)/, "").replace(/@v\d+$/, "");
      const declared = (
        parse(fs.readFileSync(path.join(root, file), "utf8")) as { on: { workflow_call: { inputs: Record<string, { required?: boolean }>; secrets: Record<string, { required?: boolean }> } } }
      ).on.workflow_call;
      for (const [kind, given] of [
        ["inputs", call.with ?? {}],
        ["secrets", call.secrets ?? {}],
      ] as const) {
        const table = declared[kind];
        for (const name of Object.keys(given)) expect(Object.keys(table), `${call.uses} ${kind} ${name}`).toContain(name);
        for (const [name, spec] of Object.entries(table)) if (spec.required) expect(Object.keys(given), `${call.uses} needs ${name}`).toContain(name);
      }
    }
  });
});

// Last: the tests above run in order in this file, and this one reads what they ran.
describe("coverage of the workflows' scripts", () => {
  it("every `run:` step of the four workflows was executed by a test in this file", async () => {
    const steps = runSteps(deployFlow, sweepFlow, ...[ownFlow, ownSweepFlow].map((f) => ({ ...f, jobs: { package: f.jobs.package! } })));
    expect(steps.length).toBeGreaterThan(25);
    expect(steps.filter((s) => !s.executed).map((s) => `${s.key} ${s.name}`)).toEqual([]);
  });
});
