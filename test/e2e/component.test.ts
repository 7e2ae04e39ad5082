import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { deriveSchema, inSchemaFormat, withNativeSchema } from "../../plugin/packageSchema";
import type { PackageSchema } from "../../plugin/packageSchema";
import { startEmulator } from "../../emulator";
import { run } from "../../release/run";
import { sdkgen } from "../../release/sdkgen";
import { engineEnvironment } from "../../runner/environment";
import { RunFailed, withStack } from "./harness";
import { cacheRoot, cachedFolder, filesOf, keyOf } from "../helpers/input-cache";
import { accountBooks, newAccount } from "./plain-cli";
/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON of `pulumi stack export`, read field by field as the CLI writes it */

/**
 * The ReviewSessions component through the real engine, as a program in another language uses it: a remote
 * component served by the resource plugin `pulumi-resource-remote-browser`, which the engine finds on PATH.
 * The plugin is the one of the installed tarball (`node_modules/.bin` of the e2e project), so what ships is
 * what runs.
 */
const root = path.resolve(__dirname, "..", "..");
const TYPE = "remote-browser:index:ReviewSessions";
const NATIVE_TYPE = "remote-browser:index:BrowserSession";

function pluginDir(): string {
  const { projectDir } = inject("e2e");
  const dir = path.join(projectDir, "node_modules", ".bin");
  const installed = path.join(projectDir, "node_modules", "pulumi-remote-browser");
  if (!fs.existsSync(path.join(installed, "dist", "plugin", "host.js"))) {
    throw new Error(`the installed package has no dist/component: build (npx tsc -p tsconfig.json) before the e2e run`);
  }
  return dir;
}

/**
 * The parts of a schema this file compares, in Pulumi's schema format (inSchemaFormat): what the CLI prints
 * after binding the schema and writing it again.
 */
function comparable({ name, version, description, resources, types }: PackageSchema): PackageSchema {
  return inSchemaFormat({ name, version, description, resources, types });
}

let schemaText: Promise<string> | undefined;
/** `pulumi package get-schema` of the installed plugin, as the CLI prints it: asked once for the file's tests. */
function servedSchema(): Promise<string> {
  schemaText ??= (async () => {
    const { projectDir, pulumiBin } = inject("e2e");
    const plugin = path.join(pluginDir(), "pulumi-resource-remote-browser");
    const workDir = fs.mkdtempSync(path.join(projectDir, "get-schema-"));
    try {
      const env = { ...process.env, ...engineEnvironment({ pulumiBin, stateDir: workDir, workDir }) };
      return await run(pulumiBin, ["package", "get-schema", plugin], { cwd: workDir, env });
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  })();
  return schemaText;
}

/**
 * The generated Python SDK in `sdk` installed by pip (`--target`) into a folder kept in the cache by the
 * hash of the SDK's files and the interpreter of `venv`: the same sources install to the same files, and the
 * install (a setuptools build) was a good part of the Python test's CPU. Returns the folder.
 */
async function installedSdk(venv: string, sdk: string): Promise<string> {
  const key = keyOf(fs.realpathSync(path.join(venv, "bin", "python")), ...filesOf(sdk, ["."]));
  const { dir } = await cachedFolder(cacheRoot("e2e-python-sdk"), key, async (tmp) => {
    await run(path.join(venv, "bin", "python"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-build-isolation", "--target", tmp, sdk]);
  });
  return dir;
}

const pythonPrograms = path.join(__dirname, "programs", "component-python");
const example = path.join(root, "examples", "python-review");
const reviewSessions = path.join(pythonPrograms, "review-sessions");
const getSession = path.join(pythonPrograms, "get-session");
const explicitProvider = path.join(pythonPrograms, "explicit-provider");

let pythonSdk: Promise<{ venv: string; pythonPath: string }> | undefined;
/**
 * The Python SDK generated from the schema the installed plugin serves, installed, and a virtualenv with the
 * Python SDK and the generated SDK's dependencies: made once for the file's Python tests.
 */
function pythonSdkOnce(): Promise<{ venv: string; pythonPath: string }> {
  pythonSdk ??= (async () => {
    const pyVersion = JSON.parse(fs.readFileSync(path.join(root, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-python-sdk-"));
    try {
      const generator = await sdkgen(base);
      const schemaFile = path.join(base, "schema.json");
      fs.writeFileSync(schemaFile, await servedSchema());
      await run(generator, [schemaFile, path.join(base, "sdk"), "python"]);
      // The SDK's dependencies (its setup.py's install_requires, the pulumi pin aside) and its build tools in
      // the cached virtualenv; the SDK itself, generated afresh each run, is installed into a folder kept by
      // the hash of its files (it reads its own package metadata) that is put on PYTHONPATH.
      const setup = fs.readFileSync(path.join(base, "sdk", "setup.py"), "utf8");
      const requires = [.../install_requires=\[([^\]]*)\]/.exec(setup)![1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
      const sdkDeps = requires.filter((r) => !/^pulumi\b/.test(r));
      expect(sdkDeps.join(" "), "the generated SDK's dependencies").toMatch(/parver.*semver/);
      const venv = (await run("bash", [path.join(root, "scripts", "python-venv.sh"), `pulumi==${pyVersion}`, "setuptools", "wheel", ...sdkDeps])).trim();
      return { venv, pythonPath: await installedSdk(venv, path.join(base, "sdk")) };
    } finally {
      await fs.promises.rm(base, { recursive: true, force: true });
    }
  })();
  return pythonSdk;
}

/**
 * One Python test's own emulator and stacks, and `act`, which runs a program through the Python SDK's
 * Automation API (programs/component-python/run.py). `cleanup` runs its argument when a session was left
 * running, then closes the emulator and removes the folders.
 */
async function pythonStacks() {
  const { pulumiBin } = inject("e2e");
  const dir = pluginDir();
  const { venv, pythonPath } = await pythonSdkOnce();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "prb-python-"));
  // The work folder has no node_modules, nor any above it: everything runs in the plugin.
  const workDir = fs.mkdtempSync(path.join(base, "stacks-python-"));
  const emulator = await startEmulator({ prepMs: 300 });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ...engineEnvironment({ pulumiBin, stateDir: path.join(workDir, ".pulumi-local"), workDir }),
    PYTHONPATH: pythonPath,
  };
  env.PATH = [dir, env.PATH].join(path.delimiter);
  // The Automation API wants `<root>/bin/pulumi`.
  const pulumiRoot = path.join(base, "pulumi");
  fs.mkdirSync(path.join(pulumiRoot, "bin"), { recursive: true });
  fs.symlinkSync(pulumiBin, path.join(pulumiRoot, "bin", "pulumi"));
  const act = async (action: string, program = example, stack = "dev", config: Record<string, [string, boolean]> = {}) => {
    const request = path.join(base, `${stack}-${action}.json`);
    const resultFile = path.join(base, `${stack}-${action}-result.json`);
    // The request holds the key: a file only its owner reads.
    fs.writeFileSync(
      request,
      JSON.stringify({
        example: program,
        workDir,
        action,
        project: "python-review",
        stack,
        pulumiRoot,
        env: Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("PULUMI_") || k === "PATH")),
        config: {
          "remote-browser:baseUrl": [emulator.apiBaseUrl, false],
          "remote-browser:apiKey": [emulator.apiKey, true],
          previewUrl: ["https://pr-9.preview.example.com/", false],
          ...config,
        },
        resultFile,
      }),
      { mode: 0o600 },
    );
    const stdout = await run(path.join(venv, "bin", "python"), [path.join(pythonPrograms, "run.py"), request], { cwd: workDir, env: { ...env, PYTHONDONTWRITEBYTECODE: "1" } });
    return { ...JSON.parse(fs.readFileSync(resultFile, "utf8")), stdout };
  };
  const exportOf = (stack: string) => run(pulumiBin, ["stack", "export", "--stack", stack, "--non-interactive"], { cwd: workDir, env });
  const cleanup = async (endLeftRunning: () => Promise<void>) => {
    if (emulator.control.books().neverEnded > 0) await endLeftRunning();
    await emulator.close();
    await fs.promises.rm(base, { recursive: true, force: true });
  };
  return { act, exportOf, emulator, dir, cleanup };
}

describe.concurrent("the remote-browser component plugin under the engine", () => {
  it("pulumi package get-schema of the installed plugin prints the schema derived from the TypeScript sources and the field tables", async () => {
    const served = JSON.parse(await servedSchema()) as PackageSchema;
    const derived = await deriveSchema(root);
    expect(comparable(served)).toEqual(comparable(withNativeSchema(derived)));
    // Not vacuous: the schema has the component, its secret output and its version.
    expect(served.name).toBe("remote-browser");
    expect(served.version).toBe(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).version);
    expect(served.resources[TYPE].properties.shareUrls.secret).toBe(true);
    expect(served.resources[TYPE].requiredInputs).toEqual(["browsers", "url"]);
  });

  it("up starts one session per browser, keeps the links secret, previews no change, and destroy ends them", async () => {
    const dir = pluginDir();
    await withStack(
      "component-review.js",
      async (stack) => {
        const config = { browsers: "chrome,firefox", shareLanguage: "de", url: "https://pr-7.preview.example.com/" };
        const up = await stack.run("up", { config });
        // The engine took the plugin of the installed package from PATH.
        expect(up.stdout).toContain(`using pulumi-resource-remote-browser from $PATH at ${path.join(dir, "pulumi-resource-remote-browser")}`);

        const sessions = stack.emulator.control.sessions();
        expect(sessions.map((s) => s.browser).sort()).toEqual(["chrome", "firefox"]);
        for (const s of sessions) {
          expect(s.status).toBe("running");
          expect(s.url).toBe(config.url);
          expect(s.shareLanguage).toBe("de");
        }
        const byBrowser = Object.fromEntries(sessions.map((s) => [s.browser, s]));

        // Outputs as the CLI shows them: the links masked, the rest in the clear.
        expect(up.outputs.shareUrls).toBe("[secret]");
        expect(up.outputs.sessionIds).toEqual({ chrome: byBrowser.chrome.vmId, firefox: byBrowser.firefox.vmId });
        expect(Object.keys(up.outputs.browserNames as object).sort()).toEqual(["chrome", "firefox"]);

        // The links are the sessions' real links (shown only on request).
        const shown = await stack.run("outputs", { extraArgs: ["--show-secrets"] });
        expect(shown.outputs.shareUrls).toEqual({
          chrome: `${stack.emulator.shareBase}/de/s?${byBrowser.chrome.linkId}`,
          firefox: `${stack.emulator.shareBase}/de/s?${byBrowser.firefox.linkId}`,
        });

        // The state: the component and its children, the links as ciphertext, no key and no link id.
        const exported = await stack.exportState();
        const resources = JSON.parse(exported).deployment.resources as Array<Record<string, any>>;
        const component = resources.find((r) => r.type === TYPE)!;
        expect(component, "the component in the state").toBeDefined();
        expect(component.outputs.shareUrls.ciphertext, "shareUrls is a secret in the state").toEqual(expect.any(String));
        expect(component.outputs.sessionIds).toEqual({ chrome: byBrowser.chrome.vmId, firefox: byBrowser.firefox.vmId });
        const children = resources.filter((r) => r.parent === component.urn);
        // The plugin's own sessions, on the provider that constructed the component (the program gave it no
        // version): the stack's one provider of the package, so one plugin process served them all.
        expect(children.map((r) => r.type)).toEqual([NATIVE_TYPE, NATIVE_TYPE]);
        const providers = resources.filter((r) => r.type === "pulumi:providers:remote-browser");
        expect(providers.map((r) => r.urn.split("::").pop())).toEqual(["default"]);
        for (const child of children) expect(child.provider).toBe(`${providers[0]!.urn}::${providers[0]!.id}`);
        expect(children.map((r) => r.urn.split("::").pop()).sort()).toEqual(["review-chrome", "review-firefox"]);
        for (const child of children) expect(child.outputs.shareUrl.ciphertext).toEqual(expect.any(String));
        for (const secret of [stack.emulator.apiKey, ...sessions.map((s) => s.linkId)]) {
          expect(exported.includes(secret), "a secret appears in stack export").toBe(false);
          expect(stack.stateFilesText().includes(secret), "a secret appears in the state files").toBe(false);
        }

        const preview = await stack.run("preview", { config, expectNoChanges: true });
        expect(preview.changes).toEqual({ same: 4 });

        // A bad input fails in the component, through the engine, before any session starts.
        const failed = await stack.run("up", { config: { ...config, browsers: "chrome,chrome" } }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(failed).toBeInstanceOf(RunFailed);
        expect((failed as RunFailed).stderr + (failed as RunFailed).stdout).toMatch(/browsers names "chrome" twice/);
        expect(stack.emulator.control.sessions()).toHaveLength(2);

        const destroy = await stack.run("destroy");
        expect(destroy.changes).toEqual({ delete: 4 });
        expect(stack.emulator.control.books().neverEnded).toBe(0);
        expect(JSON.parse(await stack.exportState()).deployment.resources ?? []).toEqual([]);
      },
      { pathDirs: [dir] },
    );
  });

  it("an explicit provider given to the component reaches its sessions: they start in that provider's account", async () => {
    await withStack(
      "component-review.js",
      async (stack) => {
        const second = newAccount(stack.emulator);
        const secondAccount = path.join(stack.workDir, "second-account.json");
        fs.writeFileSync(secondAccount, JSON.stringify({ apiKey: second.apiKey, baseUrl: stack.emulator.apiBaseUrl }), { mode: 0o600 });
        const config = { browsers: "chrome,firefox", secondAccount };
        const up = await stack.run("up", { config });
        // The stack, the provider, the component and its two sessions.
        expect(up.changes).toEqual({ create: 5 });
        // Every session in the second account, none in the stack's own.
        expect(accountBooks(stack.emulator, second.accountId)).toMatchObject({ started: 2, running: 2 });
        expect(stack.emulator.control.sessions()).toHaveLength(2);
        const resources = JSON.parse(await stack.exportState()).deployment.resources as Array<Record<string, any>>;
        const component = resources.find((r) => r.type === TYPE)!;
        const children = resources.filter((r) => r.parent === component.urn);
        expect(children.map((r) => r.type)).toEqual([NATIVE_TYPE, NATIVE_TYPE]);
        for (const child of children) expect(child.provider).toMatch(/::pulumi:providers:remote-browser::second-account::/);
        const explicit = resources.find((r) => r.type === "pulumi:providers:remote-browser" && r.urn.endsWith("::second-account"))!;
        expect(explicit.inputs.apiKey.ciphertext, "the explicit provider's key is a secret in the state").toEqual(expect.any(String));
        expect(stack.stateFilesText().includes(second.apiKey), "the second account's key appears in the state files").toBe(false);

        await stack.run("preview", { config, expectNoChanges: true });
        await stack.run("refresh", { config, expectNoChanges: true });
        expect((await stack.run("destroy", { config })).changes).toEqual({ delete: 5 });
        expect(accountBooks(stack.emulator, second.accountId)).toMatchObject({ started: 2, neverEnded: 0 });
      },
      { pathDirs: [pluginDir()] },
    );
  });

  // No Python language host can be had here, so the Automation API of the Python SDK runs the example's
  // __main__.py as an inline program (it serves the program itself), and the SDK `pulumi package add`
  // would generate comes from the same Python code generator the language host uses (release/sdkgen/main.go), fed with
  // the schema the installed plugin serves. Needs python3 with venv, Go (as the engine build does) and
  // PyPI for the `pulumi` Python package; scripts/python-venv.sh installs python3-venv when it is missing
  // (or fails naming the command) and keeps the virtualenv in a cache outside the repository.
  // Three tests, each with its own emulator and stacks, run side by side: as one test, one after the other,
  // they were the longest chain of every cell that runs this file (468 s of a 480 s file).
  it("the Python example runs through the generated SDK: native sessions up, no change at preview and refresh, get by id, destroy", async () => {
    const { act, exportOf, emulator, dir, cleanup } = await pythonStacks();
    try {
      // The example: native BrowserSessions, and get_images / get_usage, through the generated SDK.
      const up = await act("up");
      expect(up.stdout).toContain(`using pulumi-resource-remote-browser from $PATH at ${path.join(dir, "pulumi-resource-remote-browser")}`);
      expect(up.changes).toEqual({ create: 3 });
      const sessions = emulator.control.sessions();
      expect(sessions.map((s) => s.browser).sort()).toEqual(["chrome", "firefox"]);
      for (const s of sessions) {
        expect(s.status).toBe("running");
        expect(s.url).toBe("https://pr-9.preview.example.com/");
        expect(s.shareLanguage).toBe("de");
      }
      const byBrowser = Object.fromEntries(sessions.map((s) => [s.browser, s]));
      expect(up.outputs.session_ids).toEqual({ value: { chrome: byBrowser.chrome.vmId, firefox: byBrowser.firefox.vmId }, secret: false });
      expect(up.outputs.browser_names).toEqual({ value: { chrome: "Google Chrome", firefox: "Mozilla Firefox" }, secret: false });
      expect(up.outputs.share_urls).toEqual({
        value: {
          chrome: `${emulator.shareBase}/de/s?${byBrowser.chrome.linkId}`,
          firefox: `${emulator.shareBase}/de/s?${byBrowser.firefox.linkId}`,
        },
        secret: true,
      });
      expect(up.stdout).not.toContain(byBrowser.chrome.linkId);
      const exported = await exportOf("dev");
      const native = JSON.parse(exported).deployment.resources.filter((r: any) => r.type === NATIVE_TYPE);
      expect(native.map((r: any) => r.id).sort()).toEqual([byBrowser.chrome.vmId, byBrowser.firefox.vmId].sort());
      for (const r of native) expect(r.outputs.shareUrl.ciphertext, "the share link is a secret in the state").toEqual(expect.any(String));
      for (const secret of [emulator.apiKey, ...sessions.map((s) => s.linkId)]) expect(exported.includes(secret)).toBe(false);

      expect((await act("preview")).changes).toEqual({ same: 3 });
      // Refresh reads every session again: no change reported (`--expect-no-changes`), and the state's inputs
      // and outputs as up left them (the share links still ciphertext).
      const recorded = (text: string) =>
        JSON.parse(text)
          .deployment.resources.filter((r: any) => r.type === NATIVE_TYPE)
          .map((r: any) => ({
            id: r.id,
            inputs: r.inputs,
            outputs: { ...r.outputs, shareUrl: "*", shareUrlPath: "*" },
            links: [r.outputs.shareUrl, r.outputs.shareUrlPath].map((l: any) => typeof l?.ciphertext),
          }));
      expect((await act("refresh")).changes).toEqual({ same: 3 });
      const refreshed = recorded(await exportOf("dev"));
      expect(refreshed).toEqual(recorded(exported));
      expect(refreshed.map((r: any) => r.links)).toEqual([
        ["string", "string"],
        ["string", "string"],
      ]);

      // BrowserSession.get in another stack: the engine's Read by id, with the browser and state and no link.
      const got = await act("up", getSession, "watcher", { vmId: [byBrowser.chrome.vmId, false] });
      expect(got.outputs.browser).toEqual({ value: "chrome", secret: false });
      expect(got.outputs.status).toEqual({ value: "running", secret: false });
      expect(got.outputs.share_url?.value ?? null).toBeNull();
      // The read session is discarded from the watcher's state (the stack itself deleted), not ended.
      expect((await act("destroy", getSession, "watcher", { vmId: [byBrowser.chrome.vmId, false] })).changes).toEqual({ delete: 1, discard: 1 });
      expect(emulator.control.sessions().find((s) => s.vmId === byBrowser.chrome.vmId)!.status, "a read session is not ended by the reader's destroy").toBe("running");

      expect((await act("destroy")).changes).toEqual({ delete: 3 });
      expect(emulator.control.books()).toMatchObject({ running: 0, neverEnded: 0 });
    } finally {
      await cleanup(async () => {
        await act("destroy").catch(() => undefined);
      });
    }
  }, 1_200_000);

  it("an explicit Provider of the generated SDK from Python: a second account's session beside the stack's own, its meter read through it", async () => {
    const { act, exportOf, emulator, cleanup } = await pythonStacks();
    let accounts: Record<string, [string, boolean]> | undefined;
    try {
      // An explicit Provider of the generated SDK: a second account's session beside the stack's own, and
      // get_usage through that provider reading the second account's meter.
      const second = newAccount(emulator, { runningLimit: 3 });
      accounts = { secondKey: [second.apiKey, true], secondBaseUrl: [emulator.apiBaseUrl, false] };
      const two = await act("up", explicitProvider, "accounts", accounts);
      expect(two.changes).toEqual({ create: 4 });
      const [theirs] = accountBooks(emulator, second.accountId).sessions;
      expect(accountBooks(emulator, second.accountId)).toMatchObject({ started: 1, running: 1 });
      expect(theirs).toMatchObject({ vmId: two.outputs.their_id.value, browser: "firefox" });
      const own = emulator.control.sessions().find((s) => s.vmId === two.outputs.own_id.value)!;
      expect(own.accountId, "the session without the explicit provider is the stack's own account's").not.toBe(second.accountId);
      expect(own.status).toBe("running");
      expect(two.outputs.their_running).toEqual({ value: 1, secret: false });
      expect(two.outputs.their_limit, "the second account's meter (the stack's own has another limit)").toEqual({ value: 3, secret: false });
      const exportedAccounts = await exportOf("accounts");
      const explicit = JSON.parse(exportedAccounts).deployment.resources.find((r: any) => r.type === "pulumi:providers:remote-browser" && r.urn.endsWith("::second-account"));
      expect(explicit.inputs.apiKey.ciphertext, "the explicit provider's key is a secret in the state").toEqual(expect.any(String));
      for (const secret of [emulator.apiKey, second.apiKey, theirs!.linkId, own.linkId]) expect(exportedAccounts.includes(secret)).toBe(false);
      expect((await act("preview", explicitProvider, "accounts", accounts)).changes).toEqual({ same: 4 });
      expect((await act("destroy", explicitProvider, "accounts", accounts)).changes).toEqual({ delete: 4 });
      expect(accountBooks(emulator, second.accountId)).toMatchObject({ started: 1, running: 0, neverEnded: 0 });
      expect(emulator.control.books()).toMatchObject({ running: 0, neverEnded: 0 });
    } finally {
      await cleanup(async () => {
        if (accounts) await act("destroy", explicitProvider, "accounts", accounts).catch(() => undefined);
      });
    }
  }, 1_200_000);

  it("ReviewSessions from Python through the generated SDK: one session per browser, the links secret, no change at preview, destroy", async () => {
    const { act, exportOf, emulator, cleanup } = await pythonStacks();
    try {
      // The ReviewSessions component from Python, through the same SDK.
      const review = await act("up", reviewSessions, "components");
      expect(review.changes).toEqual({ create: 4 });
      const components = emulator.control.sessions().filter((s) => s.status === "running");
      expect(components.map((s) => s.browser).sort()).toEqual(["chrome", "firefox"]);
      expect(review.outputs.share_urls.secret).toBe(true);
      const exportedComponents = await exportOf("components");
      const component = JSON.parse(exportedComponents).deployment.resources.find((r: any) => r.type === TYPE);
      expect(component.outputs.shareUrls.ciphertext).toEqual(expect.any(String));
      const sessionsOfComponent = JSON.parse(exportedComponents).deployment.resources.filter((r: any) => r.parent === component.urn);
      expect(sessionsOfComponent.map((r: any) => r.type)).toEqual([NATIVE_TYPE, NATIVE_TYPE]);
      for (const secret of [emulator.apiKey, ...components.map((s) => s.linkId)]) expect(exportedComponents.includes(secret)).toBe(false);
      expect((await act("preview", reviewSessions, "components")).changes).toEqual({ same: 4 });
      expect((await act("destroy", reviewSessions, "components")).changes).toEqual({ delete: 4 });
      expect(emulator.control.books().neverEnded).toBe(0);
    } finally {
      await cleanup(async () => {
        await act("destroy", reviewSessions, "components").catch(() => undefined);
      });
    }
  }, 1_200_000);
});
