import { defineConfig } from "vitest/config";

// The tests Stryker runs against each mutant of client/ and core/: their unit tests, against the
// in-process emulator. The e2e tier is too slow to run once per mutant.
export default defineConfig({
  test: {
    include: ["test/client/**/*.test.ts", "test/core/**/*.test.ts"],
    testTimeout: 30_000,
  },
});
