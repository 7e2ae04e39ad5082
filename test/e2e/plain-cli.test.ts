import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { withStack } from "./harness";

/**
 * Every program of the project exports its body as a function, so that it also runs with the plain
 * `pulumi up` where a full Pulumi install (with its Node.js language host) exists. This proves that path
 * when the host is on PATH; machines without it (it cannot be built from the Go module proxy) skip it.
 */
const host = (process.env.PATH ?? "")
  .split(path.delimiter)
  .map((dir) => path.join(dir, "pulumi-language-nodejs"))
  .find((file) => fs.existsSync(file));

describe("the plain pulumi CLI", () => {
  it.skipIf(!host)(
    `runs a program folder with pulumi up and destroy (needs pulumi-language-nodejs on PATH${host ? "" : ": not found, so skipped"})`,
    async () => {
      await withStack("sessions.js", async (stack) => {
        fs.writeFileSync(path.join(stack.workDir, "Pulumi.yaml"), "name: e2e\nruntime: nodejs\nmain: programs/sessions.js\n");
        for (const [key, value, secret] of [
          ["remote-browser:baseUrl", stack.emulator.apiBaseUrl, false],
          ["remote-browser:apiKey", stack.emulator.apiKey, true],
        ] as const) {
          // A secret value goes in on standard input, never on the command line.
          const set = secret
            ? await stack.cli(["config", "set", "--secret", key], value)
            : await stack.cli(["config", "set", key, value]);
          expect(set.code, set.stderr).toBe(0);
        }
        const up = await stack.cli(["up", "--yes"]);
        expect(up.code, up.stderr + up.stdout).toBe(0);
        expect(stack.emulator.control.books().running).toBe(1);
        const destroy = await stack.cli(["destroy", "--yes"]);
        expect(destroy.code, destroy.stderr + destroy.stdout).toBe(0);
        expect(stack.emulator.control.books().neverEnded).toBe(0);
      });
    },
  );
});
