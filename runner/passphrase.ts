import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { makeStateDir } from "./state-dir";

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

/** Where earlier runners kept the private backend's random passphrase: in its state folder, beside the state. */
const FORMER_PASSPHRASE_FILE = "passphrase";

/** The state folder's name for its passphrase in the user's passphrase folder (not a secret). */
const STATE_ID_FILE = "id";

export interface PassphraseOptions {
  /** The runner's own folder: PULUMI_HOME and, without `backendUrl`, the file backend. */
  stateDir: string;
  /** The backend the stack lives in; undefined means the runner's private file backend in `stateDir`. */
  backendUrl?: string;
  /** An explicit passphrase (wins over the environment). */
  passphrase?: string;
  /**
   * Where PULUMI_CONFIG_PASSPHRASE, PULUMI_CONFIG_PASSPHRASE_FILE and XDG_STATE_HOME (see passphraseFolder)
   * are read. Default: process.env.
   */
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
 * - otherwise, for the runner's private file backend only: a random passphrase kept in the user's
 *   passphrase folder (see localPassphrase);
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
  if (opts.backendUrl === undefined) return localPassphrase(opts.stateDir, env);
  if (isServiceBackend(opts.backendUrl)) return undefined;
  throw new PassphraseMissingError(
    "the backend keeps the stack's secrets encrypted with a passphrase, and none is set: set " +
      "PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE, a file holding it) to a non-empty secret, " +
      "the same for every run against this backend",
  );
}

/**
 * The user's folder of the private backends' passphrases: `$XDG_STATE_HOME/pulumi-remote-browser/passphrases`
 * (default `~/.local/state/...`), 0700, outside every working folder.
 */
export function passphraseFolder(env: NodeJS.ProcessEnv = process.env): string {
  const stateHome = env.XDG_STATE_HOME || path.join(os.homedir(), ".local", "state");
  return path.join(stateHome, "pulumi-remote-browser", "passphrases");
}

/**
 * The passphrase of the runner's private file backend: random, made on first use, and kept 0600 in the
 * user's passphrase folder under a random name the state folder records (so a moved or copied working
 * folder still finds it). Never beside the state it protects: the state folder sits in a working folder,
 * which gets copied, archived and shared, and the passphrase must not travel with it; a fixed passphrase
 * known from this package's source would open such a copy too, a random one kept elsewhere does not.
 * A passphrase an older runner kept in the state folder is moved out on first use.
 */
function localPassphrase(stateDir: string, env: NodeJS.ProcessEnv): string {
  makeStateDir(stateDir);
  const folder = passphraseFolder(env);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  fs.chmodSync(folder, 0o700);
  const idFile = path.join(stateDir, STATE_ID_FILE);
  const hadId = fs.existsSync(idFile);
  const former = path.join(stateDir, FORMER_PASSPHRASE_FILE);
  const formerText = readIfExists(former);
  if (!hadId && formerText === undefined && hasStacks(path.join(stateDir, "backend"))) {
    throw new PassphraseMissingError(
      `the stacks in ${path.join(stateDir, "backend")} were made by an older version of the runner, with ` +
        `its built-in passphrase: run once with PULUMI_CONFIG_PASSPHRASE=${OLD_BUILT_IN} to destroy them, ` +
        `or remove the folder ${stateDir} when nothing of theirs runs any more`,
    );
  }
  const file = path.join(folder, createOnce(idFile, randomBytes(16).toString("hex")));
  if (!fs.existsSync(file)) {
    if (formerText === undefined && hasStacks(path.join(stateDir, "backend"))) {
      throw new PassphraseMissingError(
        `the passphrase of the stacks in ${path.join(stateDir, "backend")} is not in ${file} (made by another ` +
          `user or machine, or removed): set PULUMI_CONFIG_PASSPHRASE to it, or put it in that file (0600)`,
      );
    }
    createOnce(file, formerText?.trim() || randomBytes(32).toString("hex"));
  }
  const text = fs.readFileSync(file, "utf8").trim();
  if (text === "") throw new PassphraseMissingError(`${file} is empty; remove it together with the stacks of ${stateDir}`);
  // Moved, not copied: only once the passphrase folder holds it.
  if (formerText !== undefined) fs.rmSync(former, { force: true });
  return text;
}

/**
 * Writes `text` to `file` unless the file exists, and returns what the file holds. Written 0600 under
 * another name and linked into place: two runs starting at once agree on one content.
 */
function createOnce(file: string, text: string): string {
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    fs.writeFileSync(tmp, text, { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  return fs.readFileSync(file, "utf8").trim();
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

function hasStacks(backendDir: string): boolean {
  const stacks = path.join(backendDir, ".pulumi", "stacks");
  const walk = (dir: string): boolean =>
    fs.existsSync(dir) && fs.readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : /\.json(\.gz)?$/.test(e.name)));
  return walk(stacks);
}
