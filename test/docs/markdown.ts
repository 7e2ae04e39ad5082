/**
 * A reader of the repository's Markdown, enough for the docs tests: fenced code blocks, paragraphs and
 * list items, tables, links, and the anchors a page offers (GitHub's heading slugs and `<a id>`).
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const root = path.resolve(__dirname, "..", "..");

/** The pages a user reads: every claim on them links to a row of docs/tested.md or says it is untested. */
export const USER_PAGES = [
  "README.md",
  "docs/_index.md",
  "docs/installation-configuration.md",
  "docs/browser-session.md",
  "docs/review-sessions.md",
  "docs/per-pull-request.md",
  "docs/dynamic-package.md",
  "examples/python-review/README.md",
  "examples/yaml-review/README.md",
];

export const LEDGER = "docs/tested.md";

export const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

export interface CodeBlock {
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** A paragraph, a list item, a heading, a table or a code block, in page order. */
export type Block =
  | { kind: "text" | "item"; text: string; line: number }
  | { kind: "heading"; level: number; text: string; line: number }
  | { kind: "table"; rows: string[][]; line: number }
  | ({ kind: "code" } & CodeBlock);

/** The page's lines with its front matter blanked (line numbers kept). */
function bodyLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    for (let i = 0; i <= end; i++) lines[i] = "";
  }
  return lines;
}

const isShortcode = (line: string) => /^\s*\{\{[<%].*[%>]\}\}\s*$/.test(line);
const isItemStart = (line: string) => /^\s*([-*]|\d+\.)\s+/.test(line);

export const tableCells = (line: string) =>
  line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

export function blocks(text: string): Block[] {
  const lines = bodyLines(text);
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^\s*(```+|~~~+)\s*([\w#+-]*)/.exec(line);
    if (fence) {
      const start = i;
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++;
      out.push({ kind: "code", lang: fence[2]!.toLowerCase(), code: body.join("\n") + "\n", line: start + 1 });
      continue;
    }
    if (line.trim() === "" || isShortcode(line)) {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      out.push({ kind: "heading", level: heading[1]!.length, text: heading[2]!.trim(), line: i + 1 });
      i++;
      continue;
    }
    if (line.trim().startsWith("|")) {
      const start = i;
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.trim().startsWith("|")) {
        if (!/^\s*\|[\s:|-]+\|\s*$/.test(lines[i]!)) rows.push(tableCells(lines[i]!));
        i++;
      }
      out.push({ kind: "table", rows, line: start + 1 });
      continue;
    }
    const start = i;
    const item = isItemStart(line);
    const body = [line];
    i++;
    while (i < lines.length) {
      const next = lines[i]!;
      if (next.trim() === "" || isShortcode(next) || /^\s*(```|~~~)/.test(next) || /^#{1,6}\s/.test(next) || next.trim().startsWith("|")) break;
      if (isItemStart(next)) break;
      body.push(next);
      i++;
    }
    out.push({ kind: item ? "item" : "text", text: body.join("\n"), line: start + 1 });
  }
  return out;
}

export const codeBlocks = (text: string): CodeBlock[] => blocks(text).filter((b): b is { kind: "code" } & CodeBlock => b.kind === "code");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/<[^>]+>/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Every anchor a page offers: its headings' slugs (repeats numbered as GitHub does) and `<a id>`/`name`. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const b of blocks(text)) {
    if (b.kind !== "heading") continue;
    const s = slug(b.text);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    found.add(n === 0 ? s : `${s}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(m[1]!);
  return found;
}

/** The Markdown links of a text outside code: `[label](target)`. Code spans are left out. */
export function links(text: string): Array<{ label: string; target: string }> {
  const prose = text.replace(/`[^`\n]*`/g, "``");
  return [...prose.matchAll(/\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ label: m[1]!, target: m[2]! }));
}

/** Every link of a page outside its code blocks. */
export function pageLinks(text: string): Array<{ label: string; target: string; line: number }> {
  const out: Array<{ label: string; target: string; line: number }> = [];
  for (const b of blocks(text)) {
    const texts = b.kind === "table" ? [b.rows.map((r) => r.join(" | ")).join("\n")] : b.kind === "code" ? [] : [b.text];
    for (const t of texts) for (const l of links(t)) out.push({ ...l, line: b.line });
  }
  return out;
}

/** Every Markdown file of the repository, relative to its root (dependencies and build output left out). */
export function markdownFiles(dir = root): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (["node_modules", "dist", ".work", ".git", "coverage"].includes(entry.name)) continue;
    if (entry.name.startsWith(".") && entry.name !== ".github") continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(full));
    else if (entry.name.endsWith(".md")) out.push(path.relative(root, full));
  }
  return out.sort();
}

/** The npm packages a TypeScript example may import: the dynamic package, or the native SDK. */
export const DYNAMIC = "pulumi-remote-browser";
export const NATIVE = "@remote-browser/pulumi";

export interface Snippet {
  where: string;
  code: string;
}

export function typescriptSnippets(): Snippet[] {
  return USER_PAGES.flatMap((page) =>
    codeBlocks(read(page))
      .filter((b) => ["typescript", "ts"].includes(b.lang))
      .map((b) => ({ where: `${page}:${b.line}`, code: b.code })),
  );
}
