import type { TestProject } from "vitest/node";
import { linuxRelease } from "../e2e/release-build";

/**
 * Once per hosts run, after the e2e setup (the build, the packed package, the CLI): the linux-amd64 release
 * with its SDKs -- the wheel, the npm tarball and the Go module the programs install as users install them,
 * and the plugin archive the engine downloads for them -- kept in the cache while its inputs are the same.
 */
export default async function setup(project: TestProject): Promise<void> {
  const { pulumiBin } = project.getProvidedContext().e2e;
  project.provide("hosts", { release: await linuxRelease(pulumiBin, { sdks: true }) });
}

declare module "vitest" {
  export interface ProvidedContext {
    /** `release`: the folder of the release (archives, checksums.txt, schema.json, sdk/). */
    hosts: { release: string };
  }
}
