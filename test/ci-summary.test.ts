import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runStatus } from "../release/run";

/**
 * CI shows only the end of a long log. These tests hold the two pieces that keep a failure of the first
 * cell visible there: scripts/test-summary.js (what one vitest run failed on) and .ci/run (repeats it after
 * the last cell).
 */
const root = path.resolve(__dirname, "..");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "prb-ci-summary-"));
  dirs.push(d);
  return d;
}

async function summarize(dir: string, report: unknown, log: string, code: number) {
  const files = { report: path.join(dir, "r.json"), log: path.join(dir, "run.log"), failures: path.join(dir, "failures.txt") };
  if (report !== undefined) fs.writeFileSync(files.report, JSON.stringify(report));
  fs.writeFileSync(files.log, log);
  const run = await runStatus(process.execPath, [path.join(root, "scripts/test-summary.js"), files.report, files.log, String(code), files.failures], { cwd: dir });
  expect(run.status).toBe(0);
  const failures = fs.existsSync(files.failures) ? fs.readFileSync(files.failures, "utf8") : undefined;
  return { stdout: run.stdout, failures };
}

function report(dir: string, tests: { name: string; status: string; message?: string }[], fileStatus = "passed", fileMessage = "") {
  return {
    numPassedTests: tests.filter((t) => t.status === "passed").length,
    numFailedTests: tests.filter((t) => t.status === "failed").length,
    numPendingTests: 0,
    numTodoTests: 0,
    testResults: [
      {
        name: path.join(dir, "test/a.test.ts"),
        startTime: 0,
        endTime: 1500,
        status: fileStatus,
        message: fileMessage,
        assertionResults: tests.map((t) => ({ fullName: t.name, status: t.status, failureMessages: t.message ? [t.message] : [] })),
      },
    ],
  };
}

describe("scripts/test-summary.js", () => {
  it("names each failed test with the start of its message, and writes them to the failures file", async () => {
    const dir = tmp();
    const r = report(dir, [
      { name: "ok", status: "passed" },
      { name: "suite > breaks", status: "failed", message: "AssertionError: expected 1 to be 2\n    at x" },
    ]);
    const { stdout, failures } = await summarize(dir, r, "", 1);
    expect(stdout).toContain("vitest: 1 passed, 1 failed");
    expect(stdout).toContain("1.5 s  test/a.test.ts");
    expect(failures).toContain("FAIL test/a.test.ts > suite > breaks");
    expect(failures).toContain("AssertionError: expected 1 to be 2");
  });

  it("reports a file that failed outside its tests", async () => {
    const dir = tmp();
    const { failures } = await summarize(dir, report(dir, [], "failed", "Error: Cannot find module './gone'"), "", 1);
    expect(failures).toContain("FAIL test/a.test.ts\n    Error: Cannot find module './gone'");
  });

  it("a run that failed with every test passed: the leftover processes or unhandled errors from the log", async () => {
    const dir = tmp();
    const log = ["\u001b[32m✓\u001b[39m lots of tests", "", "the run left 1 process(es) running (now killed):", "  pid 42 (parent 1): node plugin", "", "more"].join("\n");
    const { stdout, failures } = await summarize(dir, report(dir, [{ name: "ok", status: "passed" }]), log, 1);
    expect(stdout).toContain("vitest exited with 1: see below");
    expect(failures).toContain("the run left 1 process(es) running");
    expect(failures).toContain("pid 42 (parent 1): node plugin");

    const files = ["the run left 1 file(s) or folder(s) in its temporary folder (now removed):", "  /tmp/prb-test-run-x/automation-logs-up-1"].join("\n");
    const leftFiles = await summarize(dir, report(dir, [{ name: "ok", status: "passed" }]), files, 1);
    expect(leftFiles.failures).toContain("automation-logs-up-1");

    const unhandled = await summarize(dir, report(dir, [{ name: "ok", status: "passed" }]), "⎯⎯ Unhandled Errors ⎯⎯\nError: write EPIPE\n", 1);
    expect(unhandled.failures).toContain("Error: write EPIPE");
  });

  it("no report and a failed run: the end of the log", async () => {
    const dir = tmp();
    const { failures } = await summarize(dir, undefined, "building\nerror TS2345: bad\n", 2);
    expect(failures).toContain("vitest exited with 2");
    expect(failures).toContain("error TS2345: bad");
  });

  it("a passing run writes no failures file", async () => {
    const dir = tmp();
    expect((await summarize(dir, report(dir, [{ name: "ok", status: "passed" }]), "", 0)).failures).toBeUndefined();
  });
});

describe(".ci/run", () => {
  /** Runs a copy of .ci/run with npm and node stood in for: `npm test` and `npm run X` do what `cells` says. */
  async function ci(cells: Record<string, string>, staleFailures = false) {
    const dir = tmp();
    if (staleFailures) {
      fs.mkdirSync(path.join(dir, ".work"));
      fs.writeFileSync(path.join(dir, ".work/failures-default.txt"), "FAIL from an earlier run\n");
    }
    fs.mkdirSync(path.join(dir, ".ci"));
    fs.copyFileSync(path.join(root, ".ci/run"), path.join(dir, ".ci/run"));
    // The build .ci/run makes once before its lanes start.
    fs.mkdirSync(path.join(dir, "scripts"));
    fs.writeFileSync(path.join(dir, "scripts/build.sh"), "exit 0\n");
    // The Node.js .ci/run puts first on PATH: here, the one running the test.
    fs.writeFileSync(path.join(dir, "scripts/node.sh"), 'dirname "$(command -v node)"\n');
    const bin = path.join(dir, "bin");
    fs.mkdirSync(bin);
    const script = Object.entries(cells)
      .map(([cmd, body]) => `  "${cmd}") ${body} ;;`)
      .join("\n");
    fs.writeFileSync(path.join(bin, "npm"), `#!/usr/bin/env bash\ncase "$*" in\n  "ci --no-audit --no-fund") exit 0 ;;\n${script}\nesac\n`, { mode: 0o755 });
    const run = await runStatus("bash", [".ci/run"], { cwd: dir, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    return { code: run.status, out: run.stdout };
  }

  it("repeats what failed in the first cell after the last cell's output, and fails", async () => {
    const { code, out } = await ci({
      test: `echo default output; mkdir -p .work; printf 'FAIL test/x.test.ts > it broke\\n' > .work/failures-default.txt; exit 1`,
      "run test:current": "for i in $(seq 200); do echo current line $i; done",
      "run test:floor": "echo floor output",
    });
    expect(code).toBe(1);
    const tail = out.slice(out.indexOf("floor output"));
    expect(tail).toContain("::: what failed in cell default\nFAIL test/x.test.ts > it broke");
    expect(tail).toMatch(/default +FAILED \(1\)/);
    expect(tail).toMatch(/current +passed/);
  });

  it("a cell of the first lane after the first: its failure and time in the summary, the others still run", async () => {
    const { code, out } = await ci({
      test: "echo ok",
      "run test:e2e": `mkdir -p .work; printf 'FAIL test/e2e/y.test.ts > it broke too\\n' > .work/failures-e2e.txt; exit 1`,
      "run test:current": "echo ok",
      "run test:floor": "echo floor output",
      "run test:hosts": "echo ok",
    });
    expect(code).toBe(1);
    expect(out).toContain("::: what failed in cell e2e\nFAIL test/e2e/y.test.ts > it broke too");
    const summary = out.slice(out.lastIndexOf("\ndefault "));
    expect(summary).toMatch(/\ndefault +passed in \d+s\ne2e +FAILED \(1\) in \d+s\ncurrent +passed in \d+s\nfloor +passed in \d+s\nhosts +passed in \d+s\n/);
    expect(summary).toMatch(/\nall cells in \d+s\n/);
  });

  it("a cell that failed before its tests: the end of its own output", async () => {
    const { code, out } = await ci({
      test: "echo ok",
      "run test:current": "echo 'cell: no Node 24 to be had'; exit 3",
      "run test:floor": "echo floor output",
    });
    expect(code).toBe(1);
    const tail = out.slice(out.indexOf("floor output"));
    expect(tail).toContain("::: what failed in cell current\n");
    expect(tail).toContain("cell: no Node 24 to be had");
    expect(tail).toMatch(/current +FAILED \(3\)/);
  });

  it("says in its summary that the hosts cell ran nothing where no language host was found", async () => {
    const notRun = "hosts: NOT RUN: no Pulumi language host found on PATH or in /x (pulumi-language-nodejs)";
    const { code, out } = await ci({ test: "echo ok", "run test:current": "echo ok", "run test:floor": "echo ok", "run test:hosts": `echo '${notRun}'` });
    expect(code).toBe(0);
    const summary = out.slice(out.lastIndexOf("\ndefault "));
    expect(summary).toMatch(/\nhosts +passed in \d+s\n/);
    expect(summary).toContain(`\n${notRun}\n`);
  });

  it("passes when every cell passes, with a stale failures file of an earlier run ignored", async () => {
    const { code, out } = await ci({ test: "echo ok", "run test:current": "echo ok", "run test:floor": "echo ok" }, true);
    expect(code).toBe(0);
    expect(out).not.toContain("what failed");
  });
});
