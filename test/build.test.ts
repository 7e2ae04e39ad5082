import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIfStale } from "./e2e/global-setup";

/**
 * The e2e setup packs the package from dist/; run on its own, a test file must still test the sources as
 * they are. One rule decides (scripts/build.sh, also behind scripts/prepare.sh): here on a small project.
 */
describe("the build before the e2e tests", () => {
  let dir: string;
  const source = () => path.join(dir, "src", "a.ts");
  const built = () => fs.readFileSync(path.join(dir, "dist", "src", "a.js"), "utf8");
  /** Saves a source after the last build, as an edit made since (the build's files are put back in time for that). */
  const edit = (text: string) => {
    fs.writeFileSync(source(), text);
    const earlier = fs.statSync(source()).mtimeMs / 1000 - 10;
    for (const f of fs.readdirSync(path.join(dir, "dist"), { recursive: true, encoding: "utf8" })) {
      fs.utimesSync(path.join(dir, "dist", f), earlier, earlier);
    }
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "prb-build-"));
    fs.mkdirSync(path.join(dir, "src"));
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "fixture", private: true }));
    fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "commonjs", target: "ES2022", rootDir: ".", outDir: "dist", types: [] }, include: ["src"] }));
    fs.symlinkSync(path.join(__dirname, "..", "node_modules"), path.join(dir, "node_modules"));
    fs.writeFileSync(source(), "export const a = 1;\n");
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("builds when there is no build, rebuilds when a source is newer, and leaves a fresh build alone", async () => {
    await buildIfStale(dir);
    expect(built()).toContain("a = 1");

    edit("export const a = 2;\n");
    await buildIfStale(dir);
    expect(built()).toContain("a = 2");

    // Fresh: the build is left as it is (a rebuild would overwrite this).
    fs.writeFileSync(path.join(dir, "dist", "src", "a.js"), "untouched");
    await buildIfStale(dir);
    expect(built()).toBe("untouched");

    // The tests are not part of the build: an edit of one leaves it alone.
    fs.mkdirSync(path.join(dir, "test"));
    fs.writeFileSync(path.join(dir, "test", "a.test.ts"), "export {};\n");
    await buildIfStale(dir);
    expect(built()).toBe("untouched");

    // A JSON file beside the sources (as plugin/schema.json, which a source imports) is part of the build.
    fs.writeFileSync(path.join(dir, "src", "data.json"), "{}\n");
    await buildIfStale(dir);
    expect(built()).toContain("a = 2");
    // A hang guard, not a goal: two compiler starts took over 30 s on a loaded 2-core machine.
  }, 180_000);
});
