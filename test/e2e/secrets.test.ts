import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { withStack } from "./harness";
import type { E2EStack } from "./harness";

/**
 * Every secret of a stack: the key, each session's link id (a share link is its locale plus the id) and the
 * idempotency key the session was started under (with the API key it replays the create, share link and all),
 * as the service recorded them.
 */
function secretsOf(stack: E2EStack): string[] {
  const sessions = stack.emulator.control.sessions();
  const keys = sessions.map((s) => s.idempotencyKey).filter((k): k is string => !!k);
  expect(keys.length, "every session was started under an idempotency key").toBe(sessions.length);
  return [stack.emulator.apiKey, ...sessions.map((s) => s.linkId), ...keys];
}

function expectNone(text: string, secrets: string[], where: string): void {
  for (const secret of secrets) expect(text.includes(secret), `a secret appears in ${where}`).toBe(false);
}

/** Runs the runner with its redaction off: the engine's output as it is. */
const RAW = ["-r", path.join(__dirname, "programs", "raw-output.cjs")];
const RAW_SIGN = "raw-output: the runner's redaction is off";

/**
 * What Pulumi itself prints in plain text at higher verbosity, which no provider can prevent: the engine
 * logs provider configuration as `{&{{value}}}` (from -v=7), every property it (un)marshals for an RPC,
 * a provider's answers before it marks their secrets (`shareUrl={...}`, `__idempotencyKey={prb-...}`, at
 * -v=9), and the Node.js SDK and the engine log secret values inside their secret envelope (from -v=3).
 * Cut out, what remains is everything else the engine, the SDK, the runner's program and the provider
 * printed -- and there no secret may appear.
 */
function withoutPulumisOwnLeaks(text: string): string {
  return text
    .replace(/(arshaling property for RPC\[.*?\]: [^=]*=).*?(",\s*"v":)/g, "$1[cut]$2")
    .replace(/\{&\{\{[^{}]*\}\}\}/g, "{&{{[cut]}}}")
    .replace(/(4dabf18193072939515e22adb298388d\\*"?[,:]+\\*"?1b47061264138c4ac30d75fd1eb44270\\*"?[,:]+\\*"?value\\*"?[,:]+)[^,}]*/g, "$1[cut]");
}

describe("secrets stay secret through up, refresh and destroy", () => {
  it("keeps the key and the share links out of the state, the engine's verbose logs and the messages", async () => {
    await withStack("sessions.js", async (stack) => {
      const verbose = ["--verbose", "9"];
      // The raw output first: Pulumi's own leaks aside, nothing the provider or the program prints holds a secret.
      const raw = await stack.run("up", { config: { browsers: "chrome,firefox" }, extraArgs: verbose, nodeArgs: RAW });
      expect(stack.emulator.control.sessions()).toHaveLength(2);
      expect(raw.stderr, "the engine's logs were captured").toMatch(/"v":9/);
      expect(raw.stderr, "the redaction really was off").toContain(RAW_SIGN);
      // Not vacuous: unredacted, the engine's logs do hold every secret (as Pulumi's own leaks).
      for (const secret of secretsOf(stack).slice(1)) expect(raw.stderr).toContain(secret);
      expectNone(withoutPulumisOwnLeaks(raw.stdout + raw.stderr), secretsOf(stack), "the raw output of up at verbosity 9");
      // The redacted output: nothing at all. The key is not handed to this run (the stack's config holds it
      // since the first), so the runner must find it there to redact it.
      // The events file, too: at -v=3 and above its diagnostics carry the SDK's logs, secret envelopes and all.
      const events = path.join(stack.workDir, "events.jsonl");
      const up = await stack.run("up", { config: { browsers: "chrome,firefox" }, extraArgs: [...verbose, "--events-file", events], apiKey: null });
      expect(up.changes).toEqual({ same: 3 });
      expectNone(up.stdout + up.stderr, secretsOf(stack), "the output of up at verbosity 9");
      expect(up.stderr).not.toContain(RAW_SIGN);
      const eventsText = fs.readFileSync(events, "utf8");
      expect(eventsText, "the events file holds the SDK's registration logs").toMatch(/RegisterResource RPC finished/);
      expectNone(eventsText, secretsOf(stack), "the events file of up at verbosity 9");
      // The engine's logs really were captured (the check above is not vacuous).
      expect(up.stderr).toMatch(/"v":9/);
      expectNone(await stack.exportState(), secretsOf(stack), "stack export after up");
      expectNone(stack.stateFilesText(), secretsOf(stack), "the state files after up");

      const refresh = await stack.run("refresh", { extraArgs: [...verbose, "--events-file", events] });
      expectNone(refresh.stdout + refresh.stderr, secretsOf(stack), "the output of refresh at verbosity 9");
      expectNone(fs.readFileSync(events, "utf8"), secretsOf(stack), "the events file of refresh at verbosity 9");
      expectNone(await stack.exportState(), secretsOf(stack), "stack export after refresh");

      // A failure message: a wrong key and a session that cannot start.
      stack.emulator.control.preparation({ failNext: 1 });
      const failed = await stack.run("up", { config: { browsers: "chrome,firefox,edge" }, extraArgs: verbose }).then(
        () => undefined,
        (e: { stdout: string; stderr: string }) => e,
      );
      expect(failed, "the up should fail").toBeDefined();
      expect(failed!.stdout + failed!.stderr).toMatch(/could not start/);
      expectNone(failed!.stdout + failed!.stderr, secretsOf(stack), "the failed up's messages");
      // A failure's messages as the engine prints them, below the verbosity where Pulumi prints secrets itself.
      stack.emulator.control.preparation({ failNext: 1 });
      const failedRaw = await stack.run("up", { config: { browsers: "chrome,firefox,edge,brave" }, extraArgs: ["--verbose", "2"], nodeArgs: RAW }).then(
        () => undefined,
        (e: { stdout: string; stderr: string }) => e,
      );
      expect(failedRaw!.stdout + failedRaw!.stderr).toMatch(/could not start/);
      expect(failedRaw!.stderr).toContain(RAW_SIGN);
      expectNone(failedRaw!.stdout + failedRaw!.stderr, secretsOf(stack), "the raw messages of a failed up");

      const destroy = await stack.run("destroy", { extraArgs: [...verbose, "--events-file", events] });
      expectNone(destroy.stdout + destroy.stderr, secretsOf(stack), "the output of destroy at verbosity 9");
      expectNone(fs.readFileSync(events, "utf8"), secretsOf(stack), "the events file of destroy at verbosity 9");
      expectNone(await stack.exportState(), secretsOf(stack), "stack export after destroy");
      expectNone(stack.stateFilesText(), secretsOf(stack), "the state files after destroy");
      expect(stack.emulator.control.books().neverEnded).toBe(0);
    });
  });
});
