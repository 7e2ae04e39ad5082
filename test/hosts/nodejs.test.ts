import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { run } from "../../release/run";
import { cellPulumiSdk, installPackage, onPath } from "../e2e/plain-cli";
import { RELEASE_VERSION } from "../e2e/release-build";
import { acquireFrom, hostsBed, languageHost, lifecycle, releaseProgramLifecycle, stack } from "./hosts";

/**
 * TypeScript programs with `pulumi` under Pulumi's Node.js language host (pulumi-language-nodejs), as a
 * user runs them: one on the release's `@remote-browser/pulumi` tarball, whose plugin the engine downloads
 * by itself, and the dynamic-provider example examples/pr-environment on the packed package.
 */
const root = path.resolve(__dirname, "..", "..");
const bed = hostsBed("nodejs", ["nodejs"]);

/** npm install in `dir` of `dependencies` with the cell's @pulumi/pulumi, TypeScript and Node's types. */
async function npmInstall(dir: string, dependencies: Record<string, string>) {
  const manifest = {
    name: path.basename(dir),
    private: true,
    dependencies: { "@pulumi/pulumi": cellPulumiSdk(), ...dependencies },
    devDependencies: { typescript: "~5.9.3", "@types/node": "^20.19.0" },
  };
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(manifest, null, 2));
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir });
}

describe.concurrent("TypeScript under the Node.js language host", () => {
  it("a program on the release's @remote-browser/pulumi tarball: the engine acquires the plugin from the package's pluginDownloadURL; BrowserSession, ReviewSessions and getImages through up, preview and refresh without changes, destroy", async () => {
    const dir = path.join(bed.base, "release-sdk");
    fs.cpSync(path.join(__dirname, "programs", "typescript"), dir, { recursive: true });
    await npmInstall(dir, { "@remote-browser/pulumi": `file:${path.join(inject("hosts").sdks, "nodejs", `remote-browser-pulumi-${RELEASE_VERSION}.tgz`)}` });
    const { cli, account } = await stack(bed.pulumiBin, dir, path.join(bed.base, "release-sdk-state"), bed.emulator);
    acquireFrom(cli, `${bed.server.url}ts/`);
    expect(onPath("pulumi-resource-remote-browser", cli.env.PATH!), "no plugin on PATH").toBeUndefined();
    expect(fs.existsSync(path.join(dir, "node_modules", ".bin", "pulumi-resource-remote-browser")), "no plugin in node_modules").toBe(false);
    const about = await cli.ok(["about"]);
    expect(about.stdout).toMatch(/language\s+nodejs\s+/);

    await releaseProgramLifecycle(cli, bed, account, "ts");
  });

  it("examples/pr-environment, the dynamic provider, on the packed package: up, preview and refresh without changes, destroy", async () => {
    const dir = path.join(bed.base, "pr-environment");
    fs.cpSync(path.join(root, "examples", "pr-environment"), dir, { recursive: true, filter: (src) => !/^(node_modules|Pulumi\..+\.yaml)$/.test(path.basename(src)) });
    await installPackage(dir, inject("e2e").tarball);
    const { cli, account } = await stack(bed.pulumiBin, dir, path.join(bed.base, "pr-environment-state"), bed.emulator, {
      prNumber: "42",
      previewUrl: "https://pr-42.preview.example.com/",
    });
    expect(onPath("pulumi-language-nodejs", cli.env.PATH!)).toBe(path.join(path.dirname(bed.pulumiBin), "pulumi-language-nodejs"));
    await lifecycle(cli, bed.emulator, account, 2, (outputs) => {
      expect(outputs.shareUrls).toBe("[secret]");
    });
  });
});

it("takes the host scripts/hosts.sh found", () => {
  expect(fs.realpathSync(path.join(path.dirname(bed.pulumiBin), "pulumi-language-nodejs"))).toBe(fs.realpathSync(languageHost("nodejs")));
});
