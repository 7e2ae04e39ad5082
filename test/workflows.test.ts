import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

/**
 * The per-pull-request workflows, read as GitHub reads them (YAML, anchors resolved), and their shell
 * steps run with bash against stand-ins for `pulumi` and `gh` that answer as the real ones do and record
 * how they were called.
 */
const root = path.resolve(__dirname, "..");

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Job {
  "timeout-minutes"?: number;
  env?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const load = (file: string): Workflow => parse(fs.readFileSync(path.join(root, ".github", "workflows", file), "utf8"));
const deployFlow = load("pr-environment.yml");
const sweepFlow = load("pr-environment-sweep.yml");

const step = (job: Job, name: string | RegExp): Step => {
  const found = job.steps.find((s) => (typeof name === "string" ? s.name === name : name.test(s.name ?? "")));
  if (!found) throw new Error(`no step ${name}`);
  return found;
};
const indexOf = (job: Job, s: Step) => job.steps.indexOf(s);
/** The first step that talks to the backend: the Pulumi action with a command, or a script calling `pulumi`. */
const firstPulumiStep = (job: Job) =>
  job.steps.findIndex((s) => (s.uses?.startsWith("pulumi/actions") && s.with?.command) || /(^|\s|\()pulumi\s/m.test(s.run ?? ""));
const pulumiCommandStep = (job: Job, command: string) => job.steps.findIndex((s) => s.uses?.startsWith("pulumi/actions") && s.with?.command === command);

let bin: string;
let work: string;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "prb-workflows-"));
  bin = path.join(work, "bin");
  fs.mkdirSync(bin);
  // `pulumi stack ls` prints $FAKE_STACKS; `pulumi cancel` exits with $FAKE_CANCEL_CODE. `gh pr view N`
  // prints the state of pull request N from $FAKE_PR_STATES ("5=CLOSED 8=OPEN"). Every call is logged.
  fs.writeFileSync(
    path.join(bin, "pulumi"),
    `#!/bin/bash\necho "pulumi $*" >> "$FAKE_LOG"\ncase "$1 $2" in\n  "stack ls") printf '%s\\n' "$FAKE_STACKS";;\n  "cancel --yes") [ "\${FAKE_CANCEL_CODE:-0}" = 0 ] && echo "The currently running update has been canceled!" || { echo "error: no update in progress" >&2; exit "$FAKE_CANCEL_CODE"; };;\nesac\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(
    path.join(bin, "gh"),
    `#!/bin/bash\necho "gh $*" >> "$FAKE_LOG"\nfor kv in $FAKE_PR_STATES; do [ "\${kv%%=*}" = "$3" ] && { echo "\${kv#*=}"; exit 0; }; done\necho "no pull request $3" >&2; exit 1\n`,
    { mode: 0o755 },
  );
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Ran {
  code: number | null;
  out: string;
  log: string[];
  outputs: string;
}

/** Runs a step's script as GitHub does (bash -e, the step's and job's env, GITHUB_OUTPUT), in a fresh folder. */
function runScript(script: string, env: Record<string, string>): Ran {
  const dir = fs.mkdtempSync(path.join(work, "run-"));
  const log = path.join(dir, "calls.log");
  const outputs = path.join(dir, "outputs");
  fs.writeFileSync(log, "");
  fs.writeFileSync(outputs, "");
  const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: dir, FAKE_LOG: log, GITHUB_OUTPUT: outputs, ...env },
  });
  return {
    code: r.status,
    out: (r.stdout ?? "") + (r.stderr ?? ""),
    log: fs.readFileSync(log, "utf8").split("\n").filter(Boolean),
    outputs: fs.readFileSync(outputs, "utf8"),
  };
}

/** Every job that hands the stack's passphrase to a step, i.e. that reads or writes the stack's secrets. */
const jobsWithSecrets: Array<[string, Job]> = [
  ["pr-environment.yml deploy", deployFlow.jobs.deploy!],
  ["pr-environment.yml cleanup", deployFlow.jobs.cleanup!],
  ["pr-environment-sweep.yml destroy", sweepFlow.jobs.destroy!],
];

describe("the workflows refuse a self-managed backend without a passphrase", () => {
  it("every job that handles the stack's secrets checks the backend settings before it talks to the backend", () => {
    for (const [label, job] of [...jobsWithSecrets, ["pr-environment-sweep.yml find", sweepFlow.jobs.find!] as [string, Job]]) {
      const check = step(job, "Check the state backend settings");
      expect(indexOf(job, check), label).toBeLessThan(firstPulumiStep(job));
      expect(check.env).toEqual({
        PULUMI_ACCESS_TOKEN: "${{ secrets.PULUMI_ACCESS_TOKEN }}",
        PULUMI_BACKEND_URL: "${{ secrets.PULUMI_BACKEND_URL }}",
        PULUMI_CONFIG_PASSPHRASE: "${{ secrets.PULUMI_CONFIG_PASSPHRASE }}",
      });
    }
    // Not vacuous: the jobs really pass the passphrase on.
    for (const [label, job] of jobsWithSecrets) {
      expect(job.steps.some((s) => s.env?.PULUMI_CONFIG_PASSPHRASE), label).toBe(true);
    }
  });

  it.each(jobsWithSecrets)("%s: fails with a message naming the secret when the passphrase is missing or empty", (_label, job) => {
    const script = step(job, "Check the state backend settings").run!;
    const password = "pw-inside-the-url";
    for (const url of [`postgres://pulumi:${password}@db.example.test/pulumi`, "s3://bucket/state", "gs://bucket", "azblob://c", "file:///srv/state"]) {
      for (const passphrase of [undefined, ""]) {
        const env: Record<string, string> = { PULUMI_BACKEND_URL: url, PULUMI_ACCESS_TOKEN: "" };
        if (passphrase !== undefined) env.PULUMI_CONFIG_PASSPHRASE = passphrase;
        const r = runScript(script, env);
        expect(r.code, `${url} with passphrase ${JSON.stringify(passphrase)}`).not.toBe(0);
        expect(r.out).toMatch(/::error::PULUMI_BACKEND_URL is a self-managed backend, but the repository secret PULUMI_CONFIG_PASSPHRASE is not set or empty/);
        expect(r.out).not.toContain(password);
      }
      expect(runScript(script, { PULUMI_BACKEND_URL: url, PULUMI_CONFIG_PASSPHRASE: "set" }).code).toBe(0);
    }
    // Pulumi Cloud needs no passphrase; no backend at all is an error of its own.
    expect(runScript(script, { PULUMI_ACCESS_TOKEN: "pul-token", PULUMI_BACKEND_URL: "" }).code).toBe(0);
    expect(runScript(script, { PULUMI_BACKEND_URL: "https://api.pulumi.com", PULUMI_ACCESS_TOKEN: "pul-token" }).code).toBe(0);
    const none = runScript(script, { PULUMI_BACKEND_URL: "", PULUMI_ACCESS_TOKEN: "" });
    expect(none.code).not.toBe(0);
    expect(none.out).toMatch(/::error::No state backend/);
  });
});

describe("secrets reach the steps through their environment only", () => {
  it("no action input and no script text holds a secret: an action may put its inputs on a command line", () => {
    let steps = 0;
    for (const flow of [deployFlow, sweepFlow]) {
      for (const job of Object.values(flow.jobs)) {
        for (const s of job.steps) {
          steps++;
          // e.g. pulumi/actions' cloud-url runs `pulumi login <url>`, and a backend URL may hold a password.
          expect(JSON.stringify(s.with ?? {}), s.name ?? s.uses).not.toMatch(/secrets\./);
          expect(s.run ?? "", s.name).not.toMatch(/\$\{\{\s*secrets\./);
        }
      }
    }
    expect(steps).toBeGreaterThan(20);
    // The backend is still given to the Pulumi steps, through PULUMI_BACKEND_URL.
    for (const [label, job] of jobsWithSecrets) {
      for (const s of job.steps.filter((x) => x.uses?.startsWith("pulumi/actions") && x.with?.command)) {
        expect(s.env?.PULUMI_BACKEND_URL, label).toBe("${{ secrets.PULUMI_BACKEND_URL }}");
      }
    }
  });
});

describe("the deploy job's timeout leaves room for the capacity wait it allows", () => {
  const deploy = deployFlow.jobs.deploy!;

  it("is longer than the longest capacity wait plus preparation, build and engine", () => {
    // WAIT_FOR_CAPACITY_SECONDS goes up to 3600 s; the rest of the job needs a good 10 minutes more.
    expect(deploy["timeout-minutes"]! * 60).toBeGreaterThanOrEqual(3600 + 20 * 60);
  });

  it("refuses a capacity wait the timeout does not cover, or that is not a number, before anything starts", () => {
    const settings = step(deploy, "Stack settings");
    const env = { PR_NUMBER: "7", PREVIEW_URL: "https://example.com/", PR_URL: "https://github.com/o/r/pull/7", BROWSERS: "" };
    for (const wait of ["3601", "86400", "-1", "abc", "1e3", "$(touch pwned)", "10 "]) {
      const r = runScript(settings.run!, { ...env, WAIT: wait });
      expect(r.code, wait).not.toBe(0);
      expect(r.out).toContain("::error::vars.WAIT_FOR_CAPACITY_SECONDS must be a whole number of seconds from 0 to 3600");
      expect(r.outputs).toBe("");
    }
    for (const wait of ["", "0", "900", "3600"]) {
      const r = runScript(settings.run!, { ...env, WAIT: wait });
      expect(r.code, `${wait}: ${r.out}`).toBe(0);
      expect(r.outputs).toMatch(/^config-map=\{/);
    }
  });
});

describe("stack names are unique per repository, and the sweep keeps to its own", () => {
  it("names the stacks with the repository's id, the same way in both workflows", () => {
    expect(deployFlow.env.STACK).toBe("pr-${{ github.event.pull_request.number }}-r${{ github.repository_id }}");
    expect(sweepFlow.jobs.destroy!.env!.STACK).toBe("pr-${{ matrix.pr }}-r${{ github.repository_id }}");
    expect(sweepFlow.env.REPOSITORY_ID).toBe("${{ github.repository_id }}");
  });

  it("the sweep picks only this repository's stale stacks; another repository's are never looked at", () => {
    const find = step(sweepFlow.jobs.find!, /^List this repository's pr-\* stacks/);
    const recent = new Date().toISOString();
    const old = new Date(Date.now() - 30 * 86400_000).toISOString();
    const stacks = [
      { name: "acme/pr-environment/pr-5-r111", lastUpdate: recent }, // closed pull request: stale
      { name: "acme/pr-environment/pr-6-r222", lastUpdate: old }, // another repository's: not ours
      { name: "acme/pr-environment/pr-6", lastUpdate: old }, // no repository id: not ours
      { name: "acme/pr-environment/pr-8-r111", lastUpdate: old }, // open but older than the TTL: stale
      { name: "acme/pr-environment/pr-9-r111", lastUpdate: recent }, // open and fresh: kept
      { name: "acme/pr-environment/pr-10-r1112", lastUpdate: old }, // an id that only starts like ours
      { name: "acme/other/main", lastUpdate: old },
    ];
    const r = runScript(find.run!, {
      TTL_DAYS: "7",
      REPOSITORY_ID: "111",
      GITHUB_REPOSITORY: "acme/webapp",
      FAKE_STACKS: JSON.stringify(stacks),
      FAKE_PR_STATES: "5=CLOSED 6=CLOSED 8=OPEN 9=OPEN 10=CLOSED",
    });
    expect(r.code, r.out).toBe(0);
    expect(r.outputs.trim()).toBe('prs=["5","8"]');
    const asked = r.log.filter((l) => l.startsWith("gh ")).map((l) => l.split(" ")[3]);
    expect(asked.sort()).toEqual(["5", "8", "9"]);
  });
});

describe("the sweep's inputs are checked before use", () => {
  it("takes a whole number of days and nothing else, without evaluating it", () => {
    const check = step(sweepFlow.jobs.find!, "Check the inputs");
    for (const ttl of ["1", "7", "30", "9999"]) expect(runScript(check.run!, { TTL_DAYS: ttl }).code, ttl).toBe(0);
    for (const ttl of ["0", "-1", "", "abc", "1.5", "1e3", "10000", "7 ", "a[$(touch pwned)]", "$(touch pwned)"]) {
      const r = runScript(check.run!, { TTL_DAYS: ttl });
      expect(r.code, ttl).not.toBe(0);
      expect(r.out).toContain("::error::ttl-days (or vars.PR_ENVIRONMENT_TTL_DAYS) must be a whole number of days from 1 to 9999");
      expect(r.out).not.toContain("pwned");
    }
    expect(fs.readdirSync(work, { recursive: true, encoding: "utf8" }).some((f) => f.endsWith("pwned"))).toBe(false);
  });

  it("runs first in every sweep job that does arithmetic with the TTL", () => {
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
  const cases: Array<[string, string, Job]> = [
    ["deploy", "up", deployFlow.jobs.deploy!],
    ["cleanup", "destroy", deployFlow.jobs.cleanup!],
    ["sweep destroy", "destroy", sweepFlow.jobs.destroy!],
  ];

  it.each(cases)("%s: releases the stack's lock before its %s", (_label, command, job) => {
    const recover = step(job, "Recover a lock left by a killed run");
    expect(indexOf(job, recover)).toBeLessThan(pulumiCommandStep(job, command));
    expect(indexOf(job, recover)).toBeGreaterThan(indexOf(job, step(job, "Check the state backend settings")));
    const stack = "pr-7-r111";
    const listed = JSON.stringify([{ name: `acme/pr-environment/${stack}` }]);
    const r = runScript(recover.run!, { STACK: stack, FAKE_STACKS: listed });
    expect(r.code, r.out).toBe(0);
    expect(r.log).toContain(`pulumi cancel --yes --stack ${stack} --non-interactive`);
    // Pulumi Cloud answers an error when nothing is in progress: a warning, not a failed job.
    const nothing = runScript(recover.run!, { STACK: stack, FAKE_STACKS: listed, FAKE_CANCEL_CODE: "255" });
    expect(nothing.code).toBe(0);
    expect(nothing.out).toContain(`::warning::pulumi cancel for ${stack}`);
  });

  it("does not try to unlock a stack that does not exist yet, and the up after it refreshes first", () => {
    const recover = step(deployFlow.jobs.deploy!, "Recover a lock left by a killed run");
    const r = runScript(recover.run!, { STACK: "pr-7-r111", FAKE_STACKS: "[]" });
    expect(r.code, r.out).toBe(0);
    expect(r.log.some((l) => l.startsWith("pulumi cancel"))).toBe(false);
    const up = deployFlow.jobs.deploy!.steps[pulumiCommandStep(deployFlow.jobs.deploy!, "up")]!;
    expect(up.with?.refresh).toBe(true);
  });
});
