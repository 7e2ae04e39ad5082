import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { run } from "../../release/run";

/**
 * actionlint, the GitHub Actions workflow checker, at a pinned version, built once from the Go module proxy
 * into the cache outside the repository (as the engine is). Runs it over .github/workflows and the user's
 * workflow in examples/review-sessions, and returns its findings ("" when there are none).
 */
export const ACTIONLINT_VERSION = "v1.7.12";
const root = path.resolve(__dirname, "..", "..");

export async function actionlint(args: string[] = []): Promise<string> {
  const dir = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-remote-browser", `actionlint-${ACTIONLINT_VERSION}`);
  const bin = path.join(dir, "actionlint");
  if (!fs.existsSync(bin)) {
    // Into a folder of its own first: a parallel build never leaves a half-written binary at `bin`.
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    const tmp = fs.mkdtempSync(`${dir}.tmp-`);
    await run("go", ["install", `github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}`], { env: { ...process.env, GOBIN: tmp, GOFLAGS: "" } });
    fs.mkdirSync(dir, { recursive: true });
    fs.renameSync(path.join(tmp, "actionlint"), bin);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const workflows = [".github/workflows", "examples/review-sessions"].flatMap((dir) => fs.readdirSync(path.join(root, dir)).map((f) => path.join(dir, f)));
  return run(bin, ["-no-color", ...args, ...workflows], { cwd: root }).catch((e: Error) => e.message);
}
