import * as fs from "node:fs";
import { builtinModules } from "node:module";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "../release/run";

/**
 * What `npm pack` puts in the tarball, from its dry run: the entry points resolve to shipped files, every
 * module a shipped file loads is shipped or declared, and nothing of the development tree goes along.
 * (The e2e suite installs the real tarball into a fresh project and runs it under the engine.)
 */
const root = path.resolve(__dirname, "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

let files: string[] = [];
const shipped = (file: string) => files.includes(file.replace(/^\.\//, ""));

beforeAll(async () => {
  if (!fs.existsSync(path.join(root, "dist", "sdk", "index.js"))) await run("npx", ["tsc", "-p", "tsconfig.json"], { cwd: root });
  const text = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root });
  const [pack] = JSON.parse(text) as Array<{ name: string; files: Array<{ path: string }> }>;
  expect(pack.name).toBe("pulumi-remote-browser");
  files = pack.files.map((f) => f.path).sort();
}, 180_000);

describe("the packed package", () => {
  it("resolves main, types, every export and the bin to files in the tarball", () => {
    // `main` is the component package's entry, what Pulumi's run-plugin loads from a package folder (main.js:
    // the build, in the package); `require("pulumi-remote-browser")` gets the SDK through `exports`.
    expect(manifest.main).toBe("main.js");
    expect(shipped("dist/index.js")).toBe(true);
    expect(files, "the source checkout's entry stays out of the package").not.toContain("source-checkout.js");
    expect(manifest.types).toBe("dist/sdk/index.d.ts");
    expect(shipped(manifest.main)).toBe(true);
    expect(shipped(manifest.types)).toBe(true);

    const entries: Record<string, { types: string; default: string }> = {
      ".": { types: "./dist/sdk/index.d.ts", default: "./dist/sdk/index.js" },
      "./provider": { types: "./dist/dynamic/index.d.ts", default: "./dist/dynamic/index.js" },
      "./emulator": { types: "./dist/emulator/index.d.ts", default: "./dist/emulator/index.js" },
      "./runner": { types: "./dist/runner/index.d.ts", default: "./dist/runner/index.js" },
    };
    for (const [subpath, target] of Object.entries(entries)) {
      expect(manifest.exports[subpath], subpath).toEqual(target);
      expect(shipped(target.types), `${subpath} types`).toBe(true);
      expect(shipped(target.default), `${subpath} code`).toBe(true);
    }
    for (const [subpath, target] of Object.entries(manifest.exports as Record<string, unknown>)) {
      for (const file of typeof target === "string" ? [target] : Object.values(target as Record<string, string>)) {
        expect(file === "./package.json" || shipped(file), `export ${subpath} -> ${file}`).toBe(true);
      }
    }

    expect(manifest.bin["pulumi-remote-browser-run"]).toBe("dist/runner/cli.js");
    for (const [name, target] of Object.entries(manifest.bin as Record<string, string>)) {
      expect(shipped(target), `bin ${name} -> ${target}`).toBe(true);
      expect(fs.readFileSync(path.join(root, target), "utf8").startsWith("#!"), `bin ${name} has a shebang`).toBe(true);
    }
  });

  it("declares the Node.js versions it runs on and the files it ships", () => {
    expect(manifest.engines?.node).toMatch(/^>=\s*\d+/); // the line: test/support-policy.test.ts
    expect(Array.isArray(manifest.files) && manifest.files.length > 0).toBe(true);
    expect(manifest.peerDependencies?.["@pulumi/pulumi"]).toBeTruthy();
    // A user's project brings its own @pulumi/pulumi; two copies would not share the runtime's state.
    expect(manifest.dependencies?.["@pulumi/pulumi"]).toBeUndefined();
  });

  it("ships the README, the licence, the changelog, the security policy and package.json, and nothing of the development tree", () => {
    for (const file of ["README.md", "LICENSE", "CHANGELOG.md", "SECURITY.md", "package.json"]) expect(files).toContain(file);
    expect(manifest.license).toBe("Apache-2.0");
    expect(fs.readFileSync(path.join(root, "LICENSE"), "utf8")).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    const dev = files.filter(
      (f) =>
        /^(test|bench|scripts|release|examples|engine|docs|\.work|\.github|\.ci|node_modules|coverage)\//.test(f) ||
        /^dist\/(test|bench|scripts|release|examples)\//.test(f) ||
        (/\.ts$/.test(f) && !/\.d\.ts$/.test(f)) ||
        /\.(map|tgz|log)$/.test(f) ||
        /(^|\/)(tsconfig[^/]*\.json|vitest\.config\.[cm]?[jt]s|typedoc\.json|package-lock\.json|\.gitignore)$/.test(f),
    );
    expect(dev).toEqual([]);
  });

  it("loads only what it ships, its dependencies, its peer @pulumi/pulumi and Node.js itself", () => {
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const builtins = new Set(builtinModules);
    const problems: string[] = [];
    for (const file of files.filter((f) => /\.(js|d\.ts)$/.test(f))) {
      const text = fs.readFileSync(path.join(root, file), "utf8");
      const specifiers = file.endsWith(".d.ts") ? [...text.matchAll(/(?:from\s+|import\s*\(\s*)"([^"]+)"/g)].map((m) => m[1]) : [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
      for (const spec of specifiers) {
        if (spec.startsWith(".")) {
          const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
          const candidates = file.endsWith(".d.ts") ? [`${base}.d.ts`, `${base}/index.d.ts`, base.replace(/\.js$/, ".d.ts")] : [`${base}.js`, `${base}/index.js`, base, `${base}.json`];
          if (!candidates.some((c) => files.includes(c))) problems.push(`${file}: ${spec} is not in the tarball`);
        } else if (spec.startsWith("node:") || builtins.has(spec)) {
          continue;
        } else if (spec === manifest.name || spec.startsWith(`${manifest.name}/`)) {
          const subpath = spec === manifest.name ? "." : `.${spec.slice(manifest.name.length)}`;
          if (!manifest.exports[subpath]) problems.push(`${file}: ${spec} is not an export of the package`);
        } else {
          const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
          if (!declared.has(pkg)) problems.push(`${file}: ${spec} is neither a dependency nor a peer dependency`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
