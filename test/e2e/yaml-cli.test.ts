import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { Emulator, startEmulator } from "../../emulator";
import { engineEnvironment } from "../../runner/environment";

/**
 * examples/yaml-review as a user runs it: a copy of the example folder with the packed package installed
 * by npm, the plain `pulumi` CLI with the real YAML language host (`pulumi-language-yaml`) beside it, as a
 * full Pulumi install ships it, and the component plugin where the example's Pulumi.yaml declares it (the
 * installed package's `node_modules/.bin`, not on PATH) — no runner, no Automation API. The sequence
 * is Pulumi's own ProgramTest: up, preview and refresh without changes, destroy; the emulator's books say
 * what really ran.
 */
const root = path.resolve(__dirname, "..", "..");
const example = path.join(root, "examples", "yaml-review");
const TYPE = "remote-browser:index:ReviewSessions";
const PREVIEW_URL = "https://pr-11.preview.example.com/";

let languageHost: string;
beforeAll(() => {
  // Provided by scripts/prepare.sh under `npm test`; built here (once, then cached) when this file runs alone.
  languageHost =
    process.env.PULUMI_REMOTE_BROWSER_LANGUAGE_YAML ||
    execFileSync("bash", [path.join(root, "scripts", "language-yaml.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  if (!fs.existsSync(languageHost)) throw new Error(`the YAML language host ${languageHost} does not exist: run bash scripts/language-yaml.sh`);
});

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Lines in which the engine or the language host reports a warning or an error. */
function complaints(r: Result): string[] {
  // The YAML host colours its diagnostics ("\x1b[33mWarning\x1b[0m: Field ...") even without a terminal.
  return `${r.stdout}\n${r.stderr}`
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .filter((line) => /\b(warning|error)\b/i.test(line));
}

/**
 * A Pulumi install as get.pulumi.com lays it out, for what the example needs: `pulumi`, the YAML language
 * host and the dynamic provider plugin in one folder. The engine takes a bundled plugin from beside its
 * own executable (not a symlink to it: it resolves its own path first), and warns about one taken from
 * PATH anywhere else (sdk/go/common/workspace/plugins.go), so the CLI is linked, or copied across file
 * systems, into the folder.
 */
function pulumiInstall(dir: string, pulumiBin: string, languageHost: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const cli = fs.realpathSync(pulumiBin);
  const bin = path.join(dir, "pulumi");
  try {
    fs.linkSync(cli, bin);
  } catch {
    fs.copyFileSync(cli, bin);
    fs.chmodSync(bin, 0o755);
  }
  fs.symlinkSync(languageHost, path.join(dir, "pulumi-language-yaml"));
  const dynamicProvider = path.join(path.dirname(cli), "pulumi-resource-pulumi-nodejs");
  if (fs.existsSync(dynamicProvider)) fs.symlinkSync(dynamicProvider, path.join(dir, "pulumi-resource-pulumi-nodejs"));
  return bin;
}

/** The first `name` on `searchPath`, as the engine's exec.LookPath finds it. */
function onPath(name: string, searchPath: string): string | undefined {
  return searchPath
    .split(path.delimiter)
    .filter(Boolean)
    .map((d) => path.join(d, name))
    .find((f) => {
      try {
        fs.accessSync(f, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** Every file under `dir`, concatenated: the backend's state, history and backups, and PULUMI_HOME's logs. */
function filesText(dir: string): string {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "latin1"))
    .join("\n");
}

describe("examples/yaml-review with the plain pulumi CLI and pulumi-language-yaml", () => {
  it("up starts one session per browser, preview and refresh find no change, destroy ends them, and nothing complains", async () => {
    const { pulumiBin: givenPulumi, tarball } = inject("e2e");
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-yaml-"));
    const dir = path.join(base, "yaml-review");
    let pulumiBin = givenPulumi;
    const emulator: Emulator = await startEmulator({ prepMs: 300 });
    let env: NodeJS.ProcessEnv = {};
    const pulumi = (args: string[], stdin = "") =>
      new Promise<Result>((resolve) => {
        const child = spawn(pulumiBin, [...args, "--non-interactive"], { cwd: dir, env });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d) => (stdout += d));
        child.stderr.on("data", (d) => (stderr += d));
        child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
        child.stdin.end(stdin);
      });
    const ok = async (args: string[], stdin?: string) => {
      const r = await pulumi(args, stdin);
      expect(r.code, `pulumi ${args.join(" ")}:\n${r.stderr}\n${r.stdout}`).toBe(0);
      return r;
    };
    /** An operation that must neither fail nor print a warning or an error. */
    const clean = async (args: string[], stdin?: string) => {
      const r = await ok(args, stdin);
      expect(complaints(r), `pulumi ${args.join(" ")} complained:\n${r.stdout}\n${r.stderr}`).toEqual([]);
      return r;
    };

    try {
      pulumiBin = pulumiInstall(path.join(base, "pulumi", "bin"), givenPulumi, languageHost);
      // The example as it is in the repository (not a user's installed packages or stack files).
      fs.cpSync(example, dir, { recursive: true, filter: (src) => !/^(node_modules|Pulumi\..+\.yaml)$/.test(path.basename(src)) });
      // What the example's README asks for: its packages installed in its folder (here, from the packed tarball).
      // The test cell's @pulumi/pulumi (scripts/cell.sh), else the one the repository is built with.
      const pulumiVersion =
        process.env.PRB_E2E_PULUMI_SDK ||
        JSON.parse(fs.readFileSync(path.join(root, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
      execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball, `@pulumi/pulumi@${pulumiVersion}`], {
        cwd: dir,
        stdio: ["ignore", "ignore", "inherit"],
      });
      const plugin = path.join(dir, "node_modules", ".bin", "pulumi-resource-remote-browser");
      expect(fs.existsSync(plugin), "the package installs its plugin").toBe(true);
      // An isolated PULUMI_HOME (no plugin cache), a file backend and a passphrase of the test's own; the
      // install's folder first on PATH, as a user's install puts it.
      env = {
        ...process.env,
        ...engineEnvironment({ pulumiBin, stateDir: path.join(base, "state"), workDir: dir, passphrase: randomBytes(16).toString("hex") }),
      };
      // So the engine can only have the host from beside `pulumi`, and the plugin from the example's Pulumi.yaml.
      expect(onPath("pulumi-language-yaml", env.PATH!)).toBe(path.join(path.dirname(pulumiBin), "pulumi-language-yaml"));
      expect(onPath("pulumi-resource-remote-browser", env.PATH!), "the component plugin is on PATH").toBeUndefined();

      await clean(["stack", "init", "dev"]);
      await clean(["config", "set", "remote-browser:baseUrl", emulator.apiBaseUrl]);
      // The key goes in on standard input, never on a command line.
      await clean(["config", "set", "--secret", "remote-browser:apiKey"], emulator.apiKey);
      await clean(["config", "set", "previewUrl", PREVIEW_URL]);
      const stackConfig = fs.readFileSync(path.join(dir, "Pulumi.dev.yaml"), "utf8");
      expect(stackConfig).toContain("secure:");
      expect(stackConfig.includes(emulator.apiKey), "the key is encrypted in the stack's config").toBe(false);

      // The engine runs the program with the pinned host, which reports its version.
      const about = JSON.parse((await clean(["about", "--json"])).stdout) as { plugins: Array<{ name: string; kind: string; version: string | null }> };
      expect(about.plugins).toContainEqual({ name: "yaml", kind: "language", version: "1.32.0" });

      const up = await clean(["up", "--yes"]);
      expect(up.stdout).toMatch(/\+\s+4 created/);

      const sessions = emulator.control.sessions();
      const outputs = JSON.parse((await ok(["stack", "output", "--json"])).stdout) as Record<string, unknown>;
      const ids = Object.values(outputs.sessionIds as Record<string, string>);
      expect(ids.length).toBe(2);
      expect(emulator.control.books()).toMatchObject({ started: ids.length, running: ids.length });
      expect(sessions.map((s) => s.vmId).sort()).toEqual([...ids].sort());
      const byBrowser = Object.fromEntries(sessions.map((s) => [s.browser, s]));
      expect(outputs.sessionIds).toEqual({ chrome: byBrowser.chrome!.vmId, firefox: byBrowser.firefox!.vmId });
      for (const s of sessions) {
        expect(s.status).toBe("running");
        expect(s.url).toBe(PREVIEW_URL); // the stack's config reached the program
        expect(s.shareLanguage).toBe("de");
      }
      expect(outputs.shareUrls).toBe("[secret]");
      const shown = JSON.parse((await ok(["stack", "output", "--json", "--show-secrets"])).stdout) as Record<string, unknown>;
      const links = {
        chrome: `${emulator.shareBase}/de/s?${byBrowser.chrome!.linkId}`,
        firefox: `${emulator.shareBase}/de/s?${byBrowser.firefox!.linkId}`,
      };
      expect(shown.shareUrls).toEqual(links);

      const exported = (await ok(["stack", "export"])).stdout;
      const component = (JSON.parse(exported).deployment.resources as Array<Record<string, any>>).find((r) => r.type === TYPE);
      expect(component, "the component in the state").toBeDefined();
      expect(component!.outputs.shareUrls.ciphertext, "shareUrls is a secret in the state").toEqual(expect.any(String));
      for (const secret of [emulator.apiKey, ...sessions.map((s) => s.linkId), ...Object.values(links)]) {
        expect(exported.includes(secret), "a key, link id or share link appears in stack export").toBe(false);
        expect(filesText(path.join(base, "state")).includes(secret), "a key, link id or share link appears in the state files").toBe(false);
      }

      await clean(["preview", "--expect-no-changes"]);
      await clean(["refresh", "--expect-no-changes", "--yes"]);
      expect(emulator.control.books()).toMatchObject({ started: 2, running: 2 });

      await clean(["destroy", "--yes"]);
      expect(emulator.control.books()).toMatchObject({ started: 2, running: 0, neverEnded: 0 });
      expect(JSON.parse((await ok(["stack", "export"])).stdout).deployment.resources ?? []).toEqual([]);
    } finally {
      if (emulator.control.books().neverEnded > 0) await pulumi(["destroy", "--yes"]);
      await emulator.close();
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
