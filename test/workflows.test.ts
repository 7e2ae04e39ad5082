import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_IDEMPOTENCY_SECRET, MAX_SETTING_LENGTH, MIN_IDEMPOTENCY_SECRET_LENGTH, loadConfig } from "../core/config";

import type { Contexts } from "./helpers/github-expressions";
import type { Job, Step, Workflow, WorldSetup } from "./helpers/workflow-runner";
import { JobRun, World, findStep, loadWorkflow, runSteps } from "./helpers/workflow-runner";
import { runStatus } from "../release/run";

/**
 * The per-pull-request workflows, read as GitHub reads them (YAML, anchors resolved), and their `run:`
 * steps run as the runner runs them (test/helpers/workflow-runner.ts): the workflow's own shell, env and
 * expressions, against stand-ins for `pulumi`, `gh`, `npm`, `node` and `openssl` that answer as the real
 * ones do and record how they were called. Every `run:` step of both workflows is run by some test here
 * (the last test checks that).
 */
const deployFlow = loadWorkflow("pr-environment.yml");
const sweepFlow = loadWorkflow("pr-environment-sweep.yml");

const indexOf = (job: Job, s: Step) => job.steps.indexOf(s);
/** The first step that talks to the backend: the Pulumi action with a command, or a script calling `pulumi`. */
const firstPulumiStep = (job: Job) =>
  job.steps.findIndex((s) => (s.uses?.startsWith("pulumi/actions") && s.with?.command) || /(^|\s|\()pulumi\s/m.test(s.run ?? ""));
const pulumiCommandStep = (job: Job, command: string) => job.steps.findIndex((s) => s.uses?.startsWith("pulumi/actions") && s.with?.command === command);

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
const REPOSITORY = { repository: "acme/webapp", repository_id: 111, token: "ghs_job_token_9f3b" };
const STACK = "pr-7-r111";
const LINKS = { chrome: "https://share.example.test/en/s?lnk_chrome_8d1f", edge: "https://share.example.test/en/s?lnk_edge_42ab" };
const REVIEWERS = `2 sessions (chrome, edge); links: pulumi stack output shareUrls --show-secrets --stack ${STACK}`;

interface PullRequestCase {
  action?: string;
  private?: boolean;
  fork?: boolean;
  secrets?: Record<string, string>;
  vars?: Record<string, string>;
}
/** The contexts of a `pull_request` event for pull request #7 of acme/webapp. */
function pullRequest(c: PullRequestCase = {}): Contexts {
  return {
    github: {
      ...REPOSITORY,
      event_name: "pull_request",
      event: {
        action: c.action ?? "synchronize",
        repository: { private: c.private ?? true, full_name: REPOSITORY.repository },
        pull_request: {
          number: 7,
          html_url: "https://github.com/acme/webapp/pull/7",
          head: { sha: "0123456789abcdef0123456789abcdef01234567", repo: { full_name: c.fork ? "mallory/webapp" : REPOSITORY.repository } },
        },
      },
    },
    secrets: { ...SECRETS, ...c.secrets },
    vars: c.vars ?? {},
  };
}
/** The contexts of the scheduled sweep; `pr` sets the destroy job's matrix. */
function sweep(c: { pr?: string; inputs?: Record<string, string | boolean>; vars?: Record<string, string>; secrets?: Record<string, string>; prs?: string } = {}): Contexts {
  return {
    github: { ...REPOSITORY, event_name: c.inputs ? "workflow_dispatch" : "schedule", event: {} },
    secrets: { ...SECRETS, ...c.secrets },
    vars: c.vars ?? {},
    inputs: c.inputs ?? {},
    matrix: c.pr ? { pr: c.pr } : {},
    needs: c.prs ? { find: { outputs: { prs: c.prs } } } : {},
  };
}

let runs = 0;
function jobRun(flow: Workflow, jobId: string, ctx: Contexts, setup: WorldSetup = {}): JobRun {
  const dir = path.join(work, `run-${++runs}`);
  const run = new JobRun(flow, jobId, ctx, new World(path.join(dir, "world"), setup), dir);
  // What actions/checkout leaves: the folders the steps work in.
  fs.mkdirSync(path.join(run.workspace, "examples", "pr-environment"), { recursive: true });
  return run;
}
const listed = (...names: string[]) => names.map((name) => ({ name: `acme/pr-environment/${name}` }));

/** Every job, by label, for tests of a step all of them share. */
const allJobs: Array<[string, Workflow, string]> = [
  ["pr-environment.yml deploy", deployFlow, "deploy"],
  ["pr-environment.yml cleanup", deployFlow, "cleanup"],
  ["pr-environment-sweep.yml find", sweepFlow, "find"],
  ["pr-environment-sweep.yml destroy", sweepFlow, "destroy"],
];
const contextsFor = (flow: Workflow, extra: { secrets?: Record<string, string> } = {}) =>
  flow === deployFlow ? pullRequest({ secrets: extra.secrets }) : sweep({ pr: "7", secrets: extra.secrets });
/** Every job that hands the stack's passphrase to a step, i.e. that reads or writes the stack's secrets. */
const jobsWithSecrets = allJobs.filter(([label]) => !label.endsWith("find"));

describe("the workflows refuse a self-managed backend without a passphrase", () => {
  it("every job that handles the stack's secrets checks the backend settings before it talks to the backend", async () => {
    for (const [label, flow, jobId] of allJobs) {
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
      expect(flow.jobs[jobId]!.steps.some((s) => s.env?.PULUMI_CONFIG_PASSPHRASE), label).toBe(true);
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
    const providerSteps = [deployFlow, sweepFlow].flatMap((flow) =>
      Object.values(flow.jobs).flatMap((job) => job.steps.filter((s) => s.uses?.startsWith("pulumi/actions") && s.with?.command)),
    );
    expect(providerSteps.map((s) => s.with!.command)).toEqual(["up", "destroy", "destroy"]);
    for (const s of providerSteps) expect(s.env, s.name).toMatchObject(secretEnv);
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
    const ctx = flow === deployFlow ? pullRequest({ action: jobId === "cleanup" ? "closed" : "opened", secrets: { REMOTE_BROWSER_IDEMPOTENCY_SECRET: "" } }) : sweep({ pr: "7", prs: '["7"]', secrets: { REMOTE_BROWSER_IDEMPOTENCY_SECRET: "" } });
    const run = jobRun(flow, jobId, ctx, { stacks: listed(STACK), prStates: { "7": "CLOSED" } });
    const actions: string[] = [];
    const results = await run.all((step) => {
      actions.push(step.name ?? step.uses ?? "");
    });
    expect(results[0]!.code).not.toBe(0);
    expect(results.slice(1).filter((r) => r.ran).map((r) => r.step.name)).toEqual(jobId === "deploy" ? ["Remove the plain links from the runner"] : []);
    expect(actions).toEqual([]);
    expect(run.world.calls()).toEqual([]);
  });
});

describe("secrets reach the steps through their environment only", () => {
  it("no action input and no script text holds an expression: an action may put its inputs on a command line, and a script's text is code", async () => {
    let steps = 0;
    for (const flow of [deployFlow, sweepFlow]) {
      for (const job of Object.values(flow.jobs)) {
        for (const s of job.steps) {
          steps++;
          // e.g. pulumi/actions' cloud-url runs `pulumi login <url>`, and a backend URL may hold a password.
          expect(JSON.stringify(s.with ?? {}), s.name ?? s.uses).not.toMatch(/secrets\./);
          // A value expanded into a script is run as code: a branch name or title would be script injection.
          expect(s.run ?? "", s.name).not.toMatch(/\$\{\{/);
        }
      }
    }
    expect(steps).toBeGreaterThan(20);
    // The backend is still given to the Pulumi steps, through PULUMI_BACKEND_URL.
    for (const [label, flow, jobId] of jobsWithSecrets) {
      for (const s of flow.jobs[jobId]!.steps.filter((x) => x.uses?.startsWith("pulumi/actions") && x.with?.command)) {
        expect(s.env?.PULUMI_BACKEND_URL, label).toBe("${{ secrets.PULUMI_BACKEND_URL }}");
      }
    }
  });

  it.each(jobsWithSecrets)("%s: the package install and build, which run the pull request's code, get no secret", async (_label, flow, jobId) => {
    const run = jobRun(flow, jobId, contextsFor(flow, { secrets: { SHARE_LINKS_PASSPHRASE: "links-passphrase-0b7e" } }));
    const build = findStep(flow.jobs[jobId]!, /^Build the package/);
    const env = run.stepEnv(build);
    const secretValues = [...Object.values(SECRETS), "links-passphrase-0b7e", REPOSITORY.token].filter(Boolean);
    for (const value of secretValues) expect(Object.values(env).join("\n")).not.toContain(value);
    // Not vacuous: the step after `up`/`destroy` that reads the stack does get the passphrase.
    expect(Object.values(run.stepEnv(findStep(flow.jobs[jobId]!, /^Check that the stack is gone|^Read and mask/))).join("\n")).toContain(SECRETS.PULUMI_CONFIG_PASSPHRASE);
  });
});

describe("every script runs with pipefail, as the team's scripts assume", () => {
  it("a step without `shell:` would get `bash -e` only: both workflows set bash for every run step", async () => {
    for (const flow of [deployFlow, sweepFlow]) {
      for (const [jobId, job] of Object.entries(flow.jobs)) {
        for (const s of job.steps.filter((x) => x.run !== undefined)) {
          expect(s.shell ?? job.defaults?.run?.shell ?? flow.defaults?.run?.shell, `${flow.file} ${jobId} ${s.name}`).toBe("bash");
        }
      }
    }
  });

  it.each(jobsWithSecrets)("%s: a failed `npm pack` stops the build instead of installing an empty tarball path", async (_label, flow, jobId) => {
    const run = jobRun(flow, jobId, contextsFor(flow), { npmPackError: "npm error code E403" });
    const r = await run.step(/^Build the package/);
    expect(r.code, r.out).not.toBe(0);
    expect(run.world.commandLines("npm").some((l) => l.startsWith("npm install"))).toBe(false);
  });
});

describe("the package is built, packed and installed into the example as a user's project installs it", () => {
  it.each(jobsWithSecrets)("%s", async (_label, flow, jobId) => {
    const run = jobRun(flow, jobId, contextsFor(flow));
    const r = await run.step(/^Build the package/);
    expect(r.code, r.out).toBe(0);
    const calls = run.world.calls().filter((c) => c.cmd === "npm" || c.cmd === "node");
    expect(calls.map((c) => [c.cmd, ...c.argv].join(" "))).toEqual([
      "npm ci --ignore-scripts --no-audit --no-fund",
      "npm run build",
      `npm pack --silent --pack-destination ${run.temp}`,
      'node -p require("@pulumi/pulumi/package.json").version',
      `npm install --no-save --ignore-scripts --no-audit --no-fund ${run.temp}/pulumi-remote-browser-0.0.0-test.tgz @pulumi/pulumi@3.248.0`,
    ]);
    expect(calls.at(-1)!.cwd).toBe(path.join(run.workspace, "examples/pr-environment"));
    expect(calls[0]!.cwd).toBe(run.workspace);
  });
});

describe("the deploy job's settings: preview address and the stack's config map", () => {
  const deploy = deployFlow.jobs.deploy!;

  it("the preview address comes from the template, or the default one", async () => {
    const byDefault = await jobRun(deployFlow, "deploy", pullRequest()).step("Preview address");
    expect(byDefault.code, byDefault.out).toBe(0);
    expect(byDefault.outputs).toEqual({ url: "https://pr-7.preview.example.com/" });
    const templated = await jobRun(deployFlow, "deploy", pullRequest({ vars: { PREVIEW_URL_TEMPLATE: "https://preview.acme.test/{number}/?pr={number}" } })).step("Preview address");
    expect(templated.outputs).toEqual({ url: "https://preview.acme.test/7/?pr=7" });
  });

  it("maps every setting to its config key, the optional ones only when set", async () => {
    const vars = { PREVIEW_URL_TEMPLATE: "https://pr-{number}.acme.test/", REVIEW_BROWSERS: "chrome,edge", WAIT_FOR_CAPACITY_SECONDS: "900" };
    const run = jobRun(deployFlow, "deploy", pullRequest({ vars }));
    expect((await run.step("Preview address")).code).toBe(0);
    const r = await run.step("Stack settings");
    expect(r.code, r.out).toBe(0);
    expect(Object.keys(r.outputs)).toEqual(["config-map"]);
    expect(JSON.parse(r.outputs["config-map"]!)).toEqual({
      prNumber: { value: "7", secret: false },
      previewUrl: { value: "https://pr-7.acme.test/", secret: false },
      pullRequestUrl: { value: "https://github.com/acme/webapp/pull/7", secret: false },
      browsers: { value: "chrome,edge", secret: false },
      waitForCapacitySeconds: { value: "900", secret: false },
    });

    const bare = jobRun(deployFlow, "deploy", pullRequest());
    await bare.step("Preview address");
    expect(JSON.parse((await bare.step("Stack settings")).outputs["config-map"]!)).toEqual({
      prNumber: { value: "7", secret: false },
      previewUrl: { value: "https://pr-7.preview.example.com/", secret: false },
      pullRequestUrl: { value: "https://github.com/acme/webapp/pull/7", secret: false },
    });
    // A wait of 0 is a setting too, not an unset one.
    const zero = jobRun(deployFlow, "deploy", pullRequest({ vars: { WAIT_FOR_CAPACITY_SECONDS: "0" } }));
    await zero.step("Preview address");
    expect(JSON.parse((await zero.step("Stack settings")).outputs["config-map"]!).waitForCapacitySeconds).toEqual({ value: "0", secret: false });
  });

  it("quotes what it is given: a browser list with YAML or shell syntax stays one string", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ vars: { REVIEW_BROWSERS: `chrome", "x": {"value": "$(touch pwned)` } }));
    await run.step("Preview address");
    const r = await run.step("Stack settings");
    expect(r.code, r.out).toBe(0);
    expect(JSON.parse(r.outputs["config-map"]!).browsers).toEqual({ value: `chrome", "x": {"value": "$(touch pwned)`, secret: false });
    expect(fs.readdirSync(run.workspace)).not.toContain("pwned");
  });

  it("is longer than the longest capacity wait plus preparation, build and engine", async () => {
    // WAIT_FOR_CAPACITY_SECONDS goes up to 3600 s; the rest of the job needs a good 10 minutes more.
    expect(deploy["timeout-minutes"]! * 60).toBeGreaterThanOrEqual(3600 + 20 * 60);
  });

  it("refuses a capacity wait the timeout does not cover, or that is not a number, before anything starts", async () => {
    for (const wait of ["3601", "86400", "-1", "abc", "1e3", "$(touch pwned)", "10 "]) {
      const run = jobRun(deployFlow, "deploy", pullRequest({ vars: { WAIT_FOR_CAPACITY_SECONDS: wait } }));
      await run.step("Preview address");
      const r = await run.step("Stack settings");
      expect(r.code, wait).not.toBe(0);
      expect(r.out).toContain("::error::vars.WAIT_FOR_CAPACITY_SECONDS must be a whole number of seconds from 0 to 3600");
      expect(r.outputs).toEqual({});
    }
    for (const wait of ["", "0", "900", "3600"]) {
      const run = jobRun(deployFlow, "deploy", pullRequest({ vars: { WAIT_FOR_CAPACITY_SECONDS: wait } }));
      await run.step("Preview address");
      const r = await run.step("Stack settings");
      expect(r.code, `${wait}: ${r.out}`).toBe(0);
      expect(JSON.parse(r.outputs["config-map"]!).waitForCapacitySeconds?.value).toBe(wait === "" ? undefined : wait);
    }
  });
});

describe("the share links reach reviewers without showing in the log", () => {
  const deployed: WorldSetup = { stacks: listed(STACK), outputs: { shareUrls: LINKS, reviewers: REVIEWERS }, secretOutputs: ["shareUrls"] };

  it("masks every link and its link id before anything else reads them, and keeps them in a file only the job's user reads", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest(), deployed);
    const r = await run.step("Read and mask the share links");
    expect(r.code, r.out).toBe(0);
    expect(r.masks).toEqual([LINKS.chrome, "lnk_chrome_8d1f", LINKS.edge, "lnk_edge_42ab"]);
    const shown = r.out.split("\n").filter((l) => !l.startsWith("::add-mask::"));
    for (const secret of ["lnk_chrome_8d1f", "lnk_edge_42ab"]) expect(shown.join("\n")).not.toContain(secret);
    const file = path.join(run.temp, "share-links.json");
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual(LINKS);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(run.temp, "reviewers.txt"), "utf8")).toBe(`${REVIEWERS}\n`);
    expect(run.world.commandLines("pulumi")).toEqual([
      `pulumi stack output shareUrls --show-secrets --json --stack ${STACK} --non-interactive`,
      `pulumi stack output reviewers --stack ${STACK} --non-interactive`,
    ]);
    expect(run.world.calls("pulumi").every((c) => c.cwd === path.join(run.workspace, "examples/pr-environment"))).toBe(true);
  });

  it("private repository: one comment with the links, edited on the next push instead of a second one", async () => {
    const someoneElse = { id: 5, user: { login: "octocat" }, body: "<!-- pr-environment --> copied by hand" };
    const run = jobRun(deployFlow, "deploy", pullRequest({ private: true }), { ...deployed, comments: [someoneElse] });
    expect((await run.step("Read and mask the share links")).code).toBe(0);
    const first = await run.step("Comment for reviewers");
    expect(first.code, first.out).toBe(0);
    const [, posted] = run.world.comments();
    expect(posted!.user.login).toBe("github-actions[bot]");
    expect(posted!.body.split("\n")[0]).toBe("<!-- pr-environment -->");
    expect(posted!.body).toContain(`### Review environment \`${STACK}\``);
    expect(posted!.body).toContain(REVIEWERS);
    expect(posted!.body).toContain(`- **chrome**: ${LINKS.chrome}`);
    expect(posted!.body).toContain(`- **edge**: ${LINKS.edge}`);
    expect(posted!.body).toContain("Updated for 0123456.");
    // The API's answer echoes the body: it is not printed.
    expect(first.out).not.toContain("lnk_");

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

  it.each([
    ["without a links passphrase", "", false],
    ["with a links passphrase", "links-passphrase-0b7e", true],
  ])("public repository %s: the comment holds no link, and tells where to read them", async (_label, passphrase, artifact) => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ private: false, secrets: { SHARE_LINKS_PASSPHRASE: passphrase } }), deployed);
    expect((await run.step("Read and mask the share links")).code).toBe(0);
    const r = await run.step("Comment for reviewers");
    expect(r.code, r.out).toBe(0);
    const [comment] = run.world.comments();
    expect(comment!.body).not.toContain("share.example.test");
    expect(comment!.body).not.toContain("lnk_");
    expect(comment!.body).toContain("This repository is public, so the share links are not posted here");
    expect(comment!.body.includes(`share-links-${STACK}`)).toBe(artifact);
    expect(comment!.body).not.toContain(passphrase || "no passphrase to leak");
  });

  it("public repository with a links passphrase: encrypts the links without the passphrase on a command line", async () => {
    const passphrase = "links-passphrase-0b7e";
    const run = jobRun(deployFlow, "deploy", pullRequest({ private: false, secrets: { SHARE_LINKS_PASSPHRASE: passphrase } }), deployed);
    expect((await run.step("Read and mask the share links")).code).toBe(0);
    const r = await run.step("Encrypt the share links (public repository)");
    expect(r.code, r.out).toBe(0);
    expect(r.outputs).toEqual({ done: "true" });
    const encrypted = path.join(run.temp, "encrypted", "share-links.json.enc");
    expect(fs.readFileSync(encrypted, "utf8")).not.toContain("lnk_");
    // The way the comment tells reviewers to decrypt it.
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

  it("public repository without a links passphrase: no artifact", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ private: false }), deployed);
    const r = await run.step("Encrypt the share links (public repository)");
    expect(r.code, r.out).toBe(0);
    expect(r.outputs).toEqual({});
    expect(fs.existsSync(path.join(run.temp, "encrypted"))).toBe(false);
    expect(run.world.calls("openssl")).toEqual([]);
  });

  it("the plain links and the comment's text are removed from the runner at the end, even after a failure", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest(), deployed);
    expect((await run.step("Read and mask the share links")).code).toBe(0);
    expect((await run.step("Comment for reviewers")).code).toBe(0);
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
    const exists = await jobRun(deployFlow, "cleanup", pullRequest({ action: "closed" }), { stacks: listed("pr-6-r111", STACK) }).step("Does the stack exist?");
    expect(exists.code, exists.out).toBe(0);
    expect(exists.outputs).toEqual({ exists: "true" });
    const missing = await jobRun(deployFlow, "cleanup", pullRequest({ action: "closed" }), { stacks: listed("pr-6-r111", "pr-7-r1112") }).step("Does the stack exist?");
    expect(missing.code, missing.out).toBe(0);
    expect(missing.outputs).toEqual({ exists: "false" });
    expect(missing.out).toContain(`Stack ${STACK} does not exist: nothing to destroy.`);
    const broken = await jobRun(deployFlow, "cleanup", pullRequest({ action: "closed" }), { stackLsError: "error: could not reach the backend" }).step("Does the stack exist?");
    expect(broken.code).not.toBe(0);
    expect(broken.outputs).toEqual({});
  });

  const goneChecks: Array<[string, Workflow, string, Contexts]> = [
    ["cleanup", deployFlow, "cleanup", pullRequest({ action: "closed" })],
    ["sweep destroy", sweepFlow, "destroy", sweep({ pr: "7" })],
  ];

  it.each(goneChecks)("%s: a stack the action left behind is removed when empty, and the job fails when it stays", async (_label, flow, jobId, ctx) => {
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
    const ours = { id: 12, user: { login: "github-actions[bot]" }, body: `<!-- pr-environment -->\n- **chrome**: ${LINKS.chrome}` };
    const theirs = { id: 13, user: { login: "octocat" }, body: "<!-- pr-environment --> quoted" };
    const run = jobRun(deployFlow, "cleanup", pullRequest({ action: "closed" }), { comments: [ours, theirs] });
    const r = await run.step("Update the comment for reviewers");
    expect(r.code, r.out).toBe(0);
    const [edited, untouched] = run.world.comments();
    expect(edited!.body).toBe(
      `<!-- pr-environment -->\n### Review environment \`${STACK}\`\n\nThe pull request is closed: its browser sessions have ended and the stack is removed.\n`,
    );
    expect(untouched).toEqual(theirs);

    const none = jobRun(deployFlow, "cleanup", pullRequest({ action: "closed" }), { comments: [theirs] });
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

  it("which job runs: deploy on a push, cleanup on close, neither for a fork's pull request", async () => {
    const runs = (action: string, fork = false) =>
      ["deploy", "cleanup"].filter((jobId) => jobRun(deployFlow, jobId, pullRequest({ action, fork })).jobRuns());
    expect(runs("opened")).toEqual(["deploy"]);
    expect(runs("synchronize")).toEqual(["deploy"]);
    expect(runs("closed")).toEqual(["cleanup"]);
    expect(runs("synchronize", true)).toEqual([]);
    expect(runs("closed", true)).toEqual([]);
  });

  it("deploy, private repository: up with the settings' config map, a comment with the links, nothing left on the runner", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ action: "opened", vars: { WAIT_FOR_CAPACITY_SECONDS: "120" } }));
    let up: Record<string, string> | undefined;
    let upEnv: Record<string, string> = {};
    const results = await run.all((step, inputs, env) => {
      if (inputs.command !== "up") return;
      up = inputs;
      upEnv = env;
      run.world.update({ stacks: listed(STACK), outputs: { shareUrls: LINKS, reviewers: REVIEWERS }, secretOutputs: ["shareUrls"] });
    });
    const failed = results.filter((r) => r.code !== 0);
    expect(failed.map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(results.filter((r) => !r.ran).map((r) => r.step.name)).toEqual(["Encrypt the share links (public repository)", "Upload the encrypted share links"]);
    expect(up).toMatchObject({ "stack-name": STACK, "work-dir": "examples/pr-environment", upsert: "true", refresh: "true", "suppress-outputs": "true" });
    expect(JSON.parse(up!["config-map"]!)).toEqual({
      prNumber: { value: "7", secret: false },
      previewUrl: { value: "https://pr-7.preview.example.com/", secret: false },
      pullRequestUrl: { value: "https://github.com/acme/webapp/pull/7", secret: false },
      waitForCapacitySeconds: { value: "120", secret: false },
    });
    expect(upEnv.REMOTE_BROWSER_API_KEY).toBe(SECRETS.REMOTE_BROWSER_API_KEY);
    expect(upEnv[ENV_IDEMPOTENCY_SECRET]).toBe(SECRETS.REMOTE_BROWSER_IDEMPOTENCY_SECRET);
    expect(run.world.comments()).toHaveLength(1);
    expect(run.world.comments()[0]!.body).toContain(LINKS.edge);
    expect(fs.readdirSync(run.temp).filter((f) => /share-links|comment/.test(f))).toEqual([]);
    noSecretInArguments(run.world);
  });

  it("deploy, public repository with a links passphrase: the links go only into the encrypted artifact", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest({ private: false, secrets: { SHARE_LINKS_PASSPHRASE: "links-passphrase-0b7e" } }), {
      stacks: listed(STACK),
    });
    let uploaded: Record<string, string> | undefined;
    const results = await run.all((step, inputs) => {
      if (inputs.command === "up") run.world.update({ outputs: { shareUrls: LINKS, reviewers: REVIEWERS }, secretOutputs: ["shareUrls"] });
      if (step.uses?.startsWith("actions/upload-artifact")) uploaded = inputs;
    });
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(results.every((r) => r.ran)).toBe(true);
    expect(uploaded).toEqual({ name: `share-links-${STACK}`, path: `${run.temp}/encrypted/share-links.json.enc`, "retention-days": "7" });
    expect(run.world.comments()[0]!.body).not.toContain("lnk_");
    // The existing stack's lock was released before the up.
    expect(run.world.commandLines("pulumi")[0]).toBe(`pulumi stack ls --json --non-interactive`);
    expect(run.world.commandLines("pulumi")[1]).toBe(`pulumi cancel --yes --stack ${STACK} --non-interactive`);
    noSecretInArguments(run.world);
  });

  it("cleanup of a pull request that never deployed: nothing to destroy, and the job succeeds", async () => {
    const run = jobRun(deployFlow, "cleanup", pullRequest({ action: "closed" }), { stacks: listed("pr-8-r111") });
    const actions: string[] = [];
    const results = await run.all((step, inputs) => {
      if (inputs.command) actions.push(inputs.command);
    });
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(actions).toEqual([]);
    expect(results.filter((r) => !r.ran).map((r) => r.step.name)).toEqual([
      "Recover a lock left by a killed run",
      "pulumi destroy and stack rm (stack pr-${{ github.event.pull_request.number }})",
    ]);
    expect(run.world.stacks()).toEqual(listed("pr-8-r111"));
  });

  it("cleanup of a deployed pull request: destroy and remove, then the comment says so", async () => {
    const comment = { id: 12, user: { login: "github-actions[bot]" }, body: `<!-- pr-environment -->\n- **chrome**: ${LINKS.chrome}` };
    const run = jobRun(deployFlow, "cleanup", pullRequest({ action: "closed" }), { stacks: listed(STACK, "pr-8-r111"), comments: [comment] });
    let destroyEnv: Record<string, string> = {};
    const results = await run.all((step, inputs, env) => {
      if (inputs.command !== "destroy") return;
      expect(inputs).toMatchObject({ "stack-name": STACK, remove: "true" });
      destroyEnv = env;
      run.world.update({ stacks: listed("pr-8-r111") });
    });
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(results.every((r) => r.ran)).toBe(true);
    expect(destroyEnv.REMOTE_BROWSER_API_KEY).toBe(SECRETS.REMOTE_BROWSER_API_KEY);
    expect(destroyEnv[ENV_IDEMPOTENCY_SECRET]).toBe(SECRETS.REMOTE_BROWSER_IDEMPOTENCY_SECRET);
    expect(run.world.comments()[0]!.body).not.toContain(LINKS.chrome);
    noSecretInArguments(run.world);
  });
});

describe("stack names are unique per repository, and the sweep keeps to its own", () => {
  it("names the stacks with the repository's id, the same way in both workflows", async () => {
    expect(deployFlow.env.STACK).toBe("pr-${{ github.event.pull_request.number }}-r${{ github.repository_id }}");
    expect(sweepFlow.jobs.destroy!.env!.STACK).toBe("pr-${{ matrix.pr }}-r${{ github.repository_id }}");
    expect(sweepFlow.env.REPOSITORY_ID).toBe("${{ github.repository_id }}");
    expect(jobRun(deployFlow, "deploy", pullRequest()).stepEnv({}).STACK).toBe(STACK);
    expect(jobRun(sweepFlow, "destroy", sweep({ pr: "7" })).stepEnv({}).STACK).toBe(STACK);
  });

  it("the sweep picks only this repository's stale stacks; another repository's are never looked at", async () => {
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
      { name: "acme/other/main", lastUpdate: old },
    ];
    const run = jobRun(sweepFlow, "find", sweep(), { stacks, prStates: { "5": "CLOSED", "6": "CLOSED", "8": "OPEN", "9": "OPEN", "10": "CLOSED", "12": "MERGED" } });
    const r = await run.step(/^List this repository's pr-\* stacks/);
    expect(r.code, r.out).toBe(0);
    expect(r.outputs).toEqual({ prs: '["5","8","12"]' });
    expect(r.out).toContain("::warning::acme/pr-environment/pr-11-r111: cannot read pull request #11; left alone");
    const asked = run.world.calls("gh").map((c) => c.argv[2]);
    expect(asked.sort()).toEqual(["11", "12", "5", "8", "9"]);
  });

  it("the sweep's destroy jobs run for the stale pull requests it found, and none on a dry run or when none is stale", async () => {
    const destroyRuns = (prs: string, inputs?: Record<string, string | boolean>) => jobRun(sweepFlow, "destroy", sweep({ prs, inputs })).jobRuns();
    expect(destroyRuns('["5","8"]')).toBe(true);
    expect(destroyRuns("[]")).toBe(false);
    expect(destroyRuns('["5"]', { "dry-run": true, "ttl-days": "" })).toBe(false);
    expect(destroyRuns('["5"]', { "dry-run": false, "ttl-days": "" })).toBe(true);
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

  it("a sweep's destroy job: unlock, destroy, check gone; a stack found fresh again is left alone", async () => {
    const old = new Date(Date.now() - 30 * 86400_000).toISOString();
    const stale = jobRun(sweepFlow, "destroy", sweep({ pr: "7" }), { stacks: [{ name: `acme/pr-environment/${STACK}`, lastUpdate: old }], prStates: { "7": "OPEN" } });
    const destroyed: string[] = [];
    let destroyEnv: Record<string, string> = {};
    const results = await stale.all((step, inputs, env) => {
      if (inputs.command !== "destroy") return;
      destroyed.push(inputs["stack-name"]!);
      destroyEnv = env;
      stale.world.update({ stacks: [] });
    });
    expect(results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out}`)).toEqual([]);
    expect(destroyed).toEqual([STACK]);
    expect(destroyEnv[ENV_IDEMPOTENCY_SECRET]).toBe(SECRETS.REMOTE_BROWSER_IDEMPOTENCY_SECRET);
    expect(stale.world.commandLines("pulumi")).toContain(`pulumi cancel --yes --stack ${STACK} --non-interactive`);
    noSecretInArgumentsOf(stale.world);

    const fresh = jobRun(sweepFlow, "destroy", sweep({ pr: "7" }), { stacks: [{ name: `acme/pr-environment/${STACK}`, lastUpdate: new Date().toISOString() }], prStates: { "7": "OPEN" } });
    const kept = await fresh.all((_step, inputs) => {
      if (inputs.command) throw new Error("no Pulumi command may run for a fresh stack");
    });
    expect(kept.filter((r) => r.code !== 0)).toEqual([]);
    expect(kept.filter((r) => !r.ran).map((r) => r.step.name)).toEqual([
      "Recover a lock left by a killed run",
      "pulumi destroy and stack rm",
      "Check that the stack is gone",
    ]);
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
  ])("%s: takes a whole number of days and nothing else, without evaluating it", async (_label, jobId) => {
    const check = async (ttl: string, from: "input" | "var") => {
      const ctx = from === "input" ? sweep({ pr: "7", inputs: { "ttl-days": ttl, "dry-run": false } }) : sweep({ pr: "7", vars: { PR_ENVIRONMENT_TTL_DAYS: ttl } });
      const run = jobRun(sweepFlow, jobId, ctx);
      return { r: await run.step("Check the inputs"), run };
    };
    for (const ttl of ["1", "7", "30", "9999"]) {
      expect((await check(ttl, "input")).r.code, ttl).toBe(0);
      expect((await check(ttl, "var")).r.out).toContain(`TTL: ${ttl} days`);
    }
    // Neither set: the default.
    expect((await jobRun(sweepFlow, jobId, sweep({ pr: "7" })).step("Check the inputs")).out).toContain("TTL: 7 days");
    for (const ttl of ["0", "-1", "abc", "1.5", "1e3", "10000", "7 ", "a[$(touch pwned)]", "$(touch pwned)"]) {
      for (const from of ["input", "var"] as const) {
        const { r, run } = await check(ttl, from);
        expect(r.code, ttl).not.toBe(0);
        expect(r.out).toContain("::error::ttl-days (or vars.PR_ENVIRONMENT_TTL_DAYS) must be a whole number of days from 1 to 9999");
        expect(r.out).not.toContain("pwned");
        expect(fs.readdirSync(run.workspace, { recursive: true, encoding: "utf8" }).some((f) => f.endsWith("pwned"))).toBe(false);
      }
    }
  });

  it("runs first in every sweep job that does arithmetic with the TTL", async () => {
    for (const [name, job] of Object.entries(sweepFlow.jobs)) {
      const uses = job.steps.findIndex((s) => /TTL_DAYS \*/.test(s.run ?? ""));
      if (uses < 0) continue;
      const checked = job.steps.findIndex((s) => s.name === "Check the inputs");
      expect(checked, name).toBeGreaterThanOrEqual(0);
      expect(checked, name).toBeLessThan(uses);
    }
    expect(sweepFlow.jobs.find!.steps.some((s) => /TTL_DAYS \*/.test(s.run ?? ""))).toBe(true);
    expect(sweepFlow.jobs.destroy!.steps.some((s) => /TTL_DAYS \*/.test(s.run ?? ""))).toBe(true);
  });
});

describe("a lock left by a killed run is recovered by the next run", () => {
  const cases: Array<[string, string, Workflow, string, Contexts]> = [
    ["deploy", "up", deployFlow, "deploy", pullRequest()],
    ["cleanup", "destroy", deployFlow, "cleanup", pullRequest({ action: "closed" })],
    ["sweep destroy", "destroy", sweepFlow, "destroy", sweep({ pr: "7" })],
  ];

  it.each(cases)("%s: releases the stack's lock before its %s", async (_label, command, flow, jobId, ctx) => {
    const job = flow.jobs[jobId]!;
    const recover = findStep(job, "Recover a lock left by a killed run");
    expect(indexOf(job, recover)).toBeLessThan(pulumiCommandStep(job, command));
    expect(indexOf(job, recover)).toBeGreaterThan(indexOf(job, findStep(job, "Check the state backend settings")));
    const run = jobRun(flow, jobId, ctx, { stacks: listed(STACK) });
    const r = await run.step(recover);
    expect(r.code, r.out).toBe(0);
    expect(run.world.commandLines("pulumi")).toContain(`pulumi cancel --yes --stack ${STACK} --non-interactive`);
    // Pulumi Cloud answers an error when nothing is in progress: a warning, not a failed job.
    const nothing = await jobRun(flow, jobId, ctx, { stacks: listed(STACK), cancelCode: 255 }).step(recover);
    expect(nothing.code).toBe(0);
    expect(nothing.out).toContain(`::warning::pulumi cancel for ${STACK}`);
  });

  it("does not try to unlock a stack that does not exist yet, and the up after it refreshes first", async () => {
    const run = jobRun(deployFlow, "deploy", pullRequest(), { stacks: [] });
    const r = await run.step("Recover a lock left by a killed run");
    expect(r.code, r.out).toBe(0);
    expect(run.world.commandLines("pulumi").some((l) => l.startsWith("pulumi cancel"))).toBe(false);
    const up = deployFlow.jobs.deploy!.steps[pulumiCommandStep(deployFlow.jobs.deploy!, "up")]!;
    expect(up.with?.refresh).toBe(true);
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
    expect(runs("success", "skipped", { "dry-run": true, "ttl-days": "" })).toBe(true);
    expect(runs("failure", "skipped")).toBe(false);
  });

  it("checks the backend settings before it reads any stack, and builds without secrets", async () => {
    const job = sweepFlow.jobs.audit!;
    expect(indexOf(job, findStep(job, "Check the state backend settings"))).toBeLessThan(indexOf(job, findStep(job, "Audit the account")));
    const run = jobRun(sweepFlow, "audit", sweep());
    const build = await run.step(/^Build the package/);
    expect(build.code, build.out).toBe(0);
    for (const value of [...Object.values(SECRETS), REPOSITORY.token].filter(Boolean)) {
      expect(Object.values(build.env).join("\n")).not.toContain(value);
    }
    expect((await run.step("Check the state backend settings")).code).toBe(0);
  });

  it("prints the audit's table, and fails naming the threshold when a session held by none is too old", async () => {
    const run = jobRun(sweepFlow, "audit", sweep(), { audit: { out: TABLE, code: 3 } });
    const r = await run.step("Audit the account");
    expect(r.code).toBe(3);
    expect(r.out).toContain(TABLE);
    expect(r.out).toContain("::error::Sessions that no stack holds have run for more than 60 minutes");
    expect(run.world.commandLines("node")).toEqual(["node node_modules/pulumi-remote-browser/dist/runner/cli.js audit --orphan-minutes 60"]);
    // Secrets reach the audit through its environment only: the key, the backend URL, the passphrase.
    expect(r.env.REMOTE_BROWSER_API_KEY).toBe(SECRETS.REMOTE_BROWSER_API_KEY);
    expect(r.env.PULUMI_BACKEND_URL).toBe(SECRETS.PULUMI_BACKEND_URL);
    expect(r.env.PULUMI_CONFIG_PASSPHRASE).toBe(SECRETS.PULUMI_CONFIG_PASSPHRASE);
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

  it("takes the threshold from vars.REMOTE_BROWSER_ORPHAN_MINUTES, only as a plain number", async () => {
    const ctx = (v: string) => sweep({ vars: { REMOTE_BROWSER_ORPHAN_MINUTES: v } });
    const ok = jobRun(sweepFlow, "audit", ctx("1440"), { audit: { out: "", code: 0 } });
    expect((await ok.step("Audit the account")).code).toBe(0);
    expect(ok.world.commandLines("node")).toEqual(["node node_modules/pulumi-remote-browser/dist/runner/cli.js audit --orphan-minutes 1440"]);
    for (const bad of ["-1", "1.5", "$(touch pwned)", "60 --project x"]) {
      const run = jobRun(sweepFlow, "audit", ctx(bad));
      const r = await run.step("Audit the account");
      expect(r.code, bad).toBe(1);
      expect(r.out).toContain("::error::vars.REMOTE_BROWSER_ORPHAN_MINUTES must be a whole number of minutes");
      expect(run.world.calls("node")).toEqual([]);
    }
  });

  it("reads the stacks of Pulumi Cloud when no self-managed backend is set", async () => {
    const run = jobRun(sweepFlow, "audit", sweep({ secrets: { PULUMI_BACKEND_URL: "", PULUMI_ACCESS_TOKEN: "pul-token" } }), { audit: { out: "", code: 0 } });
    const r = await run.step("Audit the account");
    expect(r.code, r.out).toBe(0);
    expect(run.world.calls("node")).toHaveLength(1);
  });
});

// Last: the tests above run in order in this file, and this one reads what they ran.
describe("coverage of the workflows' scripts", () => {
  it("every `run:` step of both workflows was executed by a test in this file", async () => {
    const steps = runSteps(deployFlow, sweepFlow);
    expect(steps.length).toBeGreaterThan(20);
    expect(steps.filter((s) => !s.executed).map((s) => `${s.key} ${s.name}`)).toEqual([]);
  });
});
