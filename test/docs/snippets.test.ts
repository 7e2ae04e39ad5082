import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import ts from "typescript";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator";
import { startEmulator } from "../../emulator";
import { isolateConfig, setStackConfig } from "../sdk/config";
import { useMockEngine } from "../sdk/mocks";
import { DYNAMIC, NATIVE, root, typescriptSnippets } from "./markdown";

/**
 * The TypeScript examples of the README and the user's pages. Each imports either the dynamic package
 * (`pulumi-remote-browser`): compiled here against the package's own types with the repository's compiler
 * options, then run as a program under @pulumi/pulumi's runtime mocks with the functions answering from
 * the emulator; or the native SDK (`@remote-browser/pulumi`), which exists only once generated:
 * test/e2e/generated-sdks.test.ts compiles those against it.
 */
const imports = (code: string) => [...code.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]!);
const dynamicSnippets = () => typescriptSnippets().filter((s) => imports(s.code).includes(DYNAMIC));

/** The compiler's complaints about `files`, with the repository's options (strict, its paths to the SDK). */
function compile(files: string[]): string[] {
  const config = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  // An example may import what it does not use, for the reader's sake: unused names are not its fault.
  const program = ts.createProgram(files, { ...options, noEmit: true, declaration: false, rootDir: undefined, noUnusedLocals: false });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.includes(path.resolve(d.file.fileName)))
    .map((d) => `${d.file ? path.basename(d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

const engine = useMockEngine();
isolateConfig();
let emu: Emulator;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ prepMs: 20, prepJitterMs: 0 });
  fs.mkdirSync(path.join(root, ".work"), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, ".work", "docs-snippets-"));
});
afterAll(async () => {
  await emu?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => setStackConfig({ baseUrl: emu.apiBaseUrl, apiKey: emu.apiKey }));

describe("the TypeScript examples of the user's pages", () => {
  it("each imports the dynamic package or the native SDK, and there are some of each", () => {
    const all = typescriptSnippets();
    expect(all.filter((s) => !imports(s.code).some((i) => i === DYNAMIC || i === NATIVE)).map((s) => s.where)).toEqual([]);
    expect(dynamicSnippets().length).toBeGreaterThan(2);
    expect(all.filter((s) => imports(s.code).includes(NATIVE)).length).toBeGreaterThan(1);
  });

  /**
   * One compiler run for the examples and a deliberately wrong program beside them (type-checking the
   * package's sources is most of the time), so the check is seen to fail where it should.
   */
  let compiled: Promise<{ examples: string[]; wrong: string[] }> | undefined;
  const compileAll = () =>
    (compiled ??= (async () => {
      const files = dynamicSnippets().map((s, i) => {
        const file = path.join(dir, `compile-${i}.ts`);
        fs.writeFileSync(file, `// ${s.where}\n${s.code}`);
        return file;
      });
      const wrong = path.join(dir, "wrong.ts");
      fs.writeFileSync(wrong, `import { BrowserSession } from "${DYNAMIC}";\nnew BrowserSession("x", { browsr: "chrome" });\n`);
      const problems = compile([...files, wrong]);
      return { examples: problems.filter((p) => !p.startsWith("wrong.ts")), wrong: problems.filter((p) => p.startsWith("wrong.ts")) };
    })());

  // The time-outs are hang guards: the compile takes some 20 s on a busy 2-core machine.
  it("those of the dynamic package compile against its types", async () => {
    expect((await compileAll()).examples).toEqual([]);
  }, 180_000);

  it("the compile check itself fails on a wrong input name", async () => {
    expect((await compileAll()).wrong.join("\n")).toMatch(/browsr/);
  }, 180_000);

  it.each(dynamicSnippets().map((s) => [s.where, s] as const))(
    "%s runs under the runtime mocks: its resources register and its exports resolve",
    async (_where, s) => {
      const before = engine.registrations.length;
      // What the engine would answer for a running session, so that the outputs the example exports resolve.
      for (const [, name] of s.code.matchAll(/new BrowserSession\("([^"]+)"/g)) {
        engine.outputs.set(name!, { vmId: `vm-${name}`, shareUrl: `https://share.example.test/${name}`, shareUrlPath: `/${name}`, status: "running", browserName: "Google Chrome" });
      }
      const file = path.join(dir, `run-${engine.registrations.length}-${Math.random().toString(36).slice(2)}.ts`);
      const sdk = path
        .relative(dir, path.join(root, "sdk", "index"))
        .split(path.sep)
        .join("/");
      fs.writeFileSync(file, s.code.replaceAll(`"${DYNAMIC}"`, `"${sdk}"`));
      const exported = (await import(file)) as Record<string, unknown>;
      const values = await Promise.all(Object.values(exported).map((v) => (pulumi.Output.isInstance(v) ? new Promise((resolve) => v.apply(resolve)) : Promise.resolve(v))));
      expect(values.filter((v) => v === undefined)).toEqual([]);
      const declared = (s.code.match(/new BrowserSession\(/g) ?? []).length;
      const registered = engine.registrations.slice(before).filter((r) => r.type === "pulumi-nodejs:dynamic/remote-browser:BrowserSession");
      expect(registered.length).toBe(declared);
    },
    30_000,
  );
});
