#!/usr/bin/env node
"use strict";
// The two pages the Pulumi Registry publishes of this package, docs/_index.md and
// docs/installation-configuration.md, link to the rest of the manual at the release's tag in this
// repository: the registry publishes those two pages alone (and API pages it generates from the schema), so
// a relative link to any other page of docs/ is dead there. This writes every relative link of the two pages,
// and every link to this repository at another ref, as an absolute one at `v<package.json's version>`:
//
//   node scripts/registry-pages.js [ROOT]     rewrite the two pages in place (scripts/build.sh runs it)
//
// The build runs it whenever package.json changes, so a release's version bump moves the links with it;
// test/docs/registry-pages.test.ts fails while a page has a relative link or one at another version.
const fs = require("node:fs");
const path = require("node:path");

const PAGES = ["docs/_index.md", "docs/installation-configuration.md"];

/** `owner/repo` of package.json's GitHub repository. */
function repositoryOf(manifest) {
  const url = typeof manifest.repository === "string" ? manifest.repository : manifest.repository && manifest.repository.url;
  const m = /github\.com[/:]([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(String(url));
  if (!m) throw new Error(`package.json's repository is not a GitHub repository (${String(url).slice(0, 200)})`);
  return `${m[1]}/${m[2]}`;
}

/**
 * The page's text with its links made absolute. `page` is the page's path from `root`; `isDir(p)` says whether
 * the repository path `p` is a folder (GitHub shows folders under `tree/`, files under `blob/`). Links inside
 * code (fenced blocks and inline code spans) are text, not links, and are left alone, as are links to a
 * place on the same page (`#...`) and to anything that is not this repository.
 */
function publishedText(text, { page, repository, version, isDir }) {
  const base = `https://github.com/${repository}`;
  const atTag = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/(blob|tree)/[^/]+/(.*)$`);
  const absolute = (target, image) => {
    if (target.startsWith("#")) return target;
    const tagged = atTag.exec(target);
    if (tagged) return `${base}/${tagged[1]}/v${version}/${tagged[2]}`;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/")) return target;
    const [file, anchor] = target.split(/#(.*)/s, 2);
    const repoPath = path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURIComponent(file)));
    if (repoPath.startsWith("..")) throw new Error(`${page}: ${target} points outside the repository`);
    // An image is shown from the file's raw bytes; a page or folder from GitHub's view of it.
    if (image) return `https://raw.githubusercontent.com/${repository}/v${version}/${encodeURI(repoPath)}`;
    const kind = isDir(repoPath) ? "tree" : "blob";
    return `${base}/${kind}/v${version}/${encodeURI(repoPath.replace(/\/$/, ""))}${anchor !== undefined ? `#${anchor}` : ""}`;
  };
  // Fenced blocks are kept as they are; in the text between them, a code span is matched before a link
  // that starts later, so that a link shown as code stays as written, and a link's label may hold code.
  const link = /(`+)[\s\S]*?\1|(!?\[(?:[^[\]]|\[[^\]]*\])*\]\()([^()\s]+)(\))/g;
  const rewrite = (prose) => prose.replace(link, (whole, code, open, target, close) => (code ? whole : `${open}${absolute(target, open.startsWith("!"))}${close}`));
  const out = [];
  let prose = [];
  let fence;
  for (const line of text.split("\n")) {
    const opening = /^\s*(```+|~~~+)/.exec(line);
    if (fence) {
      if (opening && opening[1][0] === fence[0] && opening[1].length >= fence.length) fence = undefined;
      out.push(line);
    } else if (opening) {
      fence = opening[1];
      if (prose.length > 0) out.push(rewrite(prose.join("\n")));
      out.push(line);
      prose = [];
    } else {
      prose.push(line);
    }
  }
  if (prose.length > 0) out.push(rewrite(prose.join("\n")));
  return out.join("\n");
}

/** Rewrites the two pages of the project at `root` in place; returns the pages it changed. */
function writePublishedPages(root) {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const options = { repository: repositoryOf(manifest), version: manifest.version };
  const isDir = (p) => fs.existsSync(path.join(root, p)) && fs.statSync(path.join(root, p)).isDirectory();
  const changed = [];
  for (const page of PAGES) {
    const file = path.join(root, page);
    if (!fs.existsSync(file)) continue;
    const text = fs.readFileSync(file, "utf8");
    const next = publishedText(text, { ...options, page, isDir });
    if (next !== text) {
      fs.writeFileSync(file, next);
      changed.push(page);
    }
  }
  return changed;
}

module.exports = { PAGES, publishedText, repositoryOf, writePublishedPages };

if (require.main === module) {
  const changed = writePublishedPages(path.resolve(process.argv[2] || path.join(__dirname, "..")));
  if (changed.length > 0) console.error(`registry-pages: links made absolute at the release's tag in ${changed.join(", ")}`);
}
