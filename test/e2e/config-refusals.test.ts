import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { RunFailed, withStack } from "./harness";

/**
 * Settings refused on the TypeScript path (the runner, the SDK and the dynamic provider) under the real
 * engine, before a password or a key's JSON text can be recorded or sent: what the engine prints and what the
 * backend holds (state, backups, history) are read, not only the runner's message.
 */
const failure = (e: unknown) => {
  expect(e, "the run should fail").toBeInstanceOf(RunFailed);
  return `${(e as RunFailed).stdout}\n${(e as RunFailed).stderr}`;
};

describe.concurrent("settings refused on the TypeScript path", () => {
  it("a password in baseUrl: refused at --config before the engine runs, and by the SDK before the first resource registers", async () => {
    await withStack(
      "sessions.js",
      async (stack) => {
        const password = `pw-${Math.random().toString(36).slice(2)}-hunter2`;
        const withPassword = stack.emulator.apiBaseUrl.replace("://", `://someone:${password}@`);
        const refused = await stack.run("up", { baseUrl: withPassword }).catch((e: unknown) => e);
        expect((refused as RunFailed).code).toBe(2);
        expect(failure(refused)).toMatch(/remote-browser:baseUrl carries a user name or password: .*Nothing was run/);
        expect(failure(refused)).not.toContain(password);
        expect(fs.existsSync(path.join(stack.workDir, `Pulumi.${stack.name}.yaml`)), "no stack config was written").toBe(false);

        // Set in the stack's config by hand, the SDK refuses it before registering anything, so no provider's
        // inputs -- and no state, backup or checkpoint -- hold it.
        await stack.run("up", { config: { browsers: "chrome" } });
        expect(stack.emulator.control.books().started).toBe(1);
        const set = await stack.cli(["config", "set", "remote-browser:baseUrl", withPassword]);
        expect(set.code, set.stderr).toBe(0);
        const up = await stack.run("up", { baseUrl: "", config: { browsers: "chrome,firefox" } }).catch((e: unknown) => e);
        expect(failure(up)).toMatch(/remote-browser:baseUrl carries a user name or password: .*Refused before this provider registered anything/);
        expect(failure(up)).not.toContain(password);
        expect(await stack.exportState()).not.toContain(password);
        // The state file, its .bak and the backups: what the default provider's inputs would have carried.
        const backend = path.join(stack.workDir, ".pulumi-local", "backend", ".pulumi");
        for (const part of ["stacks", "backups"]) {
          const dir = path.join(backend, part);
          for (const f of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
            const file = path.join(dir, f);
            if (fs.statSync(file).isFile()) expect(fs.readFileSync(file, "latin1").includes(password), `${part}/${f}`).toBe(false);
          }
        }
        expect(stack.emulator.control.books().started, "nothing started").toBe(1);
        await stack.cli(["config", "set", "remote-browser:baseUrl", stack.emulator.apiBaseUrl]);
        await stack.run("destroy");
      },
      { configEveryRun: true },
    );
  });

  it("an apiKey set as a structured value (config set --path) is refused as a non-string, and its JSON text is never sent as the key", async () => {
    await withStack("sessions.js", async (stack) => {
      const key = stack.emulator.apiKey;
      // The stack, made by the plain CLI (the runner's own making of it is not the point here, and would cost
      // an engine run).
      fs.writeFileSync(path.join(stack.workDir, "Pulumi.yaml"), "name: e2e\nruntime: nodejs\n");
      const init = await stack.cli(["stack", "init"]);
      expect(init.code, init.stderr).toBe(0);
      // The CLI built here loads its password-strength dictionaries at their first use, not at its start
      // (scripts/lazy-dictionaries.js): they still refuse, without --secret, a value that looks like a
      // secret under a key named like one (the CLI's pattern: pass, pwd, secret, token; not apiKey), and
      // nothing is written.
      const plain = await stack.cli(["config", "set", "deployToken"], "Zq8#vT3xLp9!rW2mKd7@");
      expect(plain.code).not.toBe(0);
      expect(plain.stderr).toMatch(/config value for 'e2e:deployToken' looks like a secret; rerun with --secret/);
      const stackConfig = path.join(stack.workDir, `Pulumi.${stack.name}.yaml`);
      expect(fs.existsSync(stackConfig) ? fs.readFileSync(stackConfig, "utf8") : "").not.toContain("Zq8#");
      // The dictionaries were read: a common word and a run of digits are no secret, where twelve random
      // letters and digits are.
      expect((await stack.cli(["config", "set", "deployToken"], "xq7vbw2kzr9m")).code).not.toBe(0);
      const word = await stack.cli(["config", "set", "deployToken"], "password1234");
      expect(word.code, word.stderr).toBe(0);
      expect((await stack.cli(["config", "rm", "deployToken"])).code).toBe(0);
      stack.emulator.control.clearRequests();
      // The test key goes on this command line on purpose: it is what a user's `config set --path` does.
      const set = await stack.cli(["config", "set", "--secret", "--path", "remote-browser:apiKey.k", key]);
      expect(set.code, set.stderr).toBe(0);
      const up = await stack.run("preview", { apiKey: null, config: { browsers: "chrome" } }).catch((e: unknown) => e);
      expect(failure(up)).toMatch(/remote-browser:apiKey must be a string, got an object \(set with `pulumi config set --path`\?\)/);
      expect(failure(up)).not.toContain(key);
      const sent = stack.emulator.control.requests().filter((r) => r.operation !== "image");
      expect(sent, "no request carried the key's JSON text").toEqual([]);
    });
  });
});
