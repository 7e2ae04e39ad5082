import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import type { EmulatorControl, FaultSpec } from "../../emulator";
import { RunFailed, until, withStack } from "./harness";
import type { E2EStack } from "./harness";

/**
 * The fault campaign under the real engine: every operation the provider uses, with transient faults
 * that must be ridden out and permanent ones that must end in a message naming the status and cause.
 * After each scenario no session may run that the stack did not record, and a stack whose destroy
 * failed must still hold its session and end it with the next destroy.
 */
interface Scenario {
  name: string;
  faults?: FaultSpec[];
  setup?: (control: EmulatorControl) => void;
  /** When the faults apply: to the first up (default) or to the destroy after a clean up. */
  during?: "up" | "destroy" | "preview";
  config?: Record<string, string>;
  /** Absent: the operation must succeed despite the faults. */
  fails?: RegExp;
  /** For a create that succeeds: how many of its calls the service answered from the idempotency key's session. */
  replays?: number;
  /** How many calls the operation may make in all: a final refusal is not asked again. */
  calls?: number;
  /** The answer was late: a later call of the same operation must arrive before the late answer would have. */
  timedOut?: boolean;
}

/** The provider's own setting (its namespace, not the program's): one second per attempt. */
const SLOW = { "remote-browser:requestTimeoutSeconds": "1" };
/** Far longer than SLOW's time-out plus a backoff, so that a retry arriving before it proves the time-out. */
const LATE_MS = 6_000;

export const SCENARIOS: Scenario[] = [
  // create
  { name: "create: two service errors are retried", faults: [{ operation: "create", kind: "error", count: 2 }], replays: 0 },
  {
    name: "create: a persistent service error fails with its status",
    faults: [{ operation: "create", kind: "error", count: 50 }],
    fails: /create session failed: the service reported a fault on its side \(error\); service message: "injected fault/,
  },
  { name: "create: a reset connection is retried", faults: [{ operation: "create", kind: "reset", count: 2 }], replays: 0 },
  { name: "create: a lost answer is retried under the same key, starting one session", faults: [{ operation: "create", kind: "reset_after", count: 1 }], replays: 1 },
  { name: "create: rate limiting is waited out", faults: [{ operation: "create", kind: "rate_limited", count: 2 }], replays: 0 },
  {
    name: "create: a time-out is retried under the same key, starting one session",
    faults: [{ operation: "create", kind: "delay", count: 1, delayMs: LATE_MS }],
    config: SLOW,
    replays: 1,
    timedOut: true,
  },
  { name: "create: a failed security check is final", faults: [{ operation: "create", kind: "insecure", count: 1 }], fails: /security check failed \(insecure, reason suspicious_request\)/, calls: 1 },
  // status
  { name: "status: service errors while waiting are retried", faults: [{ operation: "status", kind: "error", count: 3 }] },
  {
    name: "status: a persistent error ends the session and says so",
    faults: [{ operation: "status", kind: "error", count: 200 }],
    fails: /waiting for session vm-\S+ to run failed: read session status failed: .*\(error\).*the session was ended/s,
  },
  { name: "status: reset connections are retried", faults: [{ operation: "status", kind: "reset", count: 2 }] },
  { name: "status: rate limiting is waited out", faults: [{ operation: "status", kind: "rate_limited", count: 2 }] },
  { name: "status: a slow answer times out and is retried", faults: [{ operation: "status", kind: "delay_before", count: 1, delayMs: LATE_MS }], config: SLOW, timedOut: true },
  // remove
  { name: "remove: service errors on destroy are retried", during: "destroy", faults: [{ operation: "remove", kind: "error", count: 2 }] },
  { name: "remove: reset connections on destroy are retried", during: "destroy", faults: [{ operation: "remove", kind: "reset", count: 2 }] },
  { name: "remove: a slow answer on destroy times out and is retried", during: "destroy", faults: [{ operation: "remove", kind: "delay", count: 1, delayMs: LATE_MS }], config: SLOW, timedOut: true },
  {
    name: "remove: a persistent error keeps the session in the stack for the next destroy",
    during: "destroy",
    faults: [{ operation: "remove", kind: "error", count: 50 }],
    fails: /ending session vm-\S+ failed, so it stays in the stack for a later destroy to retry: end session failed: .*\(error\)/,
  },
  // image (check)
  { name: "image: service errors at preview are retried", during: "preview", faults: [{ operation: "image", kind: "error", count: 2 }] },
  {
    name: "image: a persistent error fails the preview with its status",
    during: "preview",
    faults: [{ operation: "image", kind: "error", count: 50 }],
    fails: /list images failed: the service reported a fault on its side \(error\)/,
  },
  // account (check) and quota (data source)
  { name: "account: service errors at preview are retried", during: "preview", faults: [{ operation: "account", kind: "error", count: 2 }] },
  { name: "quota: service errors in getUsage are retried", faults: [{ operation: "quota", kind: "error", count: 2 }], config: { useUsage: "true" }, replays: 0 },
  {
    name: "quota: a persistent error fails getUsage with its status",
    faults: [{ operation: "quota", kind: "error", count: 50 }],
    config: { useUsage: "true" },
    fails: /read quota failed: the service reported a fault on its side \(error\)/,
  },
  // preparation
  {
    name: "preparation: a failed preparation ends the session and says so",
    setup: (c) => c.preparation({ failNext: 1 }),
    fails: /session vm-\S+ could not start: its preparation ended in state "error"; the session was ended/,
  },
  {
    name: "preparation: a slow preparation past the deadline ends the session",
    setup: (c) => c.settings({ prepMs: 4_000, prepJitterMs: 0 }),
    config: { readyTimeoutSeconds: "1" },
    fails: /session vm-\S+ was not running after 1 s \(last state "starting"\).*the session was ended/s,
  },
];

/** The log's operations a fault on `op` applies to. */
function loggedAs(op: FaultSpec["operation"]): string[] {
  return op === "status" ? ["status", "list"] : [op];
}

/**
 * That each fault really hit the operation: its calls carry the fault's tag in the service's request log,
 * a transient fault was used up, and a persistent one was met more than once (the call was retried) unless
 * the scenario says the refusal is final. A late answer is logged only when it is sent, so that is waited for.
 */
async function expectFaultsFired(control: EmulatorControl, scenario: Scenario): Promise<void> {
  for (const f of scenario.faults ?? []) {
    const ops = loggedAs(f.operation);
    const count = f.count ?? 1;
    const late = f.kind === "delay" || f.kind === "delay_before";
    const hits = await until(
      () => {
        const h = control.requests().filter((r) => ops.includes(r.operation) && r.fault === f.kind);
        return late && h.length === 0 ? undefined : h;
      },
      (f.delayMs ?? 0) + 30_000,
      `the ${f.kind} fault on ${f.operation} in the request log ${JSON.stringify({ faults: control.faults(), log: control.requests().map((r) => [r.operation, r.fault, r.httpStatus]) })}`,
    );
    const left = control.faults().find((a) => a.operation === f.operation && a.kind === f.kind)?.remaining ?? 0;
    if (!scenario.fails) {
      expect(hits.length, `every ${f.kind} fault on ${f.operation} fired`).toBe(count);
      expect(left, `no ${f.kind} fault on ${f.operation} is left`).toBe(0);
    } else if (scenario.calls !== undefined) {
      expect(hits.length).toBe(scenario.calls);
    } else {
      expect(hits.length, `a persistent ${f.kind} on ${f.operation} was retried before the failure`).toBeGreaterThan(1);
    }
    const all = control.requests().filter((r) => ops.includes(r.operation));
    if (scenario.calls !== undefined) expect(all, `${f.operation} is not asked again after a final refusal`).toHaveLength(scenario.calls);
    if (scenario.timedOut) {
      // The attempt was given up at the time-out: the retry arrived while the late answer was still pending.
      const first = hits[0]!;
      const retry = all.find((r) => r.seq !== first.seq && r.t > first.t);
      expect(retry, `a retry of ${f.operation} after the time-out`).toBeDefined();
      expect(retry!.t - first.t, `the retry of ${f.operation} came before the late answer`).toBeLessThan(f.delayMs!);
      expect(retry!.fault).toBeUndefined();
    }
  }
}

/**
 * The sessions the stack's checkpoint records: the file the engine's file backend keeps, which `pulumi stack
 * export` prints (read directly: a CLI start per scenario was a good part of the campaign's CPU).
 */
function recordedIds(stack: E2EStack): string[] {
  const stacks = path.join(stack.workDir, ".pulumi-local", "backend", ".pulumi", "stacks");
  const files = fs.existsSync(stacks) ? (fs.readdirSync(stacks, { recursive: true }) as string[]).filter((f) => path.basename(f).startsWith(`${stack.name}.json`)) : [];
  const file = files.find((f) => f.endsWith(".json")) ?? files.find((f) => f.endsWith(".json.gz"));
  if (!file) throw new Error(`no checkpoint of stack ${stack.name} under ${stacks}`);
  const raw = fs.readFileSync(path.join(stacks, file));
  const text = file.endsWith(".gz") ? zlib.gunzipSync(raw).toString("utf8") : raw.toString("utf8");
  const resources = (JSON.parse(text).checkpoint?.latest?.resources ?? []) as Array<{ type: string; id: string }>;
  return resources.filter((r) => r.type.endsWith(":BrowserSession")).map((r) => r.id);
}

/**
 * A destroy scenario needs a stack holding a session: the stack of a create or status scenario that
 * succeeded, whose session it then ends, so that the campaign starts no extra update for it. The update
 * carries the destroy's settings, because a destroy works with the provider settings of the last update.
 */
const AFTER: Record<string, string> = {
  "create: two service errors are retried": "remove: service errors on destroy are retried",
  "create: a reset connection is retried": "remove: reset connections on destroy are retried",
  "create: a time-out is retried under the same key, starting one session": "remove: a slow answer on destroy times out and is retried",
  "status: reset connections are retried": "remove: a persistent error keeps the session in the stack for the next destroy",
};

const byName = new Map(SCENARIOS.map((s) => [s.name, s]));
const GROUPS: Scenario[][] = SCENARIOS.filter((s) => !Object.values(AFTER).includes(s.name)).map((s) => (AFTER[s.name] ? [s, byName.get(AFTER[s.name])!] : [s]));

/** Runs one scenario's operation with its faults on the stack and checks what it must show; returns the sessions the stack holds after it. */
async function runScenario(stack: E2EStack, scenario: Scenario, ran: Set<string>): Promise<string[]> {
  const control = stack.emulator.control;
  const during = scenario.during ?? "up";
  scenario.setup?.(control);
  for (const f of scenario.faults ?? []) control.fault(f);
  const result = await stack.run(during, { config: scenario.config ?? {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (scenario.fails) {
    expect(result, "the operation should fail").toBeInstanceOf(RunFailed);
    const text = (result as RunFailed).stdout + (result as RunFailed).stderr;
    expect(text).toMatch(scenario.fails);
    expect(text).not.toContain(stack.emulator.apiKey);
  } else {
    expect(result, result instanceof RunFailed ? result.stderr + result.stdout : "").toBeUndefined();
  }
  await expectFaultsFired(control, scenario);
  if (during === "up" && !scenario.fails) {
    // One session for the one the program declares, whatever was retried.
    expect(control.books().started, "sessions started").toBe(1);
    if (scenario.replays !== undefined) expect(control.books().idempotentReplays, "creates answered from the key's session").toBe(scenario.replays);
  }
  const recorded = recordedIds(stack);
  if (during !== "destroy") recorded.forEach((id) => ran.add(id));
  // No duplicates and no leaks: a session that ran is one the stack recorded, or one the provider
  // already ended because its create failed.
  for (const s of control.sessions()) {
    if (s.runningAt === null || ran.has(s.vmId)) continue;
    expect(s.status, `session ${s.vmId} ran, was never recorded and is still ${s.status}`).toMatch(/stopping|suspended|deleted/);
  }
  // A destroy that failed keeps its session in the stack for the next one; one that went through leaves none.
  if (during === "destroy") expect(recorded).toHaveLength(scenario.fails ? 1 : 0);
  if (during === "preview") expect(control.books().createCalls).toBe(0);
  control.clearFaults();
  control.settings({ prepMs: 300 });
  control.clearRequests();
  return recorded;
}

/** What a unit (a scenario, or a scenario and the destroy scenario after it) leaves in its stack. */
function leavesSessions(unit: Scenario[]): boolean {
  const last = unit.at(-1)!;
  return (last.during ?? "up") === "up" && !last.fails;
}

const configOf = (unit: Scenario[]) => Object.assign({}, ...unit.map((s) => s.config ?? {})) as Record<string, string>;

/**
 * The units run in lanes, one stack and one emulator each (a stack's creation was a good part of each
 * scenario's cost): a lane's units share their settings (the stack keeps its config from run to run), every
 * unit but the last leaves the stack empty (a preview, a failed up, or a destroy after the up), and the
 * emulator is reset between units, so each unit meets a service as fresh as its own emulator's: no sessions,
 * counters, request log or idempotency keys of the unit before.
 */
const LANES: Scenario[][][] = (() => {
  const lanes: Scenario[][][] = [];
  const byConfig = new Map<string, Scenario[][]>();
  for (const unit of GROUPS) {
    const key = JSON.stringify(configOf(unit));
    byConfig.set(key, [...(byConfig.get(key) ?? []), unit]);
  }
  for (const units of byConfig.values()) {
    const holders = units.filter(leavesSessions);
    // Previews first (each on a stack that never had an update, as a new stack is), then failed ups and destroys.
    const empties = units.filter((u) => !leavesSessions(u)).sort((a, b) => Number(b[0]!.during === "preview") - Number(a[0]!.during === "preview"));
    const mine: Scenario[][][] = (holders.length ? holders : [undefined]).map(() => []);
    empties.forEach((u, i) => mine[i % mine.length]!.push(u));
    holders.forEach((u, i) => mine[i]!.push(u));
    lanes.push(...mine);
  }
  return lanes;
})();

describe.concurrent("fault campaign under the real engine", () => {
  it("runs every scenario exactly once, in lanes whose units leave the stack empty for the next", () => {
    expect(
      LANES.flat(2)
        .map((s) => s.name)
        .sort(),
    ).toEqual(SCENARIOS.map((s) => s.name).sort());
    for (const lane of LANES) {
      lane.slice(0, -1).forEach((unit) => expect(leavesSessions(unit), unit[0]!.name).toBe(false));
      expect(new Set(lane.map((u) => JSON.stringify(configOf(u)))).size).toBe(1);
    }
  });

  for (const lane of LANES) {
    it(lane.map((unit) => unit.map((s) => s.name).join("; then ")).join("; next, "), async () => {
      await withStack(
        "sessions.js",
        async (stack) => {
          const control = stack.emulator.control;
          for (const [i, group] of lane.entries()) {
            // The unit before left the stack empty and everything it started ended: a clean service for this one.
            if (i > 0) control.reset();
            const ran = new Set<string>();
            const config = configOf(group);
            if (group[0]!.during === "destroy") {
              const up = await stack.run("up", { config });
              Object.values(up.outputs.vmIds as Record<string, string>).forEach((id) => ran.add(id));
              control.clearRequests();
            }
            let recorded: string[] = [];
            for (const scenario of group) recorded = await runScenario(stack, { ...scenario, config }, ran);
            // A session a failed destroy kept is ended by the next destroy. Otherwise what is still running
            // is exactly what the stack holds (a stack that holds nothing left nothing running by itself: a
            // failed create ends its session); ending those would test destroy, not the fault.
            if (group.at(-1)!.during === "destroy" && recorded.length > 0) {
              await stack.run("destroy");
              expect(control.books().neverEnded).toBe(0);
              recorded = recordedIds(stack);
            } else {
              const active = control
                .sessions()
                .filter((s) => s.status === "starting" || s.status === "running")
                .map((s) => s.vmId);
              expect(active.sort()).toEqual([...recorded].sort());
            }
            if (i < lane.length - 1) expect(recorded, "the stack is empty for the next unit").toEqual([]);
          }
        },
        // The emulator goes with the test: nothing to clean up behind it.
        { destroy: false },
      );
    });
  }
});
