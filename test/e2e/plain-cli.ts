import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import type { Emulator } from "../../emulator";
import { engineEnvironment } from "../../runner/environment";
import { run as runCommand } from "../../release/run";

/**
 * What the plain-CLI tests share (test/e2e/yaml-cli.test.ts, native-yaml.test.ts): a Pulumi install with
 * the YAML language host beside `pulumi`, a program folder with the packed package installed by npm, the
 * `pulumi` runner, and the readings the tests assert on (complaints, every state file's text, an account's
 * own share of the emulator's books).
 */
const root = path.resolve(__dirname, "..", "..");

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The YAML language host: given by scripts/prepare.sh under `npm test`, else built (once, then cached). */
export async function yamlLanguageHost(): Promise<string> {
  const host = process.env.PULUMI_REMOTE_BROWSER_LANGUAGE_YAML || (await runCommand("bash", [path.join(root, "scripts", "language-yaml.sh")], { stderr: "inherit" })).trim();
  if (!fs.existsSync(host)) throw new Error(`the YAML language host ${host} does not exist: run bash scripts/language-yaml.sh`);
  return host;
}

/** Lines in which the engine or the language host reports a warning or an error. */
export function complaints(r: Result): string[] {
  // The YAML host colours its diagnostics ("\x1b[33mWarning\x1b[0m: Field ...") even without a terminal.
  return (
    `${r.stdout}\n${r.stderr}`
      // eslint-disable-next-line no-control-regex -- the CLI's colour escapes, taken out
      .replace(/\x1b\[[0-9;]*m/g, "")
      .split("\n")
      .filter((line) => /\b(warning|error)\b/i.test(line))
  );
}

/**
 * A Pulumi install as get.pulumi.com lays it out, for what the programs need: `pulumi`, the language hosts
 * (YAML; Node.js, Python and Go for the hosts cell, test/hosts/) and the dynamic provider plugin in one folder. The engine takes a bundled plugin from beside its
 * own executable (not a symlink to it: it resolves its own path first), and warns about one taken from
 * PATH anywhere else (sdk/go/common/workspace/plugins.go), so the CLI is linked, or copied across file
 * systems, into the folder.
 */
export function pulumiInstall(dir: string, pulumiBin: string, ...languageHosts: string[]): string {
  fs.mkdirSync(dir, { recursive: true });
  const cli = fs.realpathSync(pulumiBin);
  const bin = path.join(dir, "pulumi");
  try {
    fs.linkSync(cli, bin);
  } catch {
    fs.copyFileSync(cli, bin);
    fs.chmodSync(bin, 0o755);
  }
  for (const host of languageHosts) fs.symlinkSync(host, path.join(dir, path.basename(host)));
  const dynamicProvider = path.join(path.dirname(cli), "pulumi-resource-pulumi-nodejs");
  if (fs.existsSync(dynamicProvider)) fs.symlinkSync(dynamicProvider, path.join(dir, "pulumi-resource-pulumi-nodejs"));
  return bin;
}

/** The first `name` on `searchPath`, as the engine's exec.LookPath finds it. */
export function onPath(name: string, searchPath: string): string | undefined {
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
export function filesText(dir: string): string {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "latin1"))
    .join("\n");
}

/** The @pulumi/pulumi of the test cell (scripts/cell.sh), else the one the repository is built with. */
export function cellPulumiSdk(): string {
  return process.env.PRB_E2E_PULUMI_SDK || JSON.parse(fs.readFileSync(path.join(root, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
}

/**
 * What a program folder's README asks for, `npm install` in the folder: the packed package (with its
 * plugin) and the cell's @pulumi/pulumi. Returns the plugin the install put in `node_modules/.bin`.
 */
export async function installPackage(dir: string, tarball: string): Promise<string> {
  await runCommand("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball, `@pulumi/pulumi@${cellPulumiSdk()}`], { cwd: dir });
  const plugin = path.join(dir, "node_modules", ".bin", "pulumi-resource-remote-browser");
  if (!fs.existsSync(plugin)) throw new Error(`npm install in ${dir} did not install the plugin ${plugin}`);
  return plugin;
}

/** The `pulumi` CLI run in one program folder with one environment; every command is non-interactive. */
export interface PulumiCli {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Folder of the stack's file backend and PULUMI_HOME. */
  readonly stateDir: string;
  /** Runs a command; `stdin` is its standard input (where secrets go). */
  run(args: string[], stdin?: string): Promise<Result>;
  /** Starts a command and hands over its process (to signal or kill it) and its result. */
  start(args: string[], stdin?: string): { child: ChildProcess; done: Promise<Result> };
  /** A command that must succeed. */
  ok(args: string[], stdin?: string): Promise<Result>;
  /** A command that must succeed and print no line with a warning or an error. */
  clean(args: string[], stdin?: string): Promise<Result>;
  /** A command that must fail. */
  fails(args: string[], stdin?: string): Promise<Result>;
  /** `pulumi stack export`, as text. */
  exportText(): Promise<string>;
  /** The resources of `pulumi stack export`. */
  resources(): Promise<Array<Record<string, any>>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the JSON of `pulumi stack export`, read field by field
}

/**
 * The CLI of the install `pulumiBin` (see pulumiInstall) in `dir`: an isolated PULUMI_HOME (no plugin
 * cache), a file backend and a passphrase of its own under `stateDir`, the install's folder first on PATH.
 */
export function pulumiCli(pulumiBin: string, dir: string, stateDir: string): PulumiCli {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...engineEnvironment({ pulumiBin, stateDir, workDir: dir, passphrase: randomBytes(16).toString("hex") }),
  };
  const start = (args: string[], stdin = "") => {
    const child = spawn(pulumiBin, [...args, "--non-interactive"], { cwd: dir, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.on("error", () => undefined);
    const done = new Promise<Result>((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr })));
    child.stdin.end(stdin);
    return { child, done };
  };
  const run = (args: string[], stdin = "") => start(args, stdin).done;
  const ok = async (args: string[], stdin?: string) => {
    const r = await run(args, stdin);
    expect(r.code, `pulumi ${args.join(" ")}:\n${r.stderr}\n${r.stdout}`).toBe(0);
    return r;
  };
  const exportText = async () => (await ok(["stack", "export"])).stdout;
  return {
    dir,
    env,
    stateDir,
    run,
    start,
    ok,
    async clean(args, stdin) {
      const r = await ok(args, stdin);
      expect(complaints(r), `pulumi ${args.join(" ")} complained:\n${r.stdout}\n${r.stderr}`).toEqual([]);
      return r;
    },
    async fails(args, stdin) {
      const r = await run(args, stdin);
      expect(r.code, `pulumi ${args.join(" ")} was expected to fail:\n${r.stdout}\n${r.stderr}`).not.toBe(0);
      return r;
    },
    exportText,
    async resources() {
      return JSON.parse(await exportText()).deployment.resources ?? [];
    },
  };
}

/** A new account of the emulator with a random key of its own, so that tests sharing an emulator keep apart. */
export function newAccount(emulator: Emulator, spec: { runningLimit?: number } = {}): { apiKey: string; accountId: string } {
  const apiKey = `rb_test_${randomBytes(16).toString("hex")}`;
  return { apiKey, ...emulator.control.addAccount({ apiKey, ...spec }) };
}

/** One account's share of the emulator's books: its sessions, how many it started, run and never ended. */
export function accountBooks(emulator: Emulator, accountId: string) {
  const sessions = emulator.control.sessions().filter((s) => s.accountId === accountId);
  return {
    sessions,
    started: sessions.length,
    running: sessions.filter((s) => s.status === "running").length,
    neverEnded: sessions.filter((s) => s.status === "starting" || s.status === "running").length,
  };
}

/**
 * A copy of the YAML program folder `source` at `dir` as a user's checkout has it (not a user's installed
 * packages or stack files), its packages installed there by npm from `tarball` -- or, for test programs that
 * share one install, `node_modules` linked to `sharedModules` -- and the CLI of the install `pulumiBin`.
 * Checks that the engine can only have the YAML host from beside `pulumi` and the plugin from the folder's
 * Pulumi.yaml (none on PATH).
 */
export async function yamlProject(opts: {
  source: string;
  dir: string;
  stateDir: string;
  pulumiBin: string;
  tarball?: string;
  sharedModules?: string;
  /** The folder of the plugin, outside the program's folder: declared in Pulumi.yaml, and nothing installed beside the program. */
  pluginDir?: string;
}): Promise<PulumiCli> {
  const { source, dir, pulumiBin } = opts;
  fs.cpSync(source, dir, { recursive: true, filter: (src) => !/^(node_modules|Pulumi\..+\.yaml)$/.test(path.basename(src)) });
  if (opts.pluginDir) {
    expect(fs.existsSync(path.join(opts.pluginDir, "pulumi-resource-remote-browser")), "the plugin is in its folder").toBe(true);
    const project = path.join(dir, "Pulumi.yaml");
    expect(fs.readFileSync(project, "utf8")).not.toMatch(/^plugins:/m);
    fs.appendFileSync(project, `plugins:\n  providers:\n    - name: remote-browser\n      path: ${JSON.stringify(opts.pluginDir)}\n`);
    expect(fs.existsSync(path.join(dir, "node_modules")), "nothing is installed in the program's folder").toBe(false);
  } else {
    if (opts.sharedModules) fs.symlinkSync(opts.sharedModules, path.join(dir, "node_modules"));
    else await installPackage(dir, opts.tarball!);
    expect(fs.existsSync(path.join(dir, "node_modules", ".bin", "pulumi-resource-remote-browser")), "the package installs its plugin").toBe(true);
  }
  const cli = pulumiCli(pulumiBin, dir, opts.stateDir);
  expect(onPath("pulumi-language-yaml", cli.env.PATH!)).toBe(path.join(path.dirname(pulumiBin), "pulumi-language-yaml"));
  expect(onPath("pulumi-resource-remote-browser", cli.env.PATH!), "the plugin is on PATH").toBeUndefined();
  return cli;
}
