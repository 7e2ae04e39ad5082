import { describe, expect, it } from "vitest";
import { NODE_VERSION } from "../../release/platforms";
import { SCHEMA_FILE, withNativeSchema } from "../../plugin/packageSchema";
import type { PackageSchema } from "../../plugin/packageSchema";
import { LEDGER, USER_PAGES, blocks, read } from "./markdown";

/**
 * What the pages say is released agrees with the CHANGELOG, and the facts the issue found contradicted
 * across pages are stated one way: which artifacts are released, which functions there are, which
 * Node.js the tests and the archives run, and what `pulumi package add` was (not) run with.
 */
const changelog = read("CHANGELOG.md");
const sections = changelog.split(/^## /m).slice(1);
const unreleasedNotes = sections.find((s) => s.startsWith("[Unreleased]")) ?? "";
const released = sections.filter((s) => /^\[\d+\.\d+\.\d+\]/.test(s));
const newest = /^\[(\d+\.\d+\.\d+)\]/.exec(released[0] ?? "")?.[1];

/** Artifacts as the pages name them, and as the CHANGELOG lists them. */
const ARTIFACTS = [
  { name: "the native Node.js SDK", page: /@remote-browser\/pulumi/, changelog: "@remote-browser/pulumi" },
  { name: "the Python SDK", page: /pulumi_remote_browser|pip install/, changelog: "Python wheel" },
  { name: "the Go SDK", page: /sdk\/go\/remotebrowser/, changelog: "sdk/go/remotebrowser" },
  { name: "the native BrowserSession", page: /remote-browser:index:BrowserSession/, changelog: "remote-browser:index:BrowserSession" },
  { name: "getSessions", page: /getSessions/, changelog: "`getSessions`" },
  { name: "the account audit", page: /pulumi-remote-browser-run audit/, changelog: "`pulumi-remote-browser-run audit`" },
  { name: "the release archives", page: /release archives?\b|pulumi-resource-remote-browser-v|no Node\.js/, changelog: "pulumi-resource-remote-browser-v" },
];
const unreleased = ARTIFACTS.filter((a) => unreleasedNotes.includes(a.changelog) && !released.some((r) => r.includes(a.changelog)));
const SAYS_UNRELEASED = /unreleased|not yet released|next release|until a release|not published yet|once published/i;
/** The package's version, the one a release built from a clone has and the pages' install lines name. */
const VERSION = (JSON.parse(read("package.json")) as { version: string }).version;
/** An install from a registry by name, which works only once the package is published. */
const FROM_REGISTRY = /npm install (?!\.{1,2}\/)(@?[a-z])|pip install (?!\.{1,2}\/)[a-z]|go get \S/;

/** A page's sections (split at its headings of level 1 to 3), as text with the line each starts on. */
function pageSections(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  for (const b of blocks(text)) {
    if (out.length === 0 || (b.kind === "heading" && b.level <= 3)) out.push({ line: b.line, text: "" });
    const body = b.kind === "table" ? b.rows.map((r) => r.join(" | ")).join("\n") : b.kind === "code" ? b.code : b.text;
    out.at(-1)!.text += body + "\n";
  }
  return out;
}

describe("the release status", () => {
  it("the CHANGELOG has a release, and lists the native artifacts only under [Unreleased]", () => {
    expect(newest).toMatch(/^\d+\.\d+\.\d+$/);
    // Once a release ships them, this list shrinks and the pages no longer need to say so.
    expect(unreleased.map((a) => a.name).length).toBeGreaterThan(0);
  });

  it.each(["README.md", "docs/_index.md", "docs/installation-configuration.md"])("%s says that nothing is published yet, naming no version as released", (page) => {
    // No version is on npm, PyPI or the Go module proxy, and the repository has no release: 0.1.0 was
    // prepared but never published. The first release changes these pages and this test with them.
    const text = read(page);
    expect(text).not.toMatch(/Released: /);
    expect(text).toMatch(/Not published yet/);
  });

  it.each(USER_PAGES)("%s: every section that names an unreleased artifact says it is unreleased", (page) => {
    const bad = pageSections(read(page)).flatMap((s) => unreleased.filter((a) => a.page.test(s.text) && !SAYS_UNRELEASED.test(s.text)).map((a) => `${page}:${s.line}: ${a.name}`));
    expect(bad).toEqual([]);
  });

  it('every install-table row installs today from a release built from a clone, and marks its registry line "(once published)"', () => {
    const tables = ["README.md", "docs/installation-configuration.md"].flatMap((page) =>
      blocks(read(page)).flatMap((b) => (b.kind === "table" && b.rows[0]!.some((c) => /^Install today/.test(c)) ? [{ page, b }] : [])),
    );
    expect(tables.map((t) => t.page)).toEqual(["README.md", "docs/installation-configuration.md"]);
    const bad = tables.flatMap(({ page, b }) => {
      const today = b.rows[0]!.findIndex((c) => /^Install today/.test(c));
      const later = b.rows[0]!.indexOf("Once published");
      return b.rows.slice(1).flatMap((row) => {
        const problems: string[] = [];
        if (FROM_REGISTRY.test(row[today]!)) problems.push(`${page}:${b.line}: ${row[0]}: today's line installs from a registry`);
        if (FROM_REGISTRY.test(row[later]!) && !/\(once published\)/.test(row[later]!)) problems.push(`${page}:${b.line}: ${row[0]}: the registry line is not marked (once published)`);
        for (const [v] of row[today]!.matchAll(/\d+\.\d+\.\d+/g)) if (v !== VERSION) problems.push(`${page}:${b.line}: ${row[0]}: names ${v}, not package.json's ${VERSION}`);
        return problems;
      });
    });
    expect(bad).toEqual([]);
  });

  it.each(["README.md", "docs/installation-configuration.md"])("%s builds the release of package.json's version and installs its plugin as the rehearsal does", (page) => {
    const code = blocks(read(page)).find((b) => b.kind === "code" && b.code.includes("npm run release"));
    expect(code?.kind === "code" && code.code.trim().split("\n")).toEqual([
      "git clone https://github.com/remote-browser/pulumi-remote-browser.git && cd pulumi-remote-browser",
      `npm run release -- --version ${VERSION} --platforms linux-amd64 --out ../release`,
      `pulumi plugin install resource remote-browser ${VERSION} --file ../release/pulumi-resource-remote-browser-v${VERSION}-linux-amd64.tar.gz`,
    ]);
  });
});

describe("facts stated one way", () => {
  it("every function the plugin serves is named on the overview and in BrowserSession in depth", () => {
    const schema: PackageSchema = withNativeSchema(JSON.parse(read(SCHEMA_FILE)));
    const names = Object.keys(schema.functions ?? {}).map((token) => token.split(":")[2]!);
    expect(names).toContain("getSessions");
    for (const page of ["docs/_index.md", "docs/browser-session.md", "README.md"]) {
      expect(
        names.filter((n) => !read(page).includes(`\`${n}\``)),
        page,
      ).toEqual([]);
    }
  });

  it("Node.js 22, 24 and 26 versions are the test pins of scripts/node.sh or the archives' pin, named as such", () => {
    const pins = [...read("scripts/node.sh").matchAll(/PINNED=(\d+\.\d+\.\d+)/g)].map((m) => m[1]!);
    expect(pins.length).toBe(3);
    for (const page of [...USER_PAGES, LEDGER, "CONTRIBUTING.md"]) {
      for (const b of blocks(read(page))) {
        const text = b.kind === "table" ? b.rows.map((r) => r.join(" | ")).join("\n") : b.kind === "code" ? "" : b.text;
        for (const [v] of text.matchAll(/\b2[246]\.\d+\.\d+\b/g)) {
          expect([...pins, NODE_VERSION], `${page}:${b.line}`).toContain(v);
          if (v === NODE_VERSION && !pins.includes(v)) expect(text, `${page}:${b.line} names ${v} as the archives' Node.js`).toMatch(/archive|release/);
        }
      }
    }
  });

  it("no page says `pulumi package add` was checked by hand, or suggests adding the npm package's script", () => {
    for (const page of [...USER_PAGES, "examples/pr-environment/README.md"]) {
      const text = read(page);
      expect(text, page).not.toMatch(/checked by hand/);
      for (const b of blocks(text)) {
        if (b.kind === "code") expect(b.code, `${page}:${b.line}`).not.toMatch(/pulumi package add \.\/node_modules/);
        else if (b.kind !== "table" && /pulumi package add \.\/node_modules/.test(b.text)) expect(b.text, `${page}:${b.line}`).toMatch(/\b(do not|not)\b/i);
      }
    }
  });

  it("no page points at a release by 'this one' or 'this release'", () => {
    for (const page of USER_PAGES) expect(read(page), page).not.toMatch(/before this one|this release\b/i);
  });
});
