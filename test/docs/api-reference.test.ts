import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, it } from "vitest";
import { run } from "../../release/run";

const root = path.resolve(__dirname, "..", "..");

/**
 * docs/api is the package's API reference as typedoc writes it from the sources' doc comments: a public
 * export added, renamed or deprecated without running `npm run docs` leaves the committed pages behind the
 * code (the reference missed `reviewProgram` until this test). Typedoc is run here into a folder of its own
 * and every page compared.
 */
it("docs/api is what `npm run docs` writes from the sources today", async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "prb-api-docs-"));
  try {
    await run(process.execPath, [path.join(root, "node_modules", "typedoc", "bin", "typedoc"), "--out", out, "--logLevel", "Error"], { cwd: root });
    const pages = (dir: string) => fs.readdirSync(dir).sort();
    expect(pages(out)).toEqual(pages(path.join(root, "docs", "api")));
    for (const page of pages(out)) {
      expect(fs.readFileSync(path.join(root, "docs", "api", page), "utf8"), `docs/api/${page}: run npm run docs`).toBe(fs.readFileSync(path.join(out, page), "utf8"));
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}, 60_000);
