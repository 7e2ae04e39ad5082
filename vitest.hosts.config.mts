import { defineConfig } from "vitest/config";

// The hosts cell (`npm run test:hosts`, scripts/hosts.sh): programs under Pulumi's own Node.js, Python and Go
// language hosts with the plain CLI. Not a project of vitest.config.mts, so `npm test` does not run it.
// One file per language and the release rehearsal, run side by side (the rehearsal, the longest, starts
// with the others rather than after the first to end); the e2e setup (the build, the packed package, the
// CLI) and the release with its SDKs are made once for all of them (test/hosts/global-setup.ts).
export default defineConfig({
  test: {
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: "hosts",
          include: ["test/hosts/**/*.test.ts"],
          testTimeout: 900_000,
          hookTimeout: 1_200_000,
          globalSetup: ["test/leftovers-setup.ts", "test/e2e/global-setup.ts", "test/hosts/global-setup.ts"],
          setupFiles: ["test/profile-setup.ts"],
        },
      },
    ],
  },
});
