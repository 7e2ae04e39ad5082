import type { TestProject } from "vitest/node";
import { linuxRelease, releaseSdks } from "../e2e/release-build";

/**
 * Once per hosts run, after the e2e setup (the build, the packed package, the CLI): the linux-amd64 release
 * -- the plugin archive the engine downloads for the programs -- and its SDKs -- the wheel, the npm tarball
 * and the Go module the programs install as users install them -- both kept in the cache while their inputs
 * are the same (the release is the one test/e2e/release.test.ts runs, so `npm test` has made it already).
 */
export default async function setup(project: TestProject): Promise<void> {
  const { pulumiBin } = project.getProvidedContext().e2e;
  const release = await linuxRelease(pulumiBin);
  project.provide("hosts", { release, sdks: await releaseSdks(release) });
}

declare module "vitest" {
  export interface ProvidedContext {
    /** `release`: the folder of the release (archives, checksums.txt, schema.json); `sdks`: its SDKs' folder. */
    hosts: { release: string; sdks: string };
  }
}
