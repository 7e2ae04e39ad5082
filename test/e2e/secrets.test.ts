import { describe, expect, it } from "vitest";
import { withStack } from "./harness";
import type { E2EStack } from "./harness";

/** Every secret of a stack: the key, and each session's link id (a share link is its locale plus the id). */
function secretsOf(stack: E2EStack): string[] {
  return [stack.emulator.apiKey, ...stack.emulator.control.sessions().map((s) => s.linkId)];
}

function expectNone(text: string, secrets: string[], where: string): void {
  for (const secret of secrets) expect(text.includes(secret), `a secret appears in ${where}`).toBe(false);
}

describe("secrets stay secret through up, refresh and destroy", () => {
  it("keeps the key and the share links out of the state, the engine's verbose logs and the messages", async () => {
    await withStack("sessions.js", async (stack) => {
      const verbose = ["--verbose", "9"];
      const up = await stack.run("up", { config: { browsers: "chrome,firefox" }, extraArgs: verbose });
      expect(stack.emulator.control.sessions()).toHaveLength(2);
      expectNone(up.stdout + up.stderr, secretsOf(stack), "the output of up at verbosity 9");
      // The engine's logs really were captured (the check above is not vacuous).
      expect(up.stderr).toMatch(/"v":9/);
      expectNone(await stack.exportState(), secretsOf(stack), "stack export after up");
      expectNone(stack.stateFilesText(), secretsOf(stack), "the state files after up");

      const refresh = await stack.run("refresh", { extraArgs: verbose });
      expectNone(refresh.stdout + refresh.stderr, secretsOf(stack), "the output of refresh at verbosity 9");
      expectNone(await stack.exportState(), secretsOf(stack), "stack export after refresh");

      // A failure message: a wrong key and a session that cannot start.
      stack.emulator.control.preparation({ failNext: 1 });
      const failed = await stack
        .run("up", { config: { browsers: "chrome,firefox,edge" }, extraArgs: verbose })
        .then(() => undefined, (e: { stdout: string; stderr: string }) => e);
      expect(failed, "the up should fail").toBeDefined();
      expect(failed!.stdout + failed!.stderr).toMatch(/could not start/);
      expectNone(failed!.stdout + failed!.stderr, secretsOf(stack), "the failed up's messages");

      const destroy = await stack.run("destroy", { extraArgs: verbose });
      expectNone(destroy.stdout + destroy.stderr, secretsOf(stack), "the output of destroy at verbosity 9");
      expectNone(await stack.exportState(), secretsOf(stack), "stack export after destroy");
      expectNone(stack.stateFilesText(), secretsOf(stack), "the state files after destroy");
      expect(stack.emulator.control.books().neverEnded).toBe(0);
    });
  });
});
