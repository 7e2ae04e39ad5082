import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmulator } from "../../emulator";
import type { Emulator } from "../../emulator";
import { githubOf, pluginIdentity } from "../../plugin/identity";
import { fileType } from "../../release/fileType";
import { run } from "../../release/run";
import { cellPulumiSdk, onPath } from "../e2e/plain-cli";
import { npmRunRelease } from "../e2e/release-build";
import { acquireFrom, hostsInstall, lifecycle, stack } from "./hosts";
import { folderServer, goProxyFromTag, verdaccio } from "./rehearsal";

/**
 * A release rehearsed end to end on one machine. `npm run release` makes the release of package.json's
 * version; scripts/publish.sh -- the script the release workflow runs for a tag -- publishes each part to a
 * local stand-in of its endpoint: the plugin archives into a folder served on loopback (the GitHub release
 * the SDKs' pluginDownloadURL names), both npm tarballs to a Verdaccio registry, the wheel and sdist into
 * a PEP 503 index served on loopback, and the Go module as its tag pushed to a bare repository standing for
 * GitHub's, which Go fetches into a GOPROXY folder. Then each language's program installs the packages
 * from there, as the installation page's lines say once they are published, and runs under Pulumi's own
 * language host with the plain CLI: up, preview and refresh without changes, destroy.
 */
const root = path.resolve(__dirname, "..", "..");
const VERSION = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
const ARCHIVE = `pulumi-resource-remote-browser-v${VERSION}-linux-amd64.tar.gz`;
const { owner, repo } = githubOf((JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { repository: unknown }).repository);
const REPOSITORY = `${owner}/${repo}`;
const GO_MODULE = `github.com/${REPOSITORY}/sdk/go/remotebrowser`;
const publish = path.join(root, "scripts", "publish.sh");

let base: string;
let release: string;
let pulumiBin: string;
let emulator: Emulator;
let plugins: Awaited<ReturnType<typeof folderServer>>;
let pypi: Awaited<ReturnType<typeof folderServer>>;
let npm: Awaited<ReturnType<typeof verdaccio>>;
let go: Awaited<ReturnType<typeof goProxyFromTag>>;
const published: Record<string, string> = {};

const sha512 = (file: string) => `sha512-${createHash("sha512").update(fs.readFileSync(file)).digest("base64")}`;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-rehearsal-"));
  pulumiBin = hostsInstall(path.join(base, "pulumi", "bin"), ["nodejs", "python", "go"]);
  release = await npmRunRelease(VERSION, inject("e2e").pulumiBin);
  emulator = await startEmulator({ prepMs: 300 });
  const sh = (args: string[], env: NodeJS.ProcessEnv = {}, cwd = base) => run("bash", [publish, ...args, "--release", release, "--version", VERSION], { cwd, env: { ...process.env, ...env } });

  // The GitHub release page: a folder, served by name.
  published.plugin = await sh(["plugin", "--dir", path.join(base, "release-page")]);
  plugins = await folderServer(path.join(base, "release-page"));

  // npm: both tarballs, with the token in the environment and the npmrc naming it, as in the workflow.
  npm = await verdaccio(path.join(base, "verdaccio"), ["pulumi-remote-browser", "@remote-browser/*"]);
  const npmEnv = { NPM_CONFIG_USERCONFIG: npm.userconfig, NODE_AUTH_TOKEN: npm.token };
  published.npm = await sh(["npm", "--registry", npm.url], npmEnv);
  published.npmAgain = await sh(["npm", "--registry", npm.url], npmEnv);

  // PyPI: the wheel and the sdist, laid out as a simple index.
  published.pypi = await sh(["pypi", "--collect", path.join(base, "pypi"), "--simple-index"]);
  pypi = await folderServer(path.join(base, "pypi"));

  // Go: a clone of this repository's commit, its origin a bare repository; the tag pushed there.
  const origin = path.join(base, "origin.git");
  const clone = path.join(base, "clone");
  await run("git", ["init", "--quiet", "--bare", origin]);
  await run("git", ["clone", "--quiet", "--no-hardlinks", root, clone]);
  await run("git", ["remote", "set-url", "origin", origin], { cwd: clone });
  published.go = await sh(["go"], { GITHUB_REPOSITORY: REPOSITORY }, clone);
  published.goAgain = await sh(["go"], { GITHUB_REPOSITORY: REPOSITORY }, clone);
  fs.mkdirSync(path.join(base, "go-fetch"));
  go = await goProxyFromTag(path.join(base, "go-fetch"), origin, REPOSITORY, GO_MODULE, VERSION);
}, 1_800_000);

afterAll(async () => {
  await plugins?.close();
  await pypi?.close();
  await npm?.close();
  await emulator?.close();
  if (base) await fs.promises.rm(base, { recursive: true, force: true });
});

const sessionsOf = (accountId: string) => emulator.control.sessions().filter((s) => s.accountId === accountId);

describe("what publishing put where", () => {
  it("the release page holds every archive and checksums.txt, which verifies them; a re-run leaves them", async () => {
    expect(fs.readdirSync(path.join(base, "release-page")).sort()).toEqual([ARCHIVE, "checksums.txt"].sort());
    expect(await run("sha256sum", ["--check", "--strict", "checksums.txt"], { cwd: path.join(base, "release-page") })).toBe(`${ARCHIVE}: OK\n`);
    const again = await run("bash", [publish, "plugin", "--dir", path.join(base, "release-page"), "--release", release, "--version", VERSION]);
    expect(again).toContain(`${ARCHIVE} is published already, with the same bytes`);
  });

  it("the npm registry serves both packages at the version, byte for byte the release's tarballs, under latest; a re-run publishes nothing", async () => {
    const tarballs = {
      "pulumi-remote-browser": path.join(release, `pulumi-remote-browser-${VERSION}.tgz`),
      "@remote-browser/pulumi": path.join(release, "sdk", "nodejs", `remote-browser-pulumi-${VERSION}.tgz`),
    };
    for (const [name, file] of Object.entries(tarballs)) {
      const doc = (await (await fetch(`${npm.url}${name.replace("/", "%2f")}`)).json()) as { "dist-tags": Record<string, string>; versions: Record<string, { dist: { integrity: string } }> };
      expect(doc["dist-tags"].latest, name).toBe(VERSION);
      expect(doc.versions[VERSION]!.dist.integrity, name).toBe(sha512(file));
      expect(published.npmAgain).toContain(`${name}@${VERSION} is published already`);
    }
  });

  it("the simple index lists the wheel and the sdist with their sha256", () => {
    const page = fs.readFileSync(path.join(base, "pypi", "simple", "pulumi-remote-browser", "index.html"), "utf8");
    for (const file of fs.readdirSync(path.join(base, "pypi")).filter((f) => f.startsWith("pulumi_remote_browser-"))) {
      const sha = createHash("sha256")
        .update(fs.readFileSync(path.join(base, "pypi", file)))
        .digest("hex");
      expect(page).toContain(`href="../../${file}#sha256=${sha}"`);
    }
  });

  it("the Go module's tag sdk/go/remotebrowser/v<version> is what Go fetches, laid out as the module proxy serves it; a re-run leaves the tag", () => {
    expect(go.info.Version).toBe(`v${VERSION}`);
    expect(go.info.Origin?.Ref).toBe(`refs/tags/sdk/go/remotebrowser/v${VERSION}`);
    for (const ext of ["info", "mod", "zip"]) expect(fs.existsSync(path.join(go.proxy, GO_MODULE, "@v", `v${VERSION}.${ext}`)), ext).toBe(true);
    expect(published.goAgain).toContain(`sdk/go/remotebrowser/v${VERSION} exists already`);
  });
});

describe.concurrent("each SDK, installed from where it was published, under Pulumi's language host", () => {
  it("TypeScript: `npm install @remote-browser/pulumi` from the registry; the engine downloads the plugin from the pluginDownloadURL; BrowserSession, ReviewSessions and getImages through up, preview and refresh without changes, destroy", async () => {
    const dir = path.join(base, "typescript");
    fs.cpSync(path.join(__dirname, "programs", "typescript"), dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "rehearsal-typescript", private: true }));
    const npmEnv = { ...process.env, NPM_CONFIG_USERCONFIG: npm.userconfig, NODE_AUTH_TOKEN: npm.token };
    await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "@remote-browser/pulumi", `@pulumi/pulumi@${cellPulumiSdk()}`, "typescript@~5.9.3", "@types/node@^20.19.0"],
      { cwd: dir, env: npmEnv },
    );
    const installed = JSON.parse(fs.readFileSync(path.join(dir, "node_modules", "@remote-browser", "pulumi", "package.json"), "utf8")) as { version: string };
    expect(installed.version).toBe(VERSION);
    // The lock records what npm took: the registry's tarball, which is the release's byte for byte.
    const tarball = path.join(release, "sdk", "nodejs", `remote-browser-pulumi-${VERSION}.tgz`);
    expect(JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8")).packages["node_modules/@remote-browser/pulumi"].integrity).toBe(sha512(tarball));

    const { cli, account } = await stack(pulumiBin, dir, path.join(base, "typescript-state"), emulator);
    acquireFrom(cli, `${plugins.url}`);
    expect(onPath("pulumi-resource-remote-browser", cli.env.PATH!), "no plugin on PATH").toBeUndefined();
    await programLifecycle(cli, account);
    expect(fileType(downloaded(cli))).toBe("ELF 64-bit x86-64");
    expect(plugins.served, "the engine downloaded the archive from the release page").toContain(`/${ARCHIVE}`);
  });

  it("the dynamic provider: `npm install pulumi-remote-browser @pulumi/pulumi` from the registry gives the release's package, and its SDK loads from there", async () => {
    const dir = path.join(base, "dynamic");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "rehearsal-dynamic", private: true }));
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "pulumi-remote-browser", "@pulumi/pulumi"], {
      cwd: dir,
      env: { ...process.env, NPM_CONFIG_USERCONFIG: npm.userconfig, NODE_AUTH_TOKEN: npm.token },
    });
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "node_modules", "pulumi-remote-browser", "package.json"), "utf8")) as { version: string };
    expect(manifest.version).toBe(VERSION);
    const sdk = await run("node", ["-e", "const rb = require('pulumi-remote-browser'); console.log(typeof rb.BrowserSession, typeof rb.getImagesOutput)"], { cwd: dir });
    expect(sdk.trim()).toBe("function function");
  });

  it("Python: the archive downloaded with checksums.txt, checked and installed with `pulumi plugin install --file`; `pip install pulumi-remote-browser` from the index; examples/python-review through up, preview and refresh without changes, destroy", async () => {
    const downloads = path.join(base, "downloads");
    fs.mkdirSync(downloads);
    for (const name of [ARCHIVE, "checksums.txt"]) {
      const answer = await fetch(`${plugins.url}${name}`);
      expect(answer.status, name).toBe(200);
      fs.writeFileSync(path.join(downloads, name), Buffer.from(await answer.arrayBuffer()));
    }
    expect(await run("sha256sum", ["--check", "--ignore-missing", "checksums.txt"], { cwd: downloads })).toBe(`${ARCHIVE}: OK\n`);

    const dir = path.join(base, "python");
    fs.cpSync(path.join(root, "examples", "python-review"), dir, { recursive: true, filter: (src) => !/^(node_modules|venv|sdks|Pulumi\..+\.yaml)$/.test(path.basename(src)) });
    const venv = path.join(dir, "venv");
    await run("python3", ["-m", "venv", venv]);
    await run(path.join(venv, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", path.join(dir, "requirements.txt"), "pulumi-remote-browser"], {
      env: { ...process.env, PIP_EXTRA_INDEX_URL: `${pypi.url}simple/` },
    });
    expect(
      pypi.served.some((p) => /^\/pulumi_remote_browser-.*\.whl$/.test(p)),
      "pip took the wheel from the index",
    ).toBe(true);
    const plugin = JSON.parse(
      await run(path.join(venv, "bin", "python"), ["-c", "import importlib.resources as r, pulumi_remote_browser as m; print(r.files(m).joinpath('pulumi-plugin.json').read_text())"]),
    );
    expect(plugin).toMatchObject({ name: "remote-browser", version: VERSION, server: pluginIdentity().pluginDownloadURL });

    const { cli, account } = await stack(pulumiBin, dir, path.join(base, "python-state"), emulator);
    // Acquisition stays off (the suite's engine environment): the plugin can only be the one installed here.
    expect(cli.env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION).toBe("true");
    await cli.clean(["plugin", "install", "resource", "remote-browser", VERSION, "--file", path.join(downloads, ARCHIVE)]);
    expect((await cli.ok(["plugin", "ls"])).stdout).toMatch(new RegExp(`remote-browser\\s+resource\\s+${VERSION.replaceAll(".", "\\.")}`));
    await lifecycle(cli, emulator, account, 2, (outputs) => {
      expect(outputs.session_ids).toEqual(Object.fromEntries(sessionsOf(account.accountId).map((s) => [s.browser, s.vmId])));
      expect(outputs.share_urls).toBe("[secret]");
    });
  });

  it("Go: `go get` of the module at v<version> from the GOPROXY folder; the engine downloads the plugin; BrowserSession, ReviewSessions and getImages through up, preview and refresh without changes, destroy", async () => {
    const dir = path.join(base, "go");
    fs.cpSync(path.join(__dirname, "programs", "go"), dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "go.mod"), "module example.test/rehearsal\n\ngo 1.24\n");
    const upstream = (await run("go", ["env", "GOPROXY"])).trim();
    const localCache = (await run("go", ["env", "GOMODCACHE"])).trim();
    // The module from the rehearsal's folder alone; Pulumi's Go SDK from the machine's module cache, then
    // the configured proxy. A module cache of its own, so no earlier rehearsal's module is taken instead.
    const goEnv = {
      GOPROXY: `file://${go.proxy},file://${path.join(localCache, "cache", "download")},${upstream}`,
      GOMODCACHE: path.join(base, "go-modcache"),
      GOFLAGS: "-mod=mod -modcacherw",
      GOSUMDB: "off",
    };
    await run("go", ["get", `${GO_MODULE}@v${VERSION}`], { cwd: dir, env: { ...process.env, ...goEnv } });
    expect(fs.readFileSync(path.join(dir, "go.sum"), "utf8")).toContain(`${GO_MODULE} v${VERSION} ${go.info.Sum}`);

    const { cli, account } = await stack(pulumiBin, dir, path.join(base, "go-state"), emulator);
    Object.assign(cli.env, goEnv);
    acquireFrom(cli, `${plugins.url}`);
    await programLifecycle(cli, account);
    expect(fileType(downloaded(cli))).toBe("ELF 64-bit x86-64");
  });
});

describe("today, before anything is published: from the folder `npm run release` wrote, as the installation page says", () => {
  it("the plugin by `pulumi plugin install --file`, `@remote-browser/pulumi` by its tarball's path; a TypeScript program through up, preview and refresh without changes, destroy, with nothing downloaded", async () => {
    const dir = path.join(base, "today");
    fs.cpSync(path.join(__dirname, "programs", "typescript"), dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "rehearsal-today", private: true }));
    const tarball = path.join(release, "sdk", "nodejs", `remote-browser-pulumi-${VERSION}.tgz`);
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball, `@pulumi/pulumi@${cellPulumiSdk()}`, "typescript@~5.9.3", "@types/node@^20.19.0"], {
      cwd: dir,
    });
    const { cli, account } = await stack(pulumiBin, dir, path.join(base, "today-state"), emulator);
    expect(cli.env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION, "nothing downloaded: the plugin can only be the one installed from the file").toBe("true");
    await cli.clean(["plugin", "install", "resource", "remote-browser", VERSION, "--file", path.join(release, ARCHIVE)]);
    await programLifecycle(cli, account);
    expect(fileType(downloaded(cli))).toBe("ELF 64-bit x86-64");
  });
});

/** The TypeScript and Go programs' lifecycle: a BrowserSession of chrome, a ReviewSessions of firefox, getImages. */
async function programLifecycle(cli: Parameters<typeof lifecycle>[0], account: { apiKey: string; accountId: string }) {
  await lifecycle(cli, emulator, account, 2, (outputs) => {
    expect(outputs.sessionId).toBe(sessionsOf(account.accountId).find((s) => s.browser === "chrome")!.vmId);
    expect(outputs.reviewSessionIds).toEqual({ firefox: sessionsOf(account.accountId).find((s) => s.browser === "firefox")!.vmId });
    expect(outputs.shareUrl).toBe("[secret]");
    expect(outputs.images).toEqual(expect.arrayContaining(["chrome", "firefox"]));
  });
}

const downloaded = (cli: { env: NodeJS.ProcessEnv }) => path.join(cli.env.PULUMI_HOME!, "plugins", `resource-remote-browser-v${VERSION}`, "pulumi-resource-remote-browser");
