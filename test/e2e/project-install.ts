import * as fs from "node:fs";
import * as path from "node:path";
import { cacheRoot, cachedFolder, keyOf } from "../helpers/input-cache";
import { run } from "../../release/run";

/**
 * The e2e project's packages -- the packed package and the cell's @pulumi/pulumi, as `npm install` lays them
 * out -- kept between runs, because that install was the longest step before the first e2e test could start
 * (26 s on a 2-core machine, two minutes on a loaded one) and gave the same tree every run the sources had
 * not changed. The key: the tarball's bytes (`npm pack` is reproducible: any change to the package's files
 * changes them), the @pulumi/pulumi version and Node's version; npm resolves the rest from its own cache
 * (`--prefer-offline`) as the project's install did before. The project links its `node_modules` to the
 * entry; nothing the tests run writes into it.
 */
export async function installProject(projectDir: string, tarball: string, pulumiVersion: string): Promise<boolean> {
  const dependencies = { "@pulumi/pulumi": pulumiVersion, "pulumi-remote-browser": `file:${tarball}` };
  fs.writeFileSync(path.join(projectDir, "package.json"), JSON.stringify({ name: "e2e-project", private: true, dependencies }, null, 2));
  const key = keyOf(fs.readFileSync(tarball), pulumiVersion, process.version);
  const { dir, hit } = await cachedFolder(cacheRoot("e2e-install"), key, async (tmp) => {
    fs.copyFileSync(path.join(projectDir, "package.json"), path.join(tmp, "package.json"));
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: tmp, stderr: "inherit" });
  });
  fs.symlinkSync(path.join(dir, "node_modules"), path.join(projectDir, "node_modules"));
  return hit;
}
