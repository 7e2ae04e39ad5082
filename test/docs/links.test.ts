import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { anchors, markdownFiles, pageLinks, read, root } from "./markdown";

/**
 * Links inside the repository: every relative link of every Markdown file names a file or folder that
 * exists, and every `#anchor` one that the target page offers (a heading's slug or an `<a id>`).
 */
function broken(file: string): string[] {
  const problems: string[] = [];
  for (const { target, line } of pageLinks(read(file))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
    const dest = pathPart === "" ? file : path.normalize(path.join(path.dirname(file), decodeURIComponent(pathPart)));
    const full = path.join(root, dest);
    if (!fs.existsSync(full)) {
      problems.push(`${file}:${line}: ${target}: no such file`);
      continue;
    }
    if (anchor !== undefined && fs.statSync(full).isFile() && dest.endsWith(".md") && !anchors(read(dest)).has(anchor)) {
      problems.push(`${file}:${line}: ${target}: ${dest} has no anchor #${anchor}`);
    }
  }
  return problems;
}

describe("links inside the repository", () => {
  it("every relative link and anchor of every Markdown file resolves", () => {
    const files = markdownFiles();
    expect(files).toContain("README.md");
    expect(files.flatMap(broken)).toEqual([]);
  });

  it("catches a missing file and a missing anchor", () => {
    fs.mkdirSync(path.join(root, ".work"), { recursive: true });
    const dir = fs.mkdtempSync(path.join(root, ".work", "links-"));
    try {
      const rel = path.relative(root, dir);
      fs.writeFileSync(path.join(dir, "a.md"), "# Title\n\n## The `x` part, here\n\n[ok](#the-x-part-here) [ok](b.md#there) [bad](b.md#nowhere) [gone](c.md) [web](https://example.com/x#y)\n");
      fs.writeFileSync(path.join(dir, "b.md"), 'text <a id="there"></a>\n');
      expect(broken(path.join(rel, "a.md")).map((p) => p.replace(/^.*?: /, ""))).toEqual(["b.md#nowhere: " + path.join(rel, "b.md") + " has no anchor #nowhere", "c.md: no such file"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
