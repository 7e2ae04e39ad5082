import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { until, withStack } from "./harness";

/**
 * Progress on the session's own row, under the real engine: the provider's status lines and warnings
 * must reach the engine's event stream on the waiting session's URN -- the URN the engine gave it,
 * parent types and all -- before that session's outputs, and show in the CLI's non-interactive display.
 */
const TYPE = "pulumi-nodejs:dynamic/remote-browser:BrowserSession";
/** The sessions of ReviewSessions: the plugin's own resource. */
const NATIVE_TYPE = "remote-browser:index:BrowserSession";

interface EngineEvent {
  sequence: number;
  diagnosticEvent?: { urn?: string; message: string; severity: string; ephemeral?: boolean };
  resOutputsEvent?: { metadata: { urn: string; type: string; op: string } };
}

function readEvents(file: string): EngineEvent[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EngineEvent)
    .sort((a, b) => a.sequence - b.sequence);
}

/**
 * While the run writes the file: how many status lines starting with `prefix` each URN has had so far (a
 * line being written is left for the next look).
 */
function statusLinesSoFar(file: string, prefix: string): Map<string, number> {
  const counts = new Map<string, number>();
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  for (const line of text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter(Boolean)) {
    const d = (JSON.parse(line) as EngineEvent).diagnosticEvent;
    if (d?.urn && d.ephemeral && d.message.startsWith(prefix)) counts.set(d.urn, (counts.get(d.urn) ?? 0) + 1);
  }
  return counts;
}

/** Resolves once `sessions` URNs have each had `lines` status lines starting with `prefix`. */
function statusLines(file: string, prefix: string, sessions: number, lines: number): Promise<true> {
  return until(() => [...statusLinesSoFar(file, prefix).values()].filter((n) => n >= lines).length >= sessions || undefined, 120_000, `${lines} "${prefix}" lines on ${sessions} sessions' rows`);
}

/** Each BrowserSession created: its URN, where its outputs arrived, and the diagnostics on its URN before that. */
function sessionsOf(events: EngineEvent[], type = TYPE) {
  return events
    .filter((e) => e.resOutputsEvent?.metadata.type === type)
    .map((e) => {
      const urn = e.resOutputsEvent!.metadata.urn;
      const before = events.filter((d) => d.sequence < e.sequence && d.diagnosticEvent?.urn === urn).map((d) => d.diagnosticEvent!);
      return { urn, name: urn.slice(urn.lastIndexOf("::") + 2), status: before.filter((d) => d.ephemeral), kept: before.filter((d) => !d.ephemeral) };
    });
}

/**
 * These tests are about what an up prints while it waits; its sessions need no destroy afterwards (the
 * harness's cleanup, a cancel and a destroy under the engine): they live in the test's own emulator, closed
 * with its stack, and the destroy path is proven by the lifecycle tests (browser-session.test.ts).
 */
const KEEP = { destroy: false } as const;

describe("progress on the session's own row", () => {
  it("streams status lines on each waiting session's URN during a long preparation, before its outputs", async () => {
    await withStack(
      "progress.js",
      async (stack) => {
        const eventsFile = path.join(stack.workDir, "events.jsonl");
        // Preparation is held until each of the three sessions' rows has shown four status lines.
        stack.emulator.control.preparation({ paused: true });
        const running = stack.start("up", { extraArgs: ["--events-file", eventsFile] });
        await statusLines(eventsFile, "starting:", 3, 4);
        stack.emulator.control.preparation({ paused: false });
        const up = await running.done;
        expect(up.code, up.stderr).toBe(0);
        const sessions = sessionsOf(readEvents(eventsFile));
        expect(sessions.map((s) => s.urn).sort()).toEqual(
          [
            `urn:pulumi:${stack.name}::e2e::${TYPE}::top`,
            `urn:pulumi:${stack.name}::e2e::e2e:index:Review$${TYPE}::review-chrome`,
            `urn:pulumi:${stack.name}::e2e::e2e:index:Review$${TYPE}::review-firefox`,
          ].sort(),
        );
        for (const s of sessions) {
          // About one a second; all of them info, on this URN only.
          expect(s.status.length, s.name).toBeGreaterThanOrEqual(5);
          for (const d of s.status) expect(d.severity).toBe("info");
          const waited = s.status.slice(0, -1).map((d) => Number(/^starting: (\d+)s waited \(state starting\)\s*$/.exec(d.message)?.[1]));
          expect(
            waited.every((n) => n >= 1),
            s.name,
          ).toBe(true);
          expect([...waited].sort((a, b) => a - b)).toEqual(waited);
          // The last word is the outcome, so that the finished row does not keep saying "starting".
          const after = Number(/^running after (\d+)s\s*$/.exec(s.status.at(-1)!.message)?.[1]);
          expect(after, s.status.at(-1)!.message).toBeGreaterThanOrEqual(waited.at(-1)!);
          expect(s.kept).toEqual([]);
        }
        // The CLI's non-interactive display shows them on the session's row.
        expect(up.stdout).toMatch(/top\s+creating[^\n]*starting: \d+s waited \(state starting\)/);
        expect(up.stdout).toMatch(/review-firefox\s+creating[^\n]*starting: \d+s waited/);
        expect(up.stdout).toMatch(/top\s+created[^\n]*running after \d+s/);
        // A status line is not a diagnostic of the update: nothing of it in the summary at the end.
        expect(up.stdout.slice(up.stdout.lastIndexOf("Resources:"))).not.toContain("waited");
        // The URN input changes nothing.
        await stack.run("preview", { expectNoChanges: true });
      },
      KEEP,
    );
  });

  it("reaches the sessions of the ReviewSessions component served by its plugin (another language's program)", async () => {
    const { projectDir } = inject("e2e");
    await withStack(
      "component-review.js",
      async (stack) => {
        const eventsFile = path.join(stack.workDir, "events.jsonl");
        stack.emulator.control.preparation({ paused: true });
        const running = stack.start("up", { config: { browsers: "chrome,firefox" }, extraArgs: ["--events-file", eventsFile] });
        await statusLines(eventsFile, "starting:", 2, 3);
        stack.emulator.control.preparation({ paused: false });
        const up = await running.done;
        expect(up.code, up.stderr).toBe(0);
        const sessions = sessionsOf(readEvents(eventsFile), NATIVE_TYPE);
        expect(sessions.map((s) => s.urn).sort()).toEqual([
          `urn:pulumi:${stack.name}::e2e::remote-browser:index:ReviewSessions$${NATIVE_TYPE}::review-chrome`,
          `urn:pulumi:${stack.name}::e2e::remote-browser:index:ReviewSessions$${NATIVE_TYPE}::review-firefox`,
        ]);
        for (const s of sessions) {
          expect(s.status.length, s.name).toBeGreaterThanOrEqual(4);
          for (const d of s.status.slice(0, -1)) expect(d.message).toMatch(/^starting: \d+s waited \(state starting\)\s*$/);
          expect(s.status.at(-1)!.message).toMatch(/^running after \d+s\s*$/);
        }
      },
      { pathDirs: [path.join(projectDir, "node_modules", ".bin")], ...KEEP },
    );
  });

  it("puts the queue's slots and time, and the capacity warning naming the session, on the queued session", async () => {
    await withStack(
      "progress.js",
      async (stack) => {
        const blocker = (await (
          await fetch(`${stack.emulator.apiBaseUrl}/vm/create`, {
            method: "POST",
            headers: { authorization: `Bearer ${stack.emulator.apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({ browser: "edge" }),
          })
        ).json()) as { status: string; vmId: string };
        expect(blocker.status).toBe("ok");
        const eventsFile = path.join(stack.workDir, "events.jsonl");
        const running = stack.start("up", {
          config: { waitForCapacitySeconds: "60", component: "false" },
          extraArgs: ["--events-file", eventsFile],
        });
        // The slot frees up once the queued session's row has told its place in the queue twice.
        await statusLines(eventsFile, "queued for capacity:", 1, 2);
        stack.emulator.control.setState(blocker.vmId, "deleted");
        const up = await running.done;
        expect(up.code, up.stderr).toBe(0);
        const [top] = sessionsOf(readEvents(eventsFile));
        expect(top!.name).toBe("top");
        const queued = top!.status.filter((d) => d.message.startsWith("queued"));
        expect(queued.length).toBeGreaterThanOrEqual(2);
        for (const d of queued) expect(d.message).toMatch(/^queued for capacity: 1\/1 slots in use, \d+s queued\s*$/);
        expect(top!.kept).toEqual([
          expect.objectContaining({
            severity: "warning",
            message: expect.stringContaining(`BrowserSession "top": the account's running limit is reached (1 of 1); waiting up to 60 s`),
          }),
        ]);
        expect(up.stdout).toMatch(/top\s+creating[^\n]*queued for capacity: 1\/1 slots in use/);
        expect(up.stdout).toContain(`BrowserSession "top": the account's running limit is reached`);
      },
      { emulator: { runningLimit: 1, prepMs: 1_000, prepJitterMs: 0 }, ...KEEP },
    );
  });
});
