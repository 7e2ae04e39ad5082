import * as path from "node:path";
import * as fs from "node:fs";
import { resolvePassphrase } from "./passphrase";
import { makeStateDir } from "./state-dir";

/**
 * Where the engine keeps its state and how it is reached, for one run of the program runner.
 * Everything lives under `stateDir`, so a user's own `~/.pulumi` is never read or written.
 */
export interface EngineEnvironmentOptions {
  /** Absolute path of the `pulumi` binary to run. */
  pulumiBin: string;
  /** Folder the run owns: the isolated PULUMI_HOME and, unless `backendUrl` is given, the file backend. */
  stateDir: string;
  /** `file://...`, `postgres://...` or any backend the CLI speaks. Default: `file://<stateDir>/backend`. */
  backendUrl?: string;
  /** Folder from which `@pulumi/pulumi` resolves; the dynamic provider plugin ships inside that package. */
  workDir: string;
  /**
   * Passphrase of the stack's secrets provider. Default: PULUMI_CONFIG_PASSPHRASE or the file named by
   * PULUMI_CONFIG_PASSPHRASE_FILE; for the private file backend in `stateDir` only, a random one kept in
   * the user's state folder. Any other backend without one is refused (see passphrase.ts).
   */
  passphrase?: string;
}

export function resolveBackendUrl(opts: Pick<EngineEnvironmentOptions, "stateDir" | "backendUrl">): string {
  if (opts.backendUrl) return opts.backendUrl;
  const dir = path.join(opts.stateDir, "backend");
  makeStateDir(opts.stateDir);
  fs.mkdirSync(dir, { recursive: true });
  return `file://${dir}`;
}

/** The folder holding `pulumi-resource-pulumi-nodejs`, found the way the engine's plugin script finds it. */
export function dynamicProviderPluginDir(workDir: string): string {
  const pkg = require.resolve("@pulumi/pulumi/package.json", { paths: [workDir] });
  return path.dirname(pkg);
}

/** Variables for every engine command: offline, isolated, no update checks, no plugin downloads. */
export function engineEnvironment(opts: EngineEnvironmentOptions): Record<string, string> {
  makeStateDir(opts.stateDir);
  const passphrase = resolvePassphrase(opts);
  const home = path.join(opts.stateDir, "home");
  fs.mkdirSync(home, { recursive: true });
  // A full Pulumi install ships the dynamic provider plugin next to `pulumi`; otherwise use the one
  // inside @pulumi/pulumi (the engine then warns that it took a plugin from PATH).
  const bundled = fs.existsSync(path.join(path.dirname(fs.realpathSync(opts.pulumiBin)), "pulumi-resource-pulumi-nodejs"));
  const pathDirs = [path.dirname(opts.pulumiBin), ...(bundled ? [] : [dynamicProviderPluginDir(opts.workDir)]), process.env.PATH ?? ""];
  return {
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: resolveBackendUrl(opts),
    // Always set when known, also over an empty one in the environment (which the CLI would take as is).
    ...(passphrase !== undefined ? { PULUMI_CONFIG_PASSPHRASE: passphrase } : {}),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    PATH: pathDirs.join(path.delimiter),
    ...(fs.existsSync(EXIT_WITH_ENGINE) ? { NODE_OPTIONS: withPreload(process.env.NODE_OPTIONS, EXIT_WITH_ENGINE) } : {}),
  };
}

/**
 * Loaded into every Node.js process the engine starts: a plugin among them exits once its engine is gone,
 * even one killed before the plugin loaded this package (see engine-conventions/exit-with-engine.ts). Only the
 * built package has it (run from its TypeScript sources, as some tests do, the runner adds none).
 */
const EXIT_WITH_ENGINE = path.join(__dirname, "..", "engine-conventions", "exit-with-engine.js");

/** `options` (the user's NODE_OPTIONS) with `--require file` added once; NODE_OPTIONS takes quoted paths. */
export function withPreload(options: string | undefined, file: string): string {
  const arg = `--require ${JSON.stringify(file)}`;
  const kept = (options ?? "").trim();
  if (kept.includes(arg)) return kept;
  return kept ? `${kept} ${arg}` : arg;
}

/** The `pulumi` binary: an explicit path, PULUMI_REMOTE_BROWSER_PULUMI, or `pulumi` on PATH. */
export function findPulumiBin(explicit?: string): string {
  const candidate = explicit ?? process.env.PULUMI_REMOTE_BROWSER_PULUMI;
  if (candidate) {
    if (!isExecutable(candidate)) throw new Error(`the Pulumi CLI ${candidate} is not an executable file`);
    return path.resolve(candidate);
  }
  const onPath = executableOnPath("pulumi", process.env.PATH ?? "");
  if (onPath) return onPath;
  throw new Error("no Pulumi CLI found: put pulumi >= 3.248.0 on PATH, set PULUMI_REMOTE_BROWSER_PULUMI, or run `bash scripts/engine.sh` in the project to build the pinned one");
}

/** The first executable file `name` in the folders of `searchPath`, as a shell finds a command. */
export function executableOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    const file = path.join(dir, name);
    if (dir && isExecutable(file)) return file;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
