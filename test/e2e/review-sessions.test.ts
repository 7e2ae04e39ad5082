import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator } from "../../emulator";
import type { Emulator } from "../../emulator";
import type { Contexts } from "../helpers/github-expressions";
import type { Step, StepResult, Tools, Workflow, WorldSetup } from "../helpers/workflow-runner";
import { JobRun, STAND_INS, World, loadWorkflow, runSteps } from "../helpers/workflow-runner";
import { type Caller, type PullRequestCase, STACK, type SweepCase, pullRequestContexts, sweepContexts } from "../helpers/workflow-events";
import { until } from "./harness";

/**
 * The reusable workflows users call (.github/workflows/review-sessions.yml and review-sessions-sweep.yml),
 * every `run:` step executed as the runner executes it (test/helpers/workflow-runner.ts) against the
 * emulator and the real engine: the real Pulumi CLI, the package's runner and the packed package installed
 * by the workflow's own install step, a file backend standing in for the repository's state backend. Only
 * the GitHub CLI is a stand-in (the pull request's comments and states). The `uses:` steps do what their
 * actions do here: setup-node and pulumi/actions nothing (Node.js and the CLI are on PATH), download-artifact
 * hands over the `npm pack` of the checkout, as this repository's own pr-environment.yml does.
 */
const flow = loadWorkflow("review-sessions.yml");
const sweepFlow = loadWorkflow("review-sessions-sweep.yml");

const IDEMPOTENCY_SECRET = "idem-secret-3f9a0c6e1b2d4a5f";
const PASSPHRASE = "state-passphrase-7c1d";
const LINKS_PASSPHRASE = "links-passphrase-0b7e";

let emulator: Emulator;
let work: string;
let tools: Tools;
let backend: string;
let runs = 0;

beforeAll(async () => {
  const { pulumiBin, tarball } = inject("e2e");
  emulator = await startEmulator({ prepMs: 300 });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-review-sessions-"));
  backend = path.join(work, "backend");
  fs.mkdirSync(backend);
  // The GitHub CLI's stand-in alone; everything else is the real thing.
  const gh = path.join(work, "gh-only");
  fs.mkdirSync(gh);
  for (const f of ["gh", "record.sh"]) fs.symlinkSync(path.join(STAND_INS, f), path.join(gh, f));
  fs.copyFileSync(tarball, path.join(work, path.basename(tarball)));
  tools = {
    path: [path.dirname(pulumiBin), gh],
    env: {
      // Each job's HOME is its own (a fresh runner); npm still finds what the suite's own install cached.
      npm_config_cache: process.env.npm_config_cache || path.join(os.homedir(), ".npm"),
      npm_config_prefer_offline: "true",
      npm_config_update_notifier: "false",
      PULUMI_SKIP_UPDATE_CHECK: "true",
    },
  };
});
afterAll(async () => {
  await emulator?.close();
  await fs.promises.rm(work, { recursive: true, force: true });
});

/** What the calling workflow passes: the emulator's key and URL, the file backend, the packed provider's artifact. */
function caller(): Caller {
  return {
    secrets: {
      REMOTE_BROWSER_API_KEY: emulator.apiKey,
      REMOTE_BROWSER_IDEMPOTENCY_SECRET: IDEMPOTENCY_SECRET,
      PULUMI_ACCESS_TOKEN: "",
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      SHARE_LINKS_PASSPHRASE: "",
    },
    serviceUrl: emulator.apiBaseUrl,
    providerArtifact: "provider-package",
  };
}
/** A `pull_request` event of pull request #7 of acme/webapp calling review-sessions.yml. */
const pullRequest = (c?: PullRequestCase) => pullRequestContexts(caller(), c);
/** The scheduled sweep calling review-sessions-sweep.yml; `pr` is the destroy job's matrix entry. */
const sweep = (c?: SweepCase) => sweepContexts(caller(), c);

/** One job on a fresh runner; `world` is what the GitHub CLI stand-in answers. */
function job(wf: Workflow, jobId: string, ctx: Contexts, world?: World): JobRun {
  const dir = path.join(work, `run-${++runs}`);
  return new JobRun(wf, jobId, ctx, world ?? new World(path.join(dir, "world"), {}), dir, tools);
}
function world(setup: WorldSetup = {}): World {
  return new World(path.join(work, `world-${++runs}`), setup);
}

type Result = { step: Step } & StepResult;
/** Runs the whole job, the actions' `uses:` steps played as described at the top. */
async function runJob(run: JobRun, opts: { signal?: AbortSignal; uploads?: Array<Record<string, string>> } = {}): Promise<Result[]> {
  return run.all(
    (step, inputs) => {
      if (step.uses?.startsWith("actions/download-artifact")) {
        fs.mkdirSync(inputs.path!, { recursive: true });
        const tarball = fs.readdirSync(work).find((f) => f.endsWith(".tgz"))!;
        fs.copyFileSync(path.join(work, tarball), path.join(inputs.path!, tarball));
      }
      if (step.uses?.startsWith("actions/upload-artifact")) {
        opts.uploads?.push({ ...inputs, content: fs.readFileSync(inputs.path!, "utf8") });
      }
    },
    { signal: opts.signal },
  );
}
const failures = (results: Result[]) => results.filter((r) => r.code !== 0).map((r) => `${r.step.name}: ${r.out.slice(-3000)}`);
const ran = (results: Result[]) => results.filter((r) => r.ran && r.step.run !== undefined).map((r) => r.step.name);

function active(): string[] {
  return emulator.control
    .sessions()
    .filter((s) => s.status === "starting" || s.status === "running")
    .map((s) => s.vmId)
    .sort();
}
/** Whether the file backend holds the stack's checkpoint (`<project>/<stack>.json`, gzipped or not). */
function stackKept(name: string): boolean {
  const dir = path.join(backend, ".pulumi", "stacks");
  const files = fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" }) : [];
  return files.some((f) => f === `pr-environment/${name}.json` || f === `pr-environment/${name}.json.gz`);
}
/** Nothing the jobs printed or kept holds a share link, a link id or a credential. */
function noSecretIn(text: string): void {
  for (const s of emulator.control.sessions()) expect(text.includes(s.linkId), "a link id").toBe(false);
  for (const v of [emulator.apiKey, IDEMPOTENCY_SECRET, PASSPHRASE, LINKS_PASSPHRASE]) expect(text.includes(v), "a secret").toBe(false);
}
const logOf = (results: Result[]) => results.map((r) => r.out).join("\n");

describe("review-sessions.yml under the real engine, against the emulator", () => {
  it("refuses missing secrets and bad inputs before any step uses them, naming what to set", async () => {
    const refused = async (ctx: Contexts, jobId = "deploy", wf = flow) => {
      const run = job(wf, jobId, ctx);
      const before = emulator.control.books().createCalls;
      const results = await runJob(run);
      const failed = results.filter((r) => r.code !== 0);
      expect(failed).toHaveLength(1);
      // Nothing after the failed check ran but the clean-up, no tool was installed, nothing was asked.
      const after = results.slice(results.indexOf(failed[0]!) + 1).filter((r) => r.ran);
      expect(after.map((r) => r.step.name)).toEqual(jobId === "deploy" ? ["Remove the plain links from the runner"] : []);
      expect(fs.existsSync(path.join(run.temp, "review-sessions"))).toBe(false);
      expect(run.world.calls()).toEqual([]);
      expect(emulator.control.books().createCalls).toBe(before);
      return failed[0]!;
    };
    const cases: Array<[Contexts, string, RegExp]> = [
      [
        pullRequest({ secrets: { REMOTE_BROWSER_IDEMPOTENCY_SECRET: "" } }),
        "Check the idempotency secret",
        /::error::The repository secret REMOTE_BROWSER_IDEMPOTENCY_SECRET is not set or shorter than 16 characters/,
      ],
      [
        pullRequest({ secrets: { PULUMI_CONFIG_PASSPHRASE: "" } }),
        "Check the state backend settings",
        /::error::PULUMI_BACKEND_URL is a self-managed backend, but the repository secret PULUMI_CONFIG_PASSPHRASE is not set or empty/,
      ],
      [pullRequest({ secrets: { PULUMI_BACKEND_URL: "" } }), "Check the state backend settings", /::error::No state backend/],
      [pullRequest({ secrets: { REMOTE_BROWSER_API_KEY: "" } }), "Check the service settings", /::error::The secret REMOTE_BROWSER_API_KEY is not set or empty/],
      [pullRequest({ inputs: { "service-url": "" } }), "Check the service settings", /::error::input service-url must be/],
      [pullRequest({ inputs: { "service-url": "https://user:pw@api.example.test/v8" } }), "Check the service settings", /::error::input service-url must be/],
      [pullRequest({ inputs: { "wait-for-capacity-seconds": "3601" } }), "Check the inputs", /::error::input wait-for-capacity-seconds must be a whole number of seconds from 0 to 3600/],
      [pullRequest({ inputs: { "stack-prefix": "pr-$(touch pwned)" } }), "Check the inputs", /::error::input stack-prefix must start with a letter/],
      [pullRequest({ inputs: { "preview-url": "javascript:alert(1)" } }), "Check the inputs", /::error::input preview-url must be an http\(s\) address/],
      [pullRequest({ inputs: { browsers: 'chrome", "x": "$(touch pwned)' } }), "Check the inputs", /::error::input browsers must be browser image ids separated by commas/],
      [pullRequest({ inputs: { "share-language": "xx" } }), "Check the inputs", /::error::input share-language must be one of en, de, fr, es, it, pt, ja/],
      [pullRequest({ inputs: { program: "../other/index.js" } }), "Check the inputs", /::error::input program must be the path of a \.js module inside the repository/],
    ];
    for (const [ctx, step, message] of cases) {
      const failed = await refused(ctx);
      expect(failed.step.name).toBe(step);
      expect(failed.out).toMatch(message);
      expect(failed.out).not.toContain("pw@");
    }
    // The close job and the sweep's jobs check the same way, first.
    expect((await refused(pullRequest({ action: "closed", secrets: { REMOTE_BROWSER_API_KEY: "" } }), "close")).step.name).toBe("Check the service settings");
    expect((await refused(sweep({ pr: "7", secrets: { REMOTE_BROWSER_IDEMPOTENCY_SECRET: "short" } }), "destroy", sweepFlow)).step.name).toBe("Check the idempotency secret");
    expect((await refused(sweep({ inputs: { "ttl-days": "$(touch pwned)" } }), "find", sweepFlow)).out).toContain("::error::input ttl-days must be a whole number of days from 1 to 9999");
    expect((await refused(sweep({ prs: "[]", inputs: { "orphan-minutes": "60 --project x" } }), "audit", sweepFlow)).out).toContain("::error::input orphan-minutes must be a whole number of minutes");
    expect(fs.readdirSync(work, { recursive: true, encoding: "utf8" }).some((f) => f.endsWith("pwned"))).toBe(false);
  });

  it("open, push and close: sessions up on open, replaced on a push that moves the preview, the links only in the encrypted artifact, every session ended and the stack gone on close", async () => {
    const prWorld = world({ comments: [] });
    // Opened: the package's program, two enabled browsers, one comment without a link.
    let t = Date.now();
    const opened = await runJob(job(flow, "deploy", pullRequest({ action: "opened" }), prWorld));
    // The figures docs/per-pull-request.md quotes ("What it costs").
    console.info(`review-sessions: deploy job (opened) ${((Date.now() - t) / 1000).toFixed(1)} s`);
    expect(failures(opened)).toEqual([]);
    const up = opened.find((r) => r.step.id === "up")!;
    const ids = JSON.parse(up.outputs["session-ids"]!) as Record<string, string>;
    expect(Object.keys(ids)).toEqual(["chrome", "firefox"]);
    expect(Object.values(ids).sort()).toEqual(active());
    expect(up.outputs.stack).toBe(STACK);
    expect(up.outputs.message).toMatch(/^Pull request #7 has 2 review session\(s\)/);
    expect(up.outputs.message).toContain(`pulumi stack output shareUrls --show-secrets --stack ${STACK}`);
    for (const s of emulator.control.sessions()) {
      expect(s.url).toBe("https://pr-7.preview.example.com/");
      expect(s.callbackUrl).toBe("https://github.com/acme/webapp/pull/7");
    }
    // No links asked for: the repository chose no way to hand them over.
    expect(ran(opened)).not.toContain("Read and mask the share links");
    const [comment] = prWorld.comments();
    expect(comment!.body).toContain(`### Review environment \`${STACK}\``);
    expect(comment!.body).toContain(up.outputs.message!);
    expect(stackKept(STACK)).toBe(true);
    noSecretIn(logOf(opened) + JSON.stringify(prWorld.comments()));

    // A push that moves the preview, with a links passphrase: every session replaced, the links encrypted.
    const uploads: Array<Record<string, string>> = [];
    const pushRun = job(flow, "deploy", pullRequest({ inputs: { "preview-url": "https://preview.acme.test/{number}/?rev=2" }, secrets: { SHARE_LINKS_PASSPHRASE: LINKS_PASSPHRASE } }), prWorld);
    const pushed = await runJob(pushRun, { uploads });
    expect(failures(pushed)).toEqual([]);
    const second = JSON.parse(pushed.find((r) => r.step.id === "up")!.outputs["session-ids"]!) as Record<string, string>;
    expect(Object.values(second).some((id) => Object.values(ids).includes(id))).toBe(false);
    expect(Object.values(second).sort()).toEqual(active());
    // The stack was read (and its lock released) before the up.
    expect(ran(pushed)).toContain("Recover a lock left by a killed run");
    const masks = pushed.find((r) => r.step.name === "Read and mask the share links")!.masks;
    const links = emulator.control.sessions().filter((s) => active().includes(s.vmId));
    for (const s of links) expect(masks.some((m) => m.includes(s.linkId))).toBe(true);
    expect(uploads.map((u) => u.name)).toEqual([`share-links-${STACK}`]);
    noSecretIn(uploads[0]!.content!);
    expect(prWorld.comments()).toHaveLength(1);
    expect(prWorld.comments()[0]!.body).toContain(`share-links-${STACK}`);
    expect(fs.readdirSync(pushRun.temp).filter((f) => /share-links|comment|outputs/.test(f))).toEqual([]);
    noSecretIn(
      logOf(pushed)
        .split("\n")
        .filter((l) => !l.startsWith("::add-mask::"))
        .join("\n") + JSON.stringify(prWorld.comments()),
    );

    // Closed: destroyed and removed, the comment says so.
    t = Date.now();
    const closed = await runJob(job(flow, "close", pullRequest({ action: "closed" }), prWorld));
    console.info(`review-sessions: close job ${((Date.now() - t) / 1000).toFixed(1)} s`);
    expect(failures(closed)).toEqual([]);
    expect(ran(closed)).not.toContain("Adopt the sessions a killed run started");
    expect(active()).toEqual([]);
    expect(emulator.control.books().neverEnded).toBe(0);
    expect(stackKept(STACK)).toBe(false);
    expect(prWorld.comments()[0]!.body).toContain("The pull request is closed: its browser sessions have ended and the stack is removed.");

    // Closed again (or a pull request that never deployed): nothing to destroy, and the job passes.
    const again = await runJob(job(flow, "close", pullRequest({ action: "closed" }), prWorld));
    expect(failures(again)).toEqual([]);
    expect(ran(again)).not.toContain("pulumi destroy and stack rm (stack ${{ inputs.stack-prefix }}${{ github.event.pull_request.number }})");
  });

  it("a deploy killed in the middle of its up is recovered by the next run; a close queued behind a killed deploy adopts and ends what it started", async () => {
    for (const next of ["deploy", "close"] as const) {
      emulator.control.settings({ prepMs: 4000 });
      const known = new Set(emulator.control.sessions().map((s) => s.vmId));
      const kill = new AbortController();
      const killed = job(flow, "deploy", pullRequest({ action: "opened" }));
      // Killed as a lost runner is: the whole step's process group, once the service started a session the
      // engine has not recorded yet (it is still preparing).
      const starting = () => emulator.control.sessions().some((s) => !known.has(s.vmId) && s.status === "starting");
      const watch = until(() => (starting() ? true : undefined), 300_000, "the up to start a session").then(() => kill.abort());
      const results = await runJob(killed, { signal: kill.signal });
      await watch;
      expect(results.find((r) => r.step.id === "up")!.code).not.toBe(0);
      emulator.control.settings({ prepMs: 300 });
      const started = emulator.control
        .sessions()
        .filter((s) => !known.has(s.vmId))
        .map((s) => s.vmId);
      expect(started.length).toBeGreaterThan(0);

      const after = await runJob(job(flow, next, pullRequest({ action: next === "close" ? "closed" : "synchronize" })));
      expect(failures(after)).toEqual([]);
      const recover = after.find((r) => r.step.id === "recover")!;
      expect(Number(recover.outputs["pending-creates"])).toBeGreaterThan(0);
      expect(recover.out).toContain("create(s) a killed run left pending");
      if (next === "deploy") {
        // What runs is what the stack holds; a session the killed run started is held (adopted) or ended.
        const ids = Object.values(JSON.parse(after.find((r) => r.step.id === "up")!.outputs["session-ids"]!) as Record<string, string>).sort();
        expect(ids).toHaveLength(2);
        expect(ids).toEqual(active());
        for (const id of started) expect(ids.includes(id) || !active().includes(id), id).toBe(true);
        expect(failures(await runJob(job(flow, "close", pullRequest({ action: "closed" }))))).toEqual([]);
      } else {
        expect(ran(after)).toContain("Adopt the sessions a killed run started");
      }
      await until(() => (active().length === 0 ? true : undefined), 60_000, "every session to end");
      expect(emulator.control.books().neverEnded).toBe(0);
      expect(stackKept(STACK)).toBe(false);
    }
  });

  it("one concurrency group per pull request for deploy, close and the sweep's destroy, never cancelled and queued without dropping a run", () => {
    const groups = [flow.jobs.deploy!, flow.jobs.close!, sweepFlow.jobs.destroy!].map((j) => (j as { concurrency?: Record<string, unknown> }).concurrency);
    for (const g of groups) expect(g).toMatchObject({ "cancel-in-progress": false, queue: "max" });
    expect(groups.map((g) => String(g!.group).replace("matrix.pr", "github.event.pull_request.number"))).toEqual(
      Array(3).fill("review-sessions-${{ inputs.stack-prefix }}${{ github.event.pull_request.number }}"),
    );
  });

  it("the sweep: a closed pull request's stack is destroyed, an open one's kept, and the audit finds nothing held by none", async () => {
    const prs = world({ prStates: { "7": "CLOSED", "8": "OPEN" } });
    for (const [n, action] of [
      ["7", "opened"],
      ["8", "opened"],
    ] as const) {
      const ctx = pullRequest({ action });
      const event = (ctx.github as { event: { pull_request: { number: number } } }).event;
      event.pull_request.number = Number(n);
      expect(failures(await runJob(job(flow, "deploy", ctx, prs)))).toEqual([]);
    }
    const find = await runJob(job(sweepFlow, "find", sweep(), prs));
    expect(failures(find)).toEqual([]);
    const found = find.find((r) => r.step.id === "find")!.outputs.prs!;
    expect(found).toBe('["7"]');
    const destroy = await runJob(job(sweepFlow, "destroy", sweep({ pr: "7", prs: found }), prs));
    expect(failures(destroy)).toEqual([]);
    expect(stackKept("pr-7-r111")).toBe(false);
    expect(stackKept("pr-8-r111")).toBe(true);
    const audit = await runJob(job(sweepFlow, "audit", sweep({ prs: found }), prs));
    expect(failures(audit)).toEqual([]);
    expect(logOf(audit)).toMatch(/held by none: 0/);
    // Pull request 8 closes as usual.
    const close = pullRequest({ action: "closed" });
    (close.github as { event: { pull_request: { number: number } } }).event.pull_request.number = 8;
    expect(failures(await runJob(job(flow, "close", close, prs)))).toEqual([]);
    expect(active()).toEqual([]);
    expect(emulator.control.books().neverEnded).toBe(0);
  });

  // Last: it reads what the tests above ran.
  it("every `run:` step of both reusable workflows was executed by a test in this file", () => {
    const steps = runSteps(flow, sweepFlow);
    expect(steps.length).toBeGreaterThan(20);
    expect(steps.filter((s) => !s.executed).map((s) => `${s.key} ${s.name}`)).toEqual([]);
  });
});
