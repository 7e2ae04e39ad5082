import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { withStack } from "./harness";
import { execTracer, runRunner } from "./processes";
import { passphraseFolder } from "../../runner/passphrase";

/**
 * The runner and every process it starts, watched from outside: a wrapper around `pulumi` records the
 * arguments of each CLI call, and strace records the command line of every program the runner and its
 * descendants execute (the CLI, the engine's plugins, the dynamic provider). The API key must appear in none of them: any
 * local user can read a command line.
 */
let shimDir: string;
let shimLog: string;

beforeAll(() => {
  const { pulumiBin } = inject("e2e");
  shimDir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-argv-"));
  shimLog = path.join(shimDir, "calls.log");
  fs.writeFileSync(shimLog, "");
  const shim = path.join(shimDir, "pulumi");
  // One record per call: its arguments separated by \x1f, ended by \x1e.
  fs.writeFileSync(shim, `#!/bin/sh\n{ for a in "$@"; do printf '%s\\037' "$a"; done; printf '\\036'; } >> '${shimLog}'\nexec '${pulumiBin}' "$@"\n`, { mode: 0o755 });
  // The engine looks for its bundled dynamic provider plugin next to the binary it runs.
  const sibling = path.join(path.dirname(fs.realpathSync(pulumiBin)), "pulumi-resource-pulumi-nodejs");
  if (fs.existsSync(sibling)) fs.symlinkSync(sibling, path.join(shimDir, "pulumi-resource-pulumi-nodejs"));
});
afterAll(() => fs.rmSync(shimDir, { recursive: true, force: true }));

const calls = () =>
  fs
    .readFileSync(shimLog, "utf8")
    .split("\x1e")
    .filter(Boolean)
    .map((c) => c.split("\x1f").filter(Boolean));

describe("the runner keeps secrets off every command line", () => {
  it("sets secret config through standard input: the key is in no argument of any process it starts", async () => {
    await withStack(
      "sessions.js",
      async (stack) => {
        const key = stack.emulator.apiKey;
        const watched: string[] = [];
        const watch = async (action: string, o: Parameters<typeof stack.start>[1]) => {
          const tracer = await execTracer();
          try {
            const result = await stack.start(action, { ...o, commandPrefix: tracer.prefix }).done;
            expect(result.code, result.stderr).toBe(0);
            // The runner's own command line is the first the tracer saw.
            watched.push(...tracer.commandLines());
            return result;
          } finally {
            tracer.dispose();
          }
        };

        // up: the key from an environment variable (--secret-env, the harness's way).
        await watch("up", {});
        expect(stack.emulator.control.books().running).toBe(1);

        // refresh: the key from a file only its owner reads (--secrets-file).
        const secrets = path.join(stack.workDir, "secrets.json");
        fs.writeFileSync(secrets, JSON.stringify({ "remote-browser:apiKey": key }), { mode: 0o600 });
        // Verbosity above 9 is capped: there the CLI logs its HTTP requests' headers, a Pulumi Cloud token among them.
        const callsBefore = calls().length;
        const refresh = await watch("refresh", { apiKey: null, extraArgs: ["--secrets-file", secrets, "--verbose", "11"] });
        expect(refresh.stderr).toContain("runner: log verbosity 11 capped at 9");
        const refreshCall = calls()
          .slice(callsBefore)
          .find((c) => c[0] === "refresh");
        expect(refreshCall?.slice(refreshCall.indexOf("--verbose"), refreshCall.indexOf("--verbose") + 2)).toEqual(["--verbose", "9"]);

        await watch("destroy", {});
        expect(stack.emulator.control.books().neverEnded).toBe(0);

        const recorded = calls();
        for (const c of recorded) expect(c.join(" ").includes(key), `a secret in the arguments of: pulumi ${c.join(" ")}`).toBe(false);
        for (const c of watched) expect(c.includes(key), `a secret in the command line of: ${c}`).toBe(false);
        // Not vacuous: the CLI was called, a secret was set each time, and the watcher saw the processes.
        const secretSets = recorded.filter((c) => c[0] === "config" && c[1] === "set" && c.includes("--secret"));
        expect(secretSets.length).toBe(3);
        for (const c of secretSets) expect(c.at(-1)).toBe("remote-browser:apiKey");
        expect(recorded.some((c) => c[0] === "up")).toBe(true);
        const seenText = `command lines seen:\n${watched.join("\n")}`;
        expect(
          watched.some((c) => /pulumi(\s|$)/.test(c)),
          seenText,
        ).toBe(true);
        expect(
          watched.some((c) => /dynamic-provider|pulumi-resource-pulumi-nodejs/.test(c)),
          seenText,
        ).toBe(true);

        // The stack's config holds the key encrypted, not in plain text.
        expect(fs.readFileSync(path.join(stack.workDir, `Pulumi.${stack.name}.yaml`), "utf8")).not.toContain(key);
      },
      { pulumiBin: path.join(shimDir, "pulumi"), configEveryRun: true },
    );
  });

  it("refuses --secret key=value (the value is in its own argv already) and a secrets file others can read", async () => {
    await withStack(
      "sessions.js",
      async (stack) => {
        const before = calls().length;
        const refused = await stack.start("up", { apiKey: null, extraArgs: ["--secret", `remote-browser:apiKey=${stack.emulator.apiKey}`] }).done;
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(/--secret key=value puts the secret on the command line.*--secret-env key=ENV_VAR.*--secrets-file/);

        // A credential as plain --config: on the command line too, and in clear text in the stack's config.
        // Every spelling Pulumi reads as the same key (`ns:config:key` is `ns:key`), and the typos that keep the
        // value in the stack's config though the provider ignores them.
        for (const setting of ["apiKey", "idempotencySecret", "config:apiKey", "config:idempotencySecret", "apikey", "API_KEY"]) {
          const plain = await stack.start("up", { apiKey: null, extraArgs: ["--config", `remote-browser:${setting}=${stack.emulator.apiKey}`] }).done;
          expect(plain.code, plain.stderr).toBe(2);
          expect(plain.stderr).toContain(
            `--config remote-browser:${setting}=... puts a credential on the command line, where any local user can read it, ` +
              `and in the stack's config in clear text; use --secret-env remote-browser:${setting}=ENV_VAR or --secrets-file <file.json> instead`,
          );
          expect(plain.stderr).not.toContain(stack.emulator.apiKey);
        }

        const open = path.join(stack.workDir, "open-secrets.json");
        fs.writeFileSync(open, JSON.stringify({ "remote-browser:apiKey": stack.emulator.apiKey }), { mode: 0o644 });
        fs.chmodSync(open, 0o644);
        const wide = await stack.start("up", { apiKey: null, extraArgs: ["--secrets-file", open] }).done;
        expect(wide.code).toBe(2);
        expect(wide.stderr).toContain(`open to other users (mode 644); make it private first: chmod 600 ${open}`);

        const unset = await stack.start("up", { apiKey: null, extraArgs: ["--secret-env", "remote-browser:apiKey=PRB_NOT_SET_ANYWHERE"] }).done;
        expect(unset.code).toBe(2);
        expect(unset.stderr).toContain("the environment variable PRB_NOT_SET_ANYWHERE is not set or empty");

        expect(calls().length, "no CLI was started").toBe(before);
        expect(stack.emulator.control.books().createCalls).toBe(0);
      },
      { pulumiBin: path.join(shimDir, "pulumi"), destroy: false },
    );
  });

  it("writes the outputs file 0600, also over an existing file and with --show-secrets", async () => {
    await withStack("sessions.js", async (stack) => {
      const out = path.join(stack.workDir, "outputs.json");
      fs.writeFileSync(out, "{}", { mode: 0o644 });
      fs.chmodSync(out, 0o644);
      const p = stack.start("up", { extraArgs: ["--show-secrets", "--outputs-file", out] });
      const { code, stderr } = await p.done;
      expect(code, stderr).toBe(0);
      expect(fs.statSync(out).mode & 0o777).toBe(0o600);
      // It does hold a secret: the share link, in plain text as asked.
      const [session] = stack.emulator.control.sessions();
      expect(fs.readFileSync(out, "utf8")).toContain(session!.linkId);
    });
  });
});

describe("the runner has no passphrase of its own for a backend others can read", () => {
  const password = "hunter2-backend-pass";
  const backend = `postgres://pulumi:${password}@127.0.0.1:9/pulumi?sslmode=disable`;
  // The same password in a URL's query, as libpq also takes it.
  const inQuery = `postgres://pulumi@127.0.0.1:9/pulumi?sslmode=disable&password=${password}`;

  it("refuses a backend URL with a password on its command line, in either form, for a run and the audit, before the engine runs", async () => {
    const { projectDir } = inject("e2e");
    const workDir = fs.mkdtempSync(path.join(projectDir, "argvbackend-"));
    try {
      const program = path.join(workDir, "trivial.js");
      fs.copyFileSync(path.join(__dirname, "programs", "trivial.js"), program);
      const env: NodeJS.ProcessEnv = { ...process.env, PULUMI_REMOTE_BROWSER_PULUMI: path.join(shimDir, "pulumi"), PULUMI_CONFIG_PASSPHRASE: "p" };
      const before = calls().length;
      for (const url of [backend, inQuery]) {
        for (const args of [
          ["up", "--program", program, "--stack", "dev", "--work-dir", workDir, "--backend", url],
          ["audit", "--work-dir", workDir, "--backend", url],
        ]) {
          const r = await runRunner(args, { ...env, REMOTE_BROWSER_API_KEY: "rb_audit_key_0123", REMOTE_BROWSER_BASE_URL: "http://127.0.0.1:9/v8" }, workDir);
          expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
          expect(r.stderr).toMatch(/--backend <url> carries a password on the command line.*--backend-env PULUMI_BACKEND_URL/);
          expect(r.stdout + r.stderr).not.toContain(password);
        }
      }
      expect(calls().length, "the engine never ran").toBe(before);
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  });

  it("refuses a self-managed backend without a passphrase (an empty one counts as none), naming the variables", async () => {
    const { projectDir } = inject("e2e");
    const workDir = fs.mkdtempSync(path.join(projectDir, "nopass-"));
    try {
      const program = path.join(workDir, "trivial.js");
      fs.copyFileSync(path.join(__dirname, "programs", "trivial.js"), program);
      const before = calls().length;
      for (const extra of [{}, { PULUMI_CONFIG_PASSPHRASE: "" }, { PULUMI_CONFIG_PASSPHRASE: "", PULUMI_CONFIG_PASSPHRASE_FILE: "" }]) {
        const env: NodeJS.ProcessEnv = { ...process.env, PULUMI_REMOTE_BROWSER_PULUMI: path.join(shimDir, "pulumi"), ...extra };
        if (!("PULUMI_CONFIG_PASSPHRASE" in extra)) delete env.PULUMI_CONFIG_PASSPHRASE;
        if (!("PULUMI_CONFIG_PASSPHRASE_FILE" in extra)) delete env.PULUMI_CONFIG_PASSPHRASE_FILE;
        const r = await runRunner(["up", "--program", program, "--stack", "dev", "--work-dir", workDir, "--backend-env", "PRB_BACKEND"], { ...env, PRB_BACKEND: backend }, workDir);
        expect(r.code, JSON.stringify(extra)).toBe(1);
        expect(r.stderr).toMatch(/set PULUMI_CONFIG_PASSPHRASE \(or PULUMI_CONFIG_PASSPHRASE_FILE/);
        expect(r.stdout + r.stderr).not.toContain(password);
      }
      expect(calls().length, "the engine never ran").toBe(before);
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  });

  it("with a passphrase, a failing backend's password appears in no message and no file of the working folder", async () => {
    const { projectDir } = inject("e2e");
    const workDir = fs.mkdtempSync(path.join(projectDir, "badbackend-"));
    try {
      const program = path.join(workDir, "trivial.js");
      fs.copyFileSync(path.join(__dirname, "programs", "trivial.js"), program);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PULUMI_REMOTE_BROWSER_PULUMI: inject("e2e").pulumiBin,
        PULUMI_CONFIG_PASSPHRASE: "a-passphrase-of-the-callers",
      };
      for (const url of [backend, inQuery]) {
        const r = await runRunner(["up", "--program", program, "--stack", "dev", "--work-dir", workDir, "--backend-env", "PRB_BACKEND"], { ...env, PRB_BACKEND: url }, workDir);
        expect(r.code).toBe(1);
        expect(r.stderr.length).toBeGreaterThan(0);
        expect(r.stdout + r.stderr).not.toContain(password);
        // The audit's error on the same backend, too.
        const a = await runRunner(
          ["audit", "--work-dir", workDir],
          { ...env, PULUMI_BACKEND_URL: url, REMOTE_BROWSER_API_KEY: "rb_audit_key_0123", REMOTE_BROWSER_BASE_URL: "http://127.0.0.1:9/v8" },
          workDir,
        );
        expect(a.code, a.stderr).toBe(1);
        expect(a.stderr.length).toBeGreaterThan(0);
        expect(a.stdout + a.stderr).not.toContain(password);
      }
      const files = fs.readdirSync(workDir, { recursive: true, encoding: "utf8" }).filter((f) => !f.includes("node_modules"));
      for (const f of files) {
        const p = path.join(workDir, f);
        if (fs.statSync(p).isFile()) expect(fs.readFileSync(p, "latin1").includes(password), f).toBe(false);
      }
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  });

  it("keeps the private file backend's random passphrase out of the state folder, 0600 in the user's 0700 folder", async () => {
    await withStack("trivial.js", async (stack) => {
      await stack.run("up");
      const stateDir = path.join(stack.workDir, ".pulumi-local");
      expect(fs.statSync(stateDir).mode & 0o777).toBe(0o700);
      expect(fs.existsSync(path.join(stateDir, "passphrase"))).toBe(false);
      const file = path.join(passphraseFolder(), fs.readFileSync(path.join(stateDir, "id"), "utf8").trim());
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file, "utf8")).toMatch(/^[0-9a-f]{64}$/);
      // The stack's secrets do not open with the passphrase older versions had built in.
      const env = { ...process.env, PULUMI_CONFIG_PASSPHRASE: "pulumi-remote-browser-local" };
      const { pulumiBin } = inject("e2e");
      const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(pulumiBin, ["config", "get", "remote-browser:apiKey", "--stack", stack.name, "--non-interactive"], {
          cwd: stack.workDir,
          env: { ...env, PULUMI_HOME: path.join(stateDir, "home"), PULUMI_BACKEND_URL: `file://${path.join(stateDir, "backend")}` },
        });
        let err = "";
        child.stderr.on("data", (d) => (err += d));
        child.stdout.resume();
        child.on("close", (code) => resolve({ code, err }));
      });
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/passphrase/i);
    });
  });
});
