import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The runner runs an inline program, and the Automation API writes the project file it needs into the work
 * folder (`name: <project>` and `runtime: nodejs`), over whatever is there. In the folder of a YAML, Python or
 * Go program -- where the audit sends users to settle a stack -- that would destroy the program. So the runner
 * writes the file only where there is none or where the one there is its own: nothing but those keys, and
 * either the runner's mark (`description: <RUNNER_PROJECT_MARK>`, which it writes) or the very project name of
 * the run (a file an earlier release wrote, without the mark). A user's minimal Node.js project (`name: shop`,
 * `runtime: nodejs`) has the unmarked shape too; written over with another name, the project would be renamed,
 * and on a self-managed backend (stacks kept per project) its stacks would no longer be found under it.
 */
const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"];

/** The description the runner gives the project files it writes: what tells them from a user's. */
export const RUNNER_PROJECT_MARK = "written by pulumi-remote-browser-run for its inline program";

/**
 * Whether a project file's text is one the runner wrote, to be written again for `projectName`: `name:` and
 * `runtime: nodejs`, and either the runner's mark as its `description:` or `projectName` as its name; nothing else.
 */
export function isRunnerProjectFile(text: string, projectName: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const keys = lines.map((l) => /^(name|runtime|description):\s*(.*?)\s*$/.exec(l));
  if (keys.some((k) => !k)) return false;
  const values = (key: string) => keys.filter((k) => k![1] === key).map((k) => unquoted(k![2]!));
  const [name, runtime, description] = [values("name"), values("runtime"), values("description")];
  if (name.length !== 1 || runtime.length !== 1 || runtime[0] !== "nodejs" || description.length > 1) return false;
  if (description.length === 1) return description[0] === RUNNER_PROJECT_MARK;
  return name[0] === projectName;
}

function unquoted(value: string): string {
  const m = /^(["'])(.*)\1$/.exec(value);
  return m ? m[2]! : value;
}

/** Refuses to run in a folder whose project file the runner did not write, before anything is written. */
export function refuseForeignProjectFile(workDir: string, projectName: string): void {
  for (const name of PROJECT_FILES) {
    const file = path.join(workDir, name);
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    if (name === "Pulumi.yaml" && isRunnerProjectFile(text, projectName)) continue;
    throw new ForeignProjectError(
      `${file} is a project file the runner did not write for project "${projectName}", and the runner would replace it with its own ` +
        "(name and runtime: nodejs), destroying that project's settings and program, or renaming the project (and so moving its " +
        "stacks on a self-managed backend). Nothing was changed. Run the runner " +
        "with a work folder of its own (--work-dir <folder>), or settle a stack of this project with the pulumi CLI in this " +
        "folder (`pulumi cancel --stack <org/project/stack>`, `pulumi refresh --clear-pending-creates --stack …`).",
    );
  }
}

export class ForeignProjectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ForeignProjectError";
  }
}
