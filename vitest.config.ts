import { defineConfig } from "vitest/config";

// Unit, emulator, client and provider tests run in parallel; the e2e project drives the real
// engine in child processes and runs its files one at a time to stay within two cores.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**"],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
          // Tests marked concurrent (independent stacks) run three at a time.
          maxConcurrency: 3,
          globalSetup: ["test/e2e/global-setup.ts"],
        },
      },
    ],
  },
});
