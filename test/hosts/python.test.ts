import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { fileType } from "../../release/fileType";
import { run } from "../../release/run";
import { installPackage, onPath } from "../e2e/plain-cli";
import { RELEASE_VERSION } from "../e2e/release-build";
import { acquireFrom, ARCHIVE, downloadedPlugin, hostsBed, lifecycle, stack } from "./hosts";

/**
 * examples/python-review with `pulumi` under Pulumi's Python language host (pulumi-language-python), as a
 * user runs it: first as its README says, `npm install` then `pulumi package add` of a clean clone of this
 * repository -- the plugin then runs from the clone's sources under the Node.js language host, at `package
 * add` and at every command after it -- and then on the release's wheel, whose plugin the engine downloads by
 * itself; the ReviewSessions component from Python on the same wheel.
 */
const root = path.resolve(__dirname, "..", "..");
const bed = hostsBed("python", ["python", "nodejs"]);

/** The example's folder as a user's checkout has it. */
function example(name: string): string {
  const dir = path.join(bed.base, name);
  fs.cpSync(path.join(root, "examples", "python-review"), dir, {
    recursive: true,
    filter: (src) => !/^(node_modules|venv|sdks|Pulumi\..+\.yaml)$/.test(path.basename(src)),
  });
  return dir;
}

const sessionsOf = (accountId: string) => bed.emulator.control.sessions().filter((s) => s.accountId === accountId);

describe.concurrent("examples/python-review under the Python language host", () => {
  it("as its README says: npm install, `pulumi package add` of a clean clone of this repository (the plugin from its sources, under the Node.js host); up, preview and refresh without changes, destroy", async () => {
    // The repository as a git URL gives it: what is committed, without a build or node_modules.
    const clone = path.join(bed.base, "remote-browser");
    await run("git", ["clone", "--quiet", "--no-hardlinks", root, clone]);
    expect(fs.existsSync(path.join(clone, "dist")) || fs.existsSync(path.join(clone, "node_modules"))).toBe(false);
    const dir = example("from-clone");
    // `npm install`: the packed package stands in for the npm registry's, with the @pulumi/pulumi it brings.
    await installPackage(dir, inject("e2e").tarball);
    const { cli, account } = await stack(bed.pulumiBin, dir, path.join(bed.base, "from-clone-state"), bed.emulator, { previewUrl: "https://pr-42.preview.example.com/" });
    expect(onPath("pulumi-resource-remote-browser", cli.env.PATH!), "no plugin on PATH").toBeUndefined();
    const added = await cli.ok(["package", "add", clone]);
    expect(added.stdout + added.stderr).toMatch(/import pulumi_remote_browser/);
    expect(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8")).toContain(`remote-browser: ${clone}`);
    await lifecycle(cli, bed.emulator, account, 2, (outputs) => {
      const sessions = sessionsOf(account.accountId);
      expect(outputs.session_ids).toEqual(Object.fromEntries(sessions.map((s) => [s.browser, s.vmId])));
      expect(outputs.share_urls).toBe("[secret]");
      expect(sessions.every((s) => s.url === "https://pr-42.preview.example.com/")).toBe(true);
    });
    // The engine ran the plugin from the clone, not a downloaded one.
    expect(fs.existsSync(path.join(cli.env.PULUMI_HOME!, "plugins", `resource-remote-browser-v${RELEASE_VERSION}`))).toBe(false);
  });

  it("on the release's wheel, the plugin acquired by the engine from the wheel's pluginDownloadURL; then ReviewSessions from Python on the same wheel; each through up, preview and refresh without changes, destroy", async () => {
    const dir = example("from-wheel");
    // The wheel's name has the version as Python writes it (9.9.9+e2e for 9.9.9-e2e).
    const wheels = path.join(inject("hosts").sdks, "python");
    const wheel = path.join(
      wheels,
      fs.readdirSync(wheels).find((f) => f.endsWith("-py3-none-any.whl"))!,
    );
    // The virtualenv the example's Pulumi.yaml names, with its requirements and the wheel.
    const venv = path.join(dir, "venv");
    await run("python3", ["-m", "venv", venv]);
    await run(path.join(venv, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", path.join(dir, "requirements.txt"), wheel]);
    const { cli, account } = await stack(bed.pulumiBin, dir, path.join(bed.base, "from-wheel-state"), bed.emulator);
    acquireFrom(cli, `${bed.server.url}py/`);
    await lifecycle(cli, bed.emulator, account, 2, (outputs) => {
      expect(outputs.session_ids).toEqual(Object.fromEntries(sessionsOf(account.accountId).map((s) => [s.browser, s.vmId])));
      expect(outputs.share_urls).toBe("[secret]");
    });
    expect(fileType(downloadedPlugin(cli)), "the release's binary, downloaded by the engine").toBe("ELF 64-bit x86-64");
    expect(bed.server.served).toContain(`/py/${ARCHIVE}`);

    // ReviewSessions, in a folder of its own on the same virtualenv.
    const review = path.join(bed.base, "review-sessions");
    fs.mkdirSync(review);
    fs.copyFileSync(path.join(root, "test", "e2e", "programs", "component-python", "review-sessions", "__main__.py"), path.join(review, "__main__.py"));
    fs.writeFileSync(path.join(review, "Pulumi.yaml"), `name: review-sessions\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: ${venv}\n`);
    const component = await stack(bed.pulumiBin, review, path.join(bed.base, "review-sessions-state"), bed.emulator);
    acquireFrom(component.cli, `${bed.server.url}py-review/`);
    await lifecycle(component.cli, bed.emulator, component.account, 2, (outputs) => {
      expect(outputs.session_ids).toEqual(Object.fromEntries(sessionsOf(component.account.accountId).map((s) => [s.browser, s.vmId])));
      expect(outputs.share_urls).toBe("[secret]");
    });
    expect(bed.server.served).toContain(`/py-review/${ARCHIVE}`);
  });
});
