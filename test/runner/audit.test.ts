import { describe, expect, it } from "vitest";
import type { ListedSession } from "../../core/dataSources";
import { ambiguousRecorded, classify } from "../../runner/audit";
import { auditMain } from "../../runner/audit-cli";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { listStacks, ofProjects, readStacks, sessionsOfExport } from "../../runner/audit-stacks";
import type { PendingCreate, RecordedSession } from "../../runner/audit-stacks";
import { formatReport, printable, recoveryCommands } from "../../runner/audit-table";
import upgradeState from "../e2e/upgrade/state-v0.1.0.json";

const NOW = Date.parse("2026-11-25T12:00:00.000Z");
const mask = (vmId: string) => `vm-${"*".repeat(vmId.length - 7)}${vmId.slice(-4)}`;
const listed = (vmId: string, browserName: string, minutesAgo: number, status: ListedSession["status"] = "running"): ListedSession => ({
  maskedId: mask(vmId),
  status,
  browserName,
  created: new Date(NOW - minutesAgo * 60_000).toISOString(),
});
const rec = (stack: string, vmId: string): RecordedSession => ({ stack, urn: `urn:pulumi:${stack}::p::t::${vmId}`, vmId });
const names = new Map([
  ["chrome", "Google Chrome"],
  ["firefox", "Mozilla Firefox"],
]);
const run = (sessions: ListedSession[], recorded: RecordedSession[], pending: PendingCreate[] = [], orphanMinutes = 30) =>
  classify(sessions, { recorded, pending, count: 3 }, names, { now: NOW, orphanMinutes });

describe("the audit's matching", () => {
  it("names the stack that records a session, by the visible characters of its masked id", () => {
    const r = run([listed("vm-aaaaaaaa1111", "Google Chrome", 5)], [rec("o/p/pr-1", "vm-aaaaaaaa1111"), rec("o/p/pr-2", "vm-bbbbbbbb2222")]);
    expect(r.rows.map((x) => x.holding)).toEqual([{ kind: "held", stacks: ["o/p/pr-1"] }]);
    expect([r.live, r.held, r.pending, r.heldByNone, r.collisions]).toEqual([1, 1, 0, 0, 0]);
  });

  it("counts only live sessions: ended and failed ones hold no slot", () => {
    const r = run([listed("vm-aaaaaaaa1111", "Google Chrome", 5, "deleted"), listed("vm-cccccccc3333", "Google Chrome", 5, "error"), listed("vm-dddddddd4444", "Brave", 5, "starting")], []);
    expect(r.live).toBe(1);
    expect(r.rows[0]!.session.status).toBe("starting");
  });

  it("holds a session by none when no stack records it and no pending create is of its browser; too old fails", () => {
    const r = run([listed("vm-aaaaaaaa1111", "Google Chrome", 90), listed("vm-bbbbbbbb2222", "Mozilla Firefox", 5)], [], [{ stack: "o/p/pr-3", urn: "u", browser: "edge" }]);
    expect(r.rows.map((x) => x.holding.kind)).toEqual(["none", "none"]);
    expect([r.heldByNone, r.heldByNoneTooOld]).toEqual([2, 1]);
  });

  it("attributes an unrecorded session to a pending create of the same browser", () => {
    const r = run([listed("vm-aaaaaaaa1111", "Google Chrome", 90)], [], [{ stack: "o/p/pr-3", urn: "u", browser: "chrome" }]);
    expect(r.rows[0]!.holding).toEqual({ kind: "pending", stacks: ["o/p/pr-3"] });
    expect([r.pending, r.heldByNone, r.heldByNoneTooOld]).toEqual([1, 0, 0]);
  });

  it("with more sessions of a browser than pending creates of it, says which could be pending and counts the rest as held by none", () => {
    const r = run(
      [listed("vm-aaaaaaaa1111", "Google Chrome", 90), listed("vm-bbbbbbbb2222", "Google Chrome", 80), listed("vm-cccccccc3333", "Google Chrome", 1)],
      [],
      [{ stack: "o/p/pr-3", urn: "u", browser: "chrome" }],
    );
    expect(r.rows.map((x) => x.holding)).toEqual(Array(3).fill({ kind: "unclear", stacks: ["o/p/pr-3"], via: "pending" }));
    // Three sessions, one pending create: at least two are held by none, and of the two old ones at least one.
    expect([r.pending, r.heldByNone, r.unclear, r.unclearHeldByNone, r.heldByNoneTooOld]).toEqual([0, 0, 3, 2, 1]);
  });

  it("counts a collision when two live sessions share a masked id that one stack records: one of them is held by none", () => {
    const r = run([listed("vm-aaaaaaaa1111", "Google Chrome", 90), listed("vm-bbbbbbbb1111", "Google Chrome", 95)], [rec("o/p/pr-1", "vm-aaaaaaaa1111")]);
    expect(r.rows.map((x) => x.holding)).toEqual(Array(2).fill({ kind: "unclear", stacks: ["o/p/pr-1"], via: "recorded" }));
    expect([r.held, r.heldByNone, r.unclear, r.unclearHeldByNone, r.heldByNoneTooOld, r.collisions]).toEqual([0, 0, 2, 1, 1, 1]);
  });

  it("counts a collision but no orphan when one masked id agrees with two recorded vmIds of two stacks", () => {
    const r = run([listed("vm-aaaaaaaa1111", "Google Chrome", 90)], [rec("o/p/pr-1", "vm-aaaaaaaa1111"), rec("o/p/pr-2", "vm-bbbbbbbb1111")]);
    expect(r.rows[0]!.holding).toEqual({ kind: "held", stacks: ["o/p/pr-1", "o/p/pr-2"] });
    expect([r.held, r.heldByNone, r.collisions]).toEqual([1, 0, 1]);
  });

  it("counts the same session recorded by two stacks once, as held, with no collision", () => {
    const r = run([listed("vm-aaaaaaaa1111", "Google Chrome", 5)], [rec("o/p/pr-1", "vm-aaaaaaaa1111"), rec("o/p/pr-2", "vm-aaaaaaaa1111")]);
    expect(r.rows[0]!.holding).toEqual({ kind: "held", stacks: ["o/p/pr-1", "o/p/pr-2"] });
    expect(r.collisions).toBe(0);
  });

  it("does not call a session no stack holds 'held' because a recorded vmId agrees with it whose own session has ended", () => {
    // pr-1 recorded vm-aaaaaaaa1111, which has ended; vm-bbbbbbbb1111, started by hand an hour and a half ago, shows the same characters.
    const sessions = [listed("vm-aaaaaaaa1111", "Google Chrome", 100, "deleted"), listed("vm-bbbbbbbb1111", "Google Chrome", 90)];
    const recorded = [rec("o/p/pr-1", "vm-aaaaaaaa1111")];
    // The list alone cannot tell which of the two the recorded vmId is: a collision, and unclear.
    const unread = run(sessions, recorded);
    expect(unread.rows[0]!.holding).toEqual({ kind: "unclear", stacks: ["o/p/pr-1"], via: "recorded" });
    expect([unread.held, unread.collisions]).toEqual([0, 1]);
    expect(ambiguousRecorded(sessions, recorded)).toEqual(["vm-aaaaaaaa1111"]);
    // Read on its own, the recorded vmId has ended: the live session is held by none, and too old.
    const read = classify(sessions, { recorded, pending: [], count: 3 }, names, { now: NOW, orphanMinutes: 30 }, new Map([["vm-aaaaaaaa1111", "gone"]]));
    expect(read.rows[0]!.holding).toEqual({ kind: "none" });
    expect([read.held, read.heldByNone, read.heldByNoneTooOld, read.collisions]).toEqual([0, 1, 1, 1]);
    // Read on its own and live: it is the listed live session.
    const live = classify(sessions, { recorded, pending: [], count: 3 }, names, { now: NOW, orphanMinutes: 30 }, new Map([["vm-aaaaaaaa1111", "live"]]));
    expect(live.rows[0]!.holding).toEqual({ kind: "held", stacks: ["o/p/pr-1"] });
    // Agreeing with ended sessions only, a recorded vmId holds no live one whichever it is: no read, no collision.
    const history = [listed("vm-aaaaaaaa1111", "Google Chrome", 100, "deleted"), listed("vm-cccccccc1111", "Google Chrome", 200, "deleted")];
    expect(ambiguousRecorded(history, recorded)).toEqual([]);
    expect(run(history, recorded).collisions).toBe(0);
  });

  it("counts a session in a state the spec does not name as holding a slot", () => {
    const r = run([listed("vm-aaaaaaaa1111", "Google Chrome", 90, "queued")], []);
    expect([r.live, r.heldByNone]).toEqual([1, 1]);
  });
});

describe("what the audit reads from a stack's state", () => {
  it("finds the dynamic and component sessions of a recorded state, by their vmIds", () => {
    const found = sessionsOfExport("o/e2e/upgrade", upgradeState);
    expect(found.recorded.map((r) => r.vmId).sort()).toEqual(["vm-47670cda85eea53ff478cb1a", "vm-617c93cdb5845a4d282d996d", "vm-cf66de2c1c0d39836ced43fd"]);
    expect(found.pending).toEqual([]);
  });

  it("finds native sessions, generic dynamic ones by their stored provider, and pending creates with their browser", () => {
    const found = sessionsOfExport("o/p/s", {
      deployment: {
        resources: [
          { urn: "a", type: "remote-browser:index:BrowserSession", outputs: { vmId: "vm-1" } },
          { urn: "b", type: "pulumi-nodejs:dynamic:Resource", inputs: { __provider: 'require("pulumi-remote-browser/provider")' }, outputs: { vmId: "vm-2" } },
          { urn: "c", type: "pulumi-nodejs:dynamic:Resource", inputs: { __provider: "other" }, outputs: { vmId: "vm-3" } },
          { urn: "d", type: "aws:ec2:Instance", outputs: { vmId: "vm-4" } },
        ],
        pending_operations: [
          { type: "creating", resource: { urn: "e", type: "pulumi-nodejs:dynamic/remote-browser:BrowserSession", inputs: { browser: "edge" } } },
          { type: "updating", resource: { urn: "f", type: "remote-browser:index:BrowserSession", inputs: { browser: "edge" } } },
        ],
      },
    });
    expect(found.recorded.map((r) => r.urn)).toEqual(["a", "b"]);
    expect(found.pending).toEqual([{ stack: "o/p/s", urn: "e", browser: "edge" }]);
  });
});

describe("the audit's table", () => {
  it("shows the unclear sessions of a collision beside the certain figures, so that they add up to the live ones", () => {
    const report = run([listed("vm-aaaaaaaa1111", "Google Chrome", 90), listed("vm-bbbbbbbb1111", "Google Chrome", 95), listed("vm-cccccccc2222", "Brave", 1)], [rec("o/p/pr-1", "vm-aaaaaaaa1111")]);
    const text = formatReport(report, { orphanMinutes: 30, calls: 1 });
    expect(text).toContain("running in the account: 3   held by a stack: 0   pending in a stack: 0   held by none: 1   unclear: 2 (at least 1 of them held by none)   masked-id collisions: 1");
    expect(text).toContain("held by none and older than 30 min: 1 (at least)");
    expect(text).toMatch(/vm-\*+1111\s+Google Chrome\s+running\s+1h35m\s+one of o\/p\/pr-1 or NONE \(masked ids collide\)/);
  });

  it("lists held by none first with age and browser, says why they cannot be ended, and prints the commands for a pending create", () => {
    const pending = { stack: "organization/pr/pr-2", urn: "urn:x", browser: "chrome" };
    const report = run([listed("vm-aaaaaaaa1111", "Google Chrome", 5), listed("vm-bbbbbbbb2222", "Mozilla Firefox", 125)], [], [pending]);
    const text = formatReport(report, { backend: { url: "file:///tmp/b" }, orphanMinutes: 30, calls: 2, runnerStacks: new Set(["organization/pr/pr-2"]) });
    const lines = text.split("\n");
    const header = lines.findIndex((l) => l.startsWith("SESSION"));
    expect(lines[header + 1]).toMatch(/^vm-\*+2222\s+Mozilla Firefox\s+running\s+2h05m\s+NONE$/);
    expect(lines[header + 2]).toMatch(/^vm-\*+1111\s+Google Chrome\s+running\s+5m\s+pending create in organization\/pr\/pr-2$/);
    expect(text).toContain("held by none: 1   masked-id collisions: 0");
    expect(text).toContain("held by none and older than 30 min: 1\n");
    expect(text).toContain("    pulumi cancel --yes --stack organization/pr/pr-2\n    pulumi refresh --clear-pending-creates --yes --stack organization/pr/pr-2\n");
    expect(text).toContain("or, as the runner made this stack: pulumi-remote-browser-run refresh --stack pr-2 --project pr --backend file:///tmp/b --clear-pending-creates");
    expect(text).toMatch(/masked ids, and the end operation\s+needs the full id/);
  });

  it("names a backend from the environment by its variable, never by its value", () => {
    expect(recoveryCommands({ stack: "o/p/s", urn: "u" }, { variable: "PULUMI_BACKEND_URL" }, true)[2]).toBe(
      "or, as the runner made this stack: pulumi-remote-browser-run refresh --stack s --project p --backend-env PULUMI_BACKEND_URL --clear-pending-creates",
    );
  });

  it("prints only the plain CLI's commands, which fit any program, for a stack the runner did not make", () => {
    const pending = { stack: "org/yproj/dev", urn: "urn:pulumi:dev::yproj::remote-browser:index:BrowserSession::s", browser: "chrome" };
    expect(recoveryCommands(pending, { variable: "PULUMI_BACKEND_URL" })).toEqual(["pulumi cancel --yes --stack org/yproj/dev", "pulumi refresh --clear-pending-creates --yes --stack org/yproj/dev"]);
    const text = formatReport(run([listed("vm-aaaaaaaa1111", "Google Chrome", 5)], [], [pending]), { orphanMinutes: 30, calls: 2, runnerStacks: new Set(["org/other/dev"]) });
    expect(text).not.toContain("pulumi-remote-browser-run");
    expect(text).toContain("pulumi refresh --clear-pending-creates --yes --stack org/yproj/dev");
  });

  it("prints what a stack's state says escaped: no line breaks, ANSI escapes or workflow commands from a URN or an input", () => {
    const evil = {
      stack: "org/p/s",
      urn: "urn:pulumi:s::p::remote-browser:index:BrowserSession::x\n::error::pwned\r\u001b[31mred\u2028::add-mask::x",
      browser: "\n::warning::from-browser",
    };
    const report = run([listed("vm-aaaaaaaa1111", "::error::Google Chrome", 5), listed("vm-bbbbbbbb2222", "Brave\n::error::in-a-cell\u001b[2J", 5)], [], [evil]);
    const text = formatReport(report, { orphanMinutes: 30, calls: 2 });
    for (const line of text.split("\n")) expect(line.trimStart(), line).not.toMatch(/^::/);
    // eslint-disable-next-line no-control-regex -- no terminal escape may reach the output
    expect(text).not.toMatch(/[\u001b\r\u2028]/);
    expect(text).toContain("BrowserSession::x\\x0a::error::pwned\\x0d\\x1b[31mred\\u2028::add-mask::x");
    expect(text).toContain("(browser \\x0a::warning::from-browser)");
    expect(text).toMatch(/^vm-\*+2222\s+Brave\\x0a::error::in-a-cell\\x1b\[2J\s+running/m);
    expect(printable("::error::x")).toBe("\\x3a:error::x");
    expect(printable("urn:pulumi:a::b")).toBe("urn:pulumi:a::b");
  });

  it("names the stacks it could not read, and still reports the others", () => {
    const report = run([listed("vm-aaaaaaaa1111", "Google Chrome", 5)], [rec("o/p/pr-1", "vm-aaaaaaaa1111")]);
    const text = formatReport(report, { orphanMinutes: 30, calls: 1, unreadable: [{ stack: "o/p/broken", reason: "its state is not valid JSON (truncated or corrupt?)" }] });
    expect(text).toContain("Stacks that could not be read (1): what they record is not counted");
    expect(text).toContain("  o/p/broken: its state is not valid JSON (truncated or corrupt?)");
    expect(text).toContain("held by a stack: 1");
  });
});

describe("the audit's command line", () => {
  it("reads the stacks of the given projects only, or of all", () => {
    const stacks = ["org/web/pr-1", "org/api/pr-2", "org/web/pr-3"];
    expect(ofProjects(stacks, ["web"])).toEqual(["org/web/pr-1", "org/web/pr-3"]);
    expect(ofProjects(stacks, [])).toEqual(stacks);
    expect(ofProjects(stacks)).toEqual(stacks);
  });

  it("refuses a threshold that is not a number of minutes, and runs without a key nowhere, naming what is missing", async () => {
    const saved = { key: process.env.REMOTE_BROWSER_API_KEY, url: process.env.REMOTE_BROWSER_BASE_URL };
    try {
      await expect(auditMain(["--orphan-minutes", "soon"])).rejects.toThrow(/--orphan-minutes takes a number of minutes from 0, got "soon"/);
      delete process.env.REMOTE_BROWSER_API_KEY;
      process.env.REMOTE_BROWSER_BASE_URL = "http://127.0.0.1:9/v8";
      await expect(auditMain([])).rejects.toThrow(/the audit reads the account's sessions: set REMOTE_BROWSER_API_KEY/);
    } finally {
      for (const [name, v] of [
        ["REMOTE_BROWSER_API_KEY", saved.key],
        ["REMOTE_BROWSER_BASE_URL", saved.url],
      ] as const) {
        if (v === undefined) delete process.env[name];
        else process.env[name] = v;
      }
    }
  });
});

describe("reading the stacks", () => {
  it("lists a file backend's stacks from its folder when the CLI's list fails (it reads every state, and fails on one corrupt)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-audit-list-"));
    try {
      const stacks = path.join(dir, "backend", ".pulumi", "stacks");
      fs.mkdirSync(path.join(stacks, "web"), { recursive: true });
      fs.mkdirSync(path.join(stacks, "api"), { recursive: true });
      for (const f of ["web/pr-1.json", "web/pr-1.json.bak", "web/pr-2.json.gz", "api/dev.json", "api/dev.json.attrs"]) fs.writeFileSync(path.join(stacks, f), "{");
      const bin = path.join(dir, "pulumi");
      fs.writeFileSync(bin, `#!/bin/sh\necho "error: could not list stacks: unexpected end of JSON input" >&2\nexit 255\n`, { mode: 0o755 });
      const cli = { pulumiBin: bin, env: { PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}` }, cwd: dir };
      expect(await listStacks(cli)).toEqual(["organization/api/dev", "organization/web/pr-1", "organization/web/pr-2"]);
      expect(await listStacks(cli, ["web"])).toEqual(["organization/web/pr-1", "organization/web/pr-2"]);
      // Any other backend: the CLI's error stands.
      await expect(listStacks({ ...cli, env: { PULUMI_BACKEND_URL: "postgres://u@h/db" } })).rejects.toThrow(/could not list stacks/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports a stack whose state is truncated, or whose export fails, as unreadable, and reads every other one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-audit-read-"));
    try {
      const good = JSON.stringify({ deployment: { resources: [{ urn: "u1", type: "remote-browser:index:BrowserSession", outputs: { vmId: "vm-1" } }] } });
      const bin = path.join(dir, "pulumi");
      // A stand-in CLI: `stack export --stack <name>` answers per stack.
      fs.writeFileSync(
        bin,
        `#!/bin/sh\ncase "$4" in\n  o/p/broken) printf '{"deployment": {"resour' ;;\n  o/p/gone) echo "error: no stack o/p/gone" >&2; exit 255 ;;\n  *) printf '%s' '${good}' ;;\nesac\n`,
        { mode: 0o755 },
      );
      const read = await readStacks({ pulumiBin: bin, env: {}, cwd: dir }, ["o/p/a", "o/p/broken", "o/p/b", "o/p/gone"]);
      expect(read.recorded.map((r) => r.stack).sort()).toEqual(["o/p/a", "o/p/b"]);
      expect(read.unreadable?.sort((x, y) => x.stack.localeCompare(y.stack))).toEqual([
        { stack: "o/p/broken", reason: "its state is not valid JSON (truncated or corrupt?)" },
        { stack: "o/p/gone", reason: "pulumi stack export failed: error: no stack o/p/gone" },
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
