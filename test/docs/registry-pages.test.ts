import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { anchors, pageLinks, read, root } from "./markdown";

/* eslint-disable @typescript-eslint/no-require-imports -- scripts/registry-pages.js is the CommonJS script the build runs with plain node: the test loads that very file */
const { PAGES, publishedText, repositoryOf } = require("../../scripts/registry-pages.js") as {
  PAGES: string[];
  publishedText(text: string, opts: { page: string; repository: string; version: string; isDir(p: string): boolean }): string;
  repositoryOf(manifest: unknown): string;
};
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The two pages the Pulumi Registry publishes (docs/_index.md, docs/installation-configuration.md) link only
 * to pages that exist where they are published: a place on the same page, another site, or this repository
 * at the release's tag (`v` + package.json's version), at a file or folder and anchor that exist here.
 */
const manifest = JSON.parse(read("package.json")) as { version: string };
const repository = repositoryOf(manifest);
const atTag = `https://github.com/${repository}/`;
const isDir = (p: string) => fs.existsSync(path.join(root, p)) && fs.statSync(path.join(root, p)).isDirectory();

/**
 * The lint the registry's community-package check runs on a listing's `_index.md`, as pulumi/registry has it
 * (scripts/ci/community-package/doc_lint.py, commit 0b21a20): each pattern breaks on the registry's pages.
 */
const REGISTRY_DOC_LINT: Array<[RegExp, string]> = [
  [/<img[^>]+src="(\.|\/|[^hH])/, "relative-image"],
  [/<img[^>]+src='(\.|\/|[^hH])/, "relative-image"],
  [/!\[[^\]]*\]\((\.|\/)/, "relative-image"],
  [/<a[^>]+href="(\.|\/)/, "raw-relative-link"],
  [/\]\((?!https?:\/\/)[^)]*\.md[)#]/, "md-suffixed-link"],
];
const lintFindings = (text: string) =>
  text.split("\n").flatMap((line, i) =>
    REGISTRY_DOC_LINT.filter(([re]) => re.test(line))
      .slice(0, 1)
      .map(([, kind]) => `${i + 1}: ${kind}: ${line.slice(0, 120)}`),
  );

describe("the pages the registry publishes", () => {
  it.each(PAGES)("%s links only to its own anchors, other sites, and this repository at the release's tag", (page) => {
    const text = read(page);
    const links = pageLinks(text);
    expect(links.filter((l) => l.target.startsWith(atTag)).length, "links into the repository").toBeGreaterThan(0);
    const bad = links.flatMap(({ target, line }) => {
      if (target.startsWith("#")) return anchors(text).has(target.slice(1)) ? [] : [`${line}: ${target}: no such anchor on the page`];
      if (!/^https?:\/\//.test(target)) return [`${line}: ${target}: a relative link, dead where the registry publishes the page`];
      if (!target.startsWith(atTag)) return [];
      const m = /^(blob|tree)\/([^/]+)\/([^#]*)(?:#(.*))?$/.exec(target.slice(atTag.length));
      if (!m) return [`${line}: ${target}: not a file or folder of the repository`];
      const [, kind, ref, file, anchor] = m as unknown as [string, string, string, string, string | undefined];
      if (ref !== `v${manifest.version}`) return [`${line}: ${target}: at ${ref}, not the release's tag v${manifest.version}`];
      const repoPath = decodeURI(file);
      if (!fs.existsSync(path.join(root, repoPath))) return [`${line}: ${target}: ${repoPath} does not exist`];
      if ((kind === "tree") !== isDir(repoPath)) return [`${line}: ${target}: ${repoPath} is ${isDir(repoPath) ? "a folder (tree/)" : "a file (blob/)"}`];
      if (anchor !== undefined && repoPath.endsWith(".md") && !anchors(read(repoPath)).has(anchor)) return [`${line}: ${target}: ${repoPath} has no anchor #${anchor}`];
      return [];
    });
    expect(bad, "run node scripts/registry-pages.js to make the links absolute at the tag").toEqual([]);
  });

  it.each(PAGES)("%s is as scripts/registry-pages.js writes it (the build runs it when package.json changes)", (page) => {
    const text = read(page);
    expect(publishedText(text, { page, repository, version: manifest.version, isDir }), "run node scripts/registry-pages.js").toBe(text);
  });

  it.each(PAGES)("%s passes the registry's doc lint", (page) => {
    expect(lintFindings(read(page))).toEqual([]);
  });
});

describe("scripts/registry-pages.js", () => {
  const opts = { page: "docs/_index.md", repository: "o/r", version: "1.2.3", isDir: (p: string) => p === "examples/yaml-review" };
  it("makes relative links absolute at the tag, moves links at another ref, and leaves code, anchors and other sites alone", () => {
    const input = [
      "See [the ledger](tested.md#cells), [`BrowserSession` in\ndepth](browser-session.md), [an example](../examples/yaml-review),",
      "![logo](../assets/logo.png), [old](https://github.com/o/r/blob/v0.0.9/docs/x.md), [main](https://github.com/o/r/blob/main/CHANGELOG.md),",
      "[here](#configuration), [npm](https://www.npmjs.com/package/x), `[code](a.md)`.",
      "```md",
      "[in a fence](a.md)",
      "```",
      "[after](review-sessions.md)",
    ].join("\n");
    expect(publishedText(input, opts)).toBe(
      [
        "See [the ledger](https://github.com/o/r/blob/v1.2.3/docs/tested.md#cells), [`BrowserSession` in\ndepth](https://github.com/o/r/blob/v1.2.3/docs/browser-session.md), [an example](https://github.com/o/r/tree/v1.2.3/examples/yaml-review),",
        "![logo](https://raw.githubusercontent.com/o/r/v1.2.3/assets/logo.png), [old](https://github.com/o/r/blob/v1.2.3/docs/x.md), [main](https://github.com/o/r/blob/v1.2.3/CHANGELOG.md),",
        "[here](#configuration), [npm](https://www.npmjs.com/package/x), `[code](a.md)`.",
        "```md",
        "[in a fence](a.md)",
        "```",
        "[after](https://github.com/o/r/blob/v1.2.3/docs/review-sessions.md)",
      ].join("\n"),
    );
    expect(() => publishedText("[out](../../elsewhere.md)", opts)).toThrow(/points outside the repository/);
  });

  it("the lint catches what the registry's catches", () => {
    expect(lintFindings('[a](tested.md#x)\n[b](https://github.com/o/r/blob/v1/docs/tested.md#x)\n<img src="./logo.png">\n![l](./logo.png)').map((f) => f.split(": ")[1])).toEqual([
      "md-suffixed-link",
      "relative-image",
      "relative-image",
    ]);
  });
});
