import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The passphrase that encrypts a stack's secrets (the API key in its config, the share links in its
 * state). Anyone who can read a backend and knows its passphrase reads those secrets, so a passphrase
 * written in this package's source would protect nothing on a backend others can read.
 */
export class PassphraseMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PassphraseMissingError";
  }
}

/** The passphrase of older versions of the runner, for the message that helps to open their stacks. */
const OLD_BUILT_IN = "pulumi-remote-browser-local";

/** The file, inside the runner's own state folder, that holds that folder's random passphrase. */
export const LOCAL_PASSPHRASE_FILE = "passphrase";

export interface PassphraseOptions {
  /** The runner's own folder: PULUMI_HOME and, without `backendUrl`, the file backend. */
  stateDir: string;
  /** The backend the stack lives in; undefined means the runner's private file backend in `stateDir`. */
  backendUrl?: string;
  /** An explicit passphrase (wins over the environment). */
  passphrase?: string;
  /** Where PULUMI_CONFIG_PASSPHRASE and PULUMI_CONFIG_PASSPHRASE_FILE are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Pulumi Cloud (and a self-hosted Pulumi Cloud) encrypts secrets with keys of its own; every other backend
 * (file://, s3://, gs://, azblob://, postgres://...) stores what the passphrase encrypted.
 */
export function isServiceBackend(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/**
 * The passphrase for one run, as the value of PULUMI_CONFIG_PASSPHRASE, or undefined for a Pulumi Cloud
 * backend that needs none. An empty variable counts as missing: Pulumi would accept "" as a passphrase.
 *
 * - PULUMI_CONFIG_PASSPHRASE, else the contents of PULUMI_CONFIG_PASSPHRASE_FILE (read here, trimmed as
 *   the CLI trims it, so that an empty variable left in the environment cannot win over the file);
 * - otherwise, for the runner's private file backend only: a random passphrase kept in that folder;
 * - otherwise a PassphraseMissingError naming both variables.
 */
export function resolvePassphrase(opts: PassphraseOptions): string | undefined {
  const env = opts.env ?? process.env;
  if (opts.passphrase) return opts.passphrase;
  if (env.PULUMI_CONFIG_PASSPHRASE) return env.PULUMI_CONFIG_PASSPHRASE;
  const file = env.PULUMI_CONFIG_PASSPHRASE_FILE;
  if (file) {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      throw new PassphraseMissingError(`PULUMI_CONFIG_PASSPHRASE_FILE=${file} cannot be read: ${(e as Error).message}`);
    }
    if (text.trim() === "") throw new PassphraseMissingError(`PULUMI_CONFIG_PASSPHRASE_FILE=${file} is empty`);
    return text.trim();
  }
  if (opts.backendUrl === undefined) return localPassphrase(opts.stateDir);
  if (isServiceBackend(opts.backendUrl)) return undefined;
  throw new PassphraseMissingError(
    "the backend keeps the stack's secrets encrypted with a passphrase, and none is set: set " +
      "PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE, a file holding it) to a non-empty secret, " +
      "the same for every run against this backend",
  );
}

/**
 * The passphrase of the runner's private file backend: random, made on first use and kept 0600 in the
 * state folder, which is created 0700. Nobody else can read the folder, so the passphrase adds nothing
 * there, but the backend's files (history, backups) may be copied elsewhere, and a fixed passphrase
 * known from this package's source would then open them; a random one does not.
 */
function localPassphrase(stateDir: string): string {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const file = path.join(stateDir, LOCAL_PASSPHRASE_FILE);
  if (!fs.existsSync(file)) {
    if (hasStacks(path.join(stateDir, "backend"))) {
      throw new PassphraseMissingError(
        `the stacks in ${path.join(stateDir, "backend")} were made by an older version of the runner, with ` +
          `its built-in passphrase: run once with PULUMI_CONFIG_PASSPHRASE=${OLD_BUILT_IN} to destroy them, ` +
          `or remove the folder ${stateDir} when nothing of theirs runs any more`,
      );
    }
    // Written under another name and linked into place: two runs starting at once agree on one passphrase.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    fs.writeFileSync(tmp, randomBytes(32).toString("hex"), { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const text = fs.readFileSync(file, "utf8").trim();
  if (text === "") throw new PassphraseMissingError(`${file} is empty; remove it together with the stacks of ${stateDir}`);
  return text;
}

function hasStacks(backendDir: string): boolean {
  const stacks = path.join(backendDir, ".pulumi", "stacks");
  const walk = (dir: string): boolean =>
    fs.existsSync(dir) &&
    fs.readdirSync(dir, { withFileTypes: true }).some((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name)) : /\.json(\.gz)?$/.test(e.name),
    );
  return walk(stacks);
}
