import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import config from "../vitest.config.mts";

/** The suite's file order (vitest.config.mts): a file that mostly waits starts before all the others. */
describe("the suite's file order", () => {
  it("starts test/vitest-worker.test.ts first, then keeps vitest's order (projects by name, larger files first)", async () => {
    const Sequencer = config.test!.sequence!.sequencer!;
    // With no results of earlier runs, vitest orders a project's files by their size on disk.
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), "prb-vitest-order-"));
    try {
      const sizes: Record<string, number> = { "test/e2e/faults.test.ts": 9000, "test/e2e/crash.test.ts": 2000, "test/vitest-worker.test.ts": 900, "test/core/wait.test.ts": 5000 };
      for (const [file, size] of Object.entries(sizes)) {
        fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
        fs.writeFileSync(path.join(repo, file), "x".repeat(size));
      }
      const project = (name: string) => ({ name, config: { sequence: { groupOrder: 0 }, isolate: true } });
      const spec = (p: string, f: string) => ({ project: project(p), moduleId: path.join(repo, f) });
      const ctx = { config: { root: repo }, cache: { getTestSpecificationResult: () => undefined } };
      const files = [spec("unit", "test/core/wait.test.ts"), spec("unit", "test/vitest-worker.test.ts"), spec("e2e", "test/e2e/crash.test.ts"), spec("e2e", "test/e2e/faults.test.ts")];
      const sorted = await new (Sequencer as unknown as new (c: unknown) => { sort(f: unknown[]): Promise<typeof files> })(ctx).sort(files);
      expect(sorted.map((s) => path.relative(repo, s.moduleId))).toEqual(["test/vitest-worker.test.ts", "test/e2e/faults.test.ts", "test/e2e/crash.test.ts", "test/core/wait.test.ts"]);
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });
});
