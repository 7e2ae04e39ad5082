import { describe, expect, it } from "vitest";
import config from "../vitest.config.mts";

/** The suite's file order (vitest.config.mts): a file that mostly waits starts before all the others. */
describe("the suite's file order", () => {
  it("starts test/vitest-worker.test.ts first, then keeps vitest's order (projects by name, larger files first)", async () => {
    const Sequencer = config.test!.sequence!.sequencer!;
    const project = (name: string) => ({ name, config: { sequence: { groupOrder: 0 }, isolate: true } });
    const spec = (p: string, f: string) => ({ project: project(p), moduleId: `/repo/${f}` });
    const sizes: Record<string, number> = { "test/e2e/faults.test.ts": 9000, "test/e2e/crash.test.ts": 2000, "test/vitest-worker.test.ts": 900, "test/core/wait.test.ts": 5000 };
    const ctx = {
      config: { root: "/repo" },
      cache: { getFileTestResults: () => undefined, getFileStats: (key: string) => ({ size: sizes[key.replace(/^\w+:/, "")] ?? 1 }) },
    };
    const files = [spec("unit", "test/core/wait.test.ts"), spec("unit", "test/vitest-worker.test.ts"), spec("e2e", "test/e2e/crash.test.ts"), spec("e2e", "test/e2e/faults.test.ts")];
    const sorted = await new (Sequencer as unknown as new (c: unknown) => { sort(f: unknown[]): Promise<typeof files> })(ctx).sort(files);
    expect(sorted.map((s) => s.moduleId)).toEqual(["/repo/test/vitest-worker.test.ts", "/repo/test/e2e/faults.test.ts", "/repo/test/e2e/crash.test.ts", "/repo/test/core/wait.test.ts"]);
  });
});
