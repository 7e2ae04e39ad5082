import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestProject } from "vitest/node";
import { cpuMs } from "../helpers/profile";
import { RUN_MARKER_VAR } from "../helpers/leftovers";
import { failOnLeftovers } from "../leftovers-setup";
import { installProject } from "./project-install";
import { run } from "../../release/run";

/**
 * Once per e2e run: the engine, and a fresh Pulumi project outside the repository that installs the
 * package from its `npm pack` tarball (the install kept between runs while the tarball is the same:
 * ./project-install.ts). The e2e programs run from that project, so they exercise the package exactly as a
 * user's project would, serialisation from node_modules included.
 */
const root = path.resolve(__dirname, "..", "..");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const pulumiBin = process.env.PULUMI_REMOTE_BROWSER_PULUMI || (await run("bash", [path.join(root, "scripts", "engine.sh")], { stderr: "inherit" })).trim();

  const base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-e2e-"));
  // The runner keeps its private backends' passphrases in the user's state folder: the suite's stay in its
  // own, removed with the rest, never in the home folder of whoever runs the tests (inherited by the workers).
  process.env.XDG_STATE_HOME = path.join(base, "user-state");
  const started = Date.now();
  const cpuBefore = cpuMs();
  const commands: Array<{ kind: string; start: number; end: number }> = [];
  const timed = async <T>(kind: string, work: () => Promise<T>): Promise<T> => {
    const entry = { kind, start: Date.now(), end: 0 };
    commands.push(entry);
    try {
      return await work();
    } finally {
      entry.end = Date.now();
    }
  };
  await timed("build", () => buildIfStale());
  const tarball = (await timed("install", () => run("npm", ["pack", "--silent", "--pack-destination", base], { cwd: root }))).trim().split("\n").pop()!;
  const projectDir = path.join(base, "project");
  fs.mkdirSync(projectDir);
  // A test cell may ask for another @pulumi/pulumi than the one the repository develops with (the newest, the
  // peerDependencies floor): the installed project is what the programs and the dynamic provider load.
  const pulumiVersion = process.env.PRB_E2E_PULUMI_SDK || JSON.parse(fs.readFileSync(path.join(root, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
  const cached = await timed("install", () => installProject(projectDir, path.join(base, tarball), pulumiVersion));
  const installed = JSON.parse(fs.readFileSync(path.join(projectDir, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
  if (installed !== pulumiVersion) throw new Error(`the e2e project installed @pulumi/pulumi ${installed}, not ${pulumiVersion}`);
  const cli = (await run(pulumiBin, ["version"])).trim();
  console.log(`e2e: node ${process.version}, @pulumi/pulumi ${installed} (installed from npm${cached ? ", cached" : ""}), pulumi CLI ${cli}`);

  const profileDir = process.env.PRB_PROFILE_DIR;
  if (profileDir) {
    fs.mkdirSync(profileDir, { recursive: true });
    const profile = { file: "(e2e setup)", wallMs: Date.now() - started, cpuMs: cpuMs() - cpuBefore, commands, timers: [] };
    fs.writeFileSync(path.join(profileDir, "e2e-setup.json"), JSON.stringify(profile));
  }
  project.provide("e2e", { projectDir, pulumiBin, tarball: path.join(base, tarball) });
  return async () => {
    // Also the processes started with an environment of their own: those that work in the project folder.
    await failOnLeftovers({ marker: process.env[RUN_MARKER_VAR]!, folders: [base] });
    if (!process.env.PRB_KEEP_E2E) fs.rmSync(base, { recursive: true, force: true });
  };
}

/** The package is packed from dist/: a test file run on its own must not test an older build of the sources. */
export async function buildIfStale(dir = root): Promise<void> {
  await run("bash", [path.join(root, "scripts", "build.sh"), dir], { stderr: "inherit" });
}

declare module "vitest" {
  export interface ProvidedContext {
    /** `tarball`: the `npm pack` of the repository, for tests that install it into a folder of their own. */
    e2e: { projectDir: string; pulumiBin: string; tarball: string };
  }
}
