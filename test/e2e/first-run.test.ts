import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, runStatus } from "../../release/run";
import type { RunResult } from "../../release/run";
import { actionlint } from "../helpers/actionlint";
import { linuxRelease } from "./release-build";

/**
 * Every cache the suite fills on first use, filled here from empty, with a temporary folder of its own that
 * must be empty afterwards. On a machine that has run the suite once, the scripts' first-use paths are never
 * taken again: a first run that leaves files behind (Wine's prefix did) or fails would then be seen only by a
 * newcomer, and by CI's first run on a new machine.
 *
 * The caches are the project's own (`${XDG_CACHE_HOME}/pulumi-remote-browser/…`), pointed at a fresh folder.
 * What they are built from stays warm: Go's build and module caches and npm's and pip's download caches are
 * the machine's, so a CLI is linked here, not compiled again (five minutes of the two cores).
 */
const root = path.resolve(__dirname, "..", "..");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

interface FirstUse {
  /** The fresh `XDG_CACHE_HOME`. */
  cache: string;
  env: NodeJS.ProcessEnv;
  /** What is left in the script's temporary folder: must be nothing. */
  leftInTmp(): string[];
}

/** The machine's build and download caches, read once before any test points XDG_CACHE_HOME elsewhere. */
let machine: NodeJS.ProcessEnv;
beforeAll(async () => {
  const [gocache, gomodcache] = (await run("go", ["env", "GOCACHE", "GOMODCACHE"])).trim().split("\n");
  const home = os.homedir();
  machine = {
    GOCACHE: gocache,
    GOMODCACHE: gomodcache,
    npm_config_cache: process.env.npm_config_cache || path.join(home, ".npm"),
    PIP_CACHE_DIR: process.env.PIP_CACHE_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(home, ".cache"), "pip"),
  };
});

function firstUse(): FirstUse {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-first-run-"));
  dirs.push(dir);
  const cache = path.join(dir, "cache");
  const tmp = path.join(dir, "tmp");
  fs.mkdirSync(tmp);
  const env: NodeJS.ProcessEnv = { ...process.env, ...machine, XDG_CACHE_HOME: cache, TMPDIR: tmp };
  // The cell's CLI is named to the scripts by this variable: here they must find and build their own.
  delete env.PULUMI_REMOTE_BROWSER_PULUMI;
  delete env.PULUMI_REMOTE_BROWSER_LANGUAGE_YAML;
  return { cache, env, leftInTmp: () => fs.readdirSync(tmp) };
}

function script(name: string): string {
  return path.join(root, "scripts", name);
}

function ok(r: RunResult): string {
  expect(r.status, `exit ${r.status}\n${r.stderr}`).toBe(0);
  return r.stdout.trim();
}

/** PATH without any `pulumi`, so that scripts/engine.sh builds its own instead of taking one found there. */
function pathWithoutPulumi(env: NodeJS.ProcessEnv): string {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, "pulumi")));
  return dirs.join(path.delimiter);
}

describe("first use of every cache the suite fills, from empty, leaving nothing in the temporary folder", () => {
  it.concurrent("scripts/node.sh fetches each pinned Node.js line from the npm registry into an empty cache", async () => {
    const f = firstUse();
    // Each line asked of a PATH whose node is of another line (the cell's own, then the one fetched before),
    // so that every line is fetched, whatever the machine has.
    let other = path.dirname(process.execPath);
    const own = process.versions.node.split(".")[0];
    for (const line of ["22", "24", "26"].sort((a, b) => Number(a === own) - Number(b === own))) {
      const bin = ok(await runStatus("bash", [script("node.sh"), `=${line}`], { env: { ...f.env, PATH: `${other}:/usr/bin:/bin` } }));
      expect(bin.startsWith(path.join(f.cache, "pulumi-remote-browser", "node"))).toBe(true);
      expect((await run(path.join(bin, "node"), ["--version"])).trim()).toMatch(new RegExp(`^v${line}\\.`));
      other = bin;
    }
    expect(f.leftInTmp()).toEqual([]);
  });

  it.concurrent("scripts/wine.sh makes a new Wine prefix and runs a Windows program, its temporary files beside the prefix", async () => {
    const f = firstUse();
    const wine = ok(await runStatus("bash", [script("wine.sh")], { env: f.env }));
    expect(wine).toBe(path.join(f.cache, "pulumi-remote-browser", "wine", "run"));
    expect(fs.existsSync(path.join(f.cache, "pulumi-remote-browser", "wine", ".win10"))).toBe(true);
    expect(f.leftInTmp()).toEqual([]);
    // The relay, started from a caller whose TMPDIR is the run's: Windows' own `cmd` answers through it.
    const out = ok(await runStatus(wine, ["cmd", "/c", "echo", "first-run"], { env: f.env }));
    expect(out).toContain("first-run");
    expect(f.leftInTmp()).toEqual([]);
  });

  it.concurrent("scripts/engine.sh and scripts/language-yaml.sh build the pinned CLI and YAML host into an empty cache", async () => {
    const f = firstUse();
    const env = { ...f.env, PATH: pathWithoutPulumi(f.env) };
    const cli = ok(await runStatus("bash", [script("engine.sh")], { env }));
    expect(cli).toBe(path.join(f.cache, "pulumi-remote-browser", "engine", "v3.248.0", "bin", "pulumi"));
    expect((await run(cli, ["version"], { env })).trim()).toBe("v3.248.0");
    // The engine's dynamic provider plugin is looked for beside the CLI.
    expect(fs.existsSync(path.join(path.dirname(cli), "pulumi-resource-pulumi-nodejs"))).toBe(true);
    const yaml = ok(await runStatus("bash", [script("language-yaml.sh")], { env }));
    expect(yaml.startsWith(path.join(f.cache, "pulumi-remote-browser", "language-yaml"))).toBe(true);
    expect(fs.statSync(yaml).mode & 0o111).not.toBe(0);
    expect(f.leftInTmp()).toEqual([]);
  });

  it.concurrent("scripts/python-venv.sh builds a virtualenv into an empty cache", async () => {
    const f = firstUse();
    // `wheel`, which the SDK tests' virtualenvs install too: pip's download cache has it after their first run.
    const venv = ok(await runStatus("bash", [script("python-venv.sh"), "wheel"], { env: f.env }));
    expect(venv.startsWith(path.join(f.cache, "pulumi-remote-browser", "python"))).toBe(true);
    expect((await run(path.join(venv, "bin", "python"), ["-c", "import wheel; print('ok')"])).trim()).toBe("ok");
    expect(f.leftInTmp()).toEqual([]);
  });

  // Not concurrent: both read XDG_CACHE_HOME and TMPDIR from this process when called, so it runs after the
  // others, alone, with this process pointed at its fresh folders.
  it("the release build and actionlint are made into an empty cache", async () => {
    const f = firstUse();
    const pulumiBin = process.env.PULUMI_REMOTE_BROWSER_PULUMI;
    expect(pulumiBin, "the e2e setup names the cell's CLI").toBeTruthy();
    const keys = ["XDG_CACHE_HOME", "TMPDIR", "GOCACHE", "GOMODCACHE"] as const;
    const before = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
    for (const k of keys) process.env[k] = f.env[k];
    try {
      // actionlint first, into a cache that has not even its project folder yet.
      // As the workflows test runs it: `concurrency.queue` is newer than actionlint's knowledge of the syntax.
      expect(await actionlint(["-ignore", 'unexpected key "queue" for "concurrency" section'])).toBe("");
      const release = await linuxRelease(pulumiBin!);
      expect(release.startsWith(path.join(f.cache, "pulumi-remote-browser", "release"))).toBe(true);
      expect(fs.readFileSync(path.join(release, "checksums.txt"), "utf8")).toMatch(/pulumi-resource-remote-browser-v9\.9\.9-e2e-linux-amd64\.tar\.gz/);
    } finally {
      for (const [k, v] of Object.entries(before)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    expect(f.leftInTmp()).toEqual([]);
  });
});
