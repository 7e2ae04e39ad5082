import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ForeignProjectError, runProgram } from "../../runner";
import { RUNNER_PROJECT_MARK, isRunnerProjectFile } from "../../runner/project-file";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function folderWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-project-file-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe("a project file the runner did not write", () => {
  const yamlProgram = "name: review\nruntime: yaml\nresources:\n  chrome:\n    type: remote-browser:index:BrowserSession\n    properties:\n      browser: chrome\n";
  const others: Array<[string, string]> = [
    ["Pulumi.yaml", yamlProgram],
    ["Pulumi.yaml", "name: py\nruntime:\n  name: python\n  options:\n    toolchain: pip\n"],
    ["Pulumi.yaml", "name: go\nruntime: go\n"],
    ["Pulumi.yaml", "name: js\nruntime: nodejs\nmain: src/\n"],
    ["Pulumi.yml", "name: js\nruntime: nodejs\n"],
    ["Pulumi.json", '{"name":"js","runtime":"nodejs"}'],
    // A user's minimal Node.js project: the runner's own shape, another project's name.
    ["Pulumi.yaml", "name: shop\nruntime: nodejs\n"],
  ];
  for (const [name, text] of others) {
    it(`is never overwritten, for any action, outputs included: ${name} ${JSON.stringify(text.slice(0, 30))}`, async () => {
      for (const action of ["outputs", "up", "destroy", "cancel"] as const) {
        const dir = folderWith({ [name]: text });
        const err = await runProgram({ action, program: async () => undefined, projectName: "other", stackName: "dev", workDir: dir }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ForeignProjectError);
        expect((err as Error).message).toMatch(/is a project file the runner did not write.*Nothing was changed.*--work-dir.*pulumi cancel --stack <org\/project\/stack>/);
        expect(fs.readFileSync(path.join(dir, name), "utf8")).toBe(text);
        expect(fs.readdirSync(dir)).toEqual([name]);
      }
    });
  }

  it("is told from the runner's own (the run's project name and runtime: nodejs, nothing else)", () => {
    expect(isRunnerProjectFile("name: e2e\nruntime: nodejs\n", "e2e")).toBe(true);
    expect(isRunnerProjectFile('name: "my project"\nruntime: nodejs\n', "my project")).toBe(true);
    expect(isRunnerProjectFile("name: shop\nruntime: nodejs\n", "e2e")).toBe(false);
    expect(isRunnerProjectFile(yamlProgram, "review")).toBe(false);
    expect(isRunnerProjectFile("name: e2e\nruntime: nodejs\nconfig:\n  a: b\n", "e2e")).toBe(false);
    expect(isRunnerProjectFile("runtime: nodejs\n", "e2e")).toBe(false);
    // What it writes now carries its mark, whatever the name: another run may take it over.
    expect(isRunnerProjectFile(`name: review\nruntime: nodejs\ndescription: ${RUNNER_PROJECT_MARK}\n`, "e2e")).toBe(true);
    expect(isRunnerProjectFile("name: shop\nruntime: nodejs\ndescription: the shop\n", "shop")).toBe(false);
  });
});
