import { defineConfig } from "vitest/config";
import { BaseSequencer } from "vitest/node";
import type { TestSpecification } from "vitest/node";
import { E2E_IN_NPM_TEST } from "./test/cells.mts";

/**
 * Files that wait far longer than they compute, started before all others so that their wait overlaps the
 * rest of the run. vitest runs its projects one after the other (e2e, then unit) and, with no record of
 * earlier runs (a fresh clone), the larger files first: test/vitest-worker.test.ts, small and holding a
 * fixture's worker for 62 s on purpose, came last and kept the run going a minute on an idle machine.
 */
const WAITS_FIRST = ["test/vitest-worker.test.ts"];

class WaitsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (f: TestSpecification) => WAITS_FIRST.some((name) => f.moduleId.replace(/\\/g, "/").endsWith(`/${name}`));
    return [...sorted.filter(waits), ...sorted.filter((f) => !waits(f))];
  }
}

/** What every e2e file needs, whichever cell runs it. */
const E2E = {
  testTimeout: 600_000,
  hookTimeout: 600_000,
  maxConcurrency: 4,
  globalSetup: ["test/leftovers-setup.ts", "test/e2e/global-setup.ts"],
  setupFiles: ["test/profile-setup.ts"],
};

// Every test file runs in its own process, several at once: the unit, emulator, client and provider files
// mostly wait on timers, and each e2e file drives its own emulators, folders and stacks, so independent
// files share the two cores well. Within an e2e file, tests marked concurrent (independent stacks: the
// fault campaign, the bad-input runs) run a few at a time. A run that leaves a process running fails
// (test/leftovers-setup.ts).
export default defineConfig({
  test: {
    // Six, not four: the e2e files spend most of their wall time waiting on engine processes (the suite's
    // profile: ~790 s of CPU over ~2,200 s of engine wall), so at four the two cores were about half busy.
    // .ci/run's second lane runs its cells beside the first lane's with fewer (PRB_MAX_WORKERS): two
    // cells of six each held the two cores at a load near 30, where hang guards meant for minutes were hit.
    maxWorkers: Number(process.env.PRB_MAX_WORKERS) || 6,
    sequence: { sequencer: WaitsFirst },
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          // test/hosts/ is the hosts cell's (vitest.hosts.config.mts, `npm run test:hosts`).
          exclude: ["test/e2e/**", "test/hosts/**"],
          testTimeout: 30_000,
          // A hang guard, not a goal: vitest's 10 s default failed a CI run whose machine took longer than
          // that to delete the workflow tests' 3,600 small files while e2e files built and installed beside it.
          hookTimeout: 120_000,
          globalSetup: ["test/leftovers-setup.ts"],
          setupFiles: ["test/profile-setup.ts"],
        },
      },
      // `npm test` runs unit and e2e-core; the e2e cell (`npm run test:e2e`) runs e2e (test/cells.mts).
      {
        test: { ...E2E, name: "e2e-core", include: [...E2E_IN_NPM_TEST] },
      },
      {
        // A cell that runs some of them names them in PRB_E2E_FILES (scripts/cell.sh), so that its unit
        // tests, when it runs them too, run in the same invocation, beside its e2e files' waits.
        test: {
          ...E2E,
          name: "e2e",
          include: process.env.PRB_E2E_FILES ? process.env.PRB_E2E_FILES.split(" ") : ["test/e2e/**/*.test.ts"],
          exclude: [...E2E_IN_NPM_TEST],
        },
      },
    ],
  },
});
