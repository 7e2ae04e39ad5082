import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { LEDGER, USER_PAGES, anchors, blocks, links, read, root } from "./markdown";
import { E2E_IN_NPM_TEST } from "../cells.mts";

/**
 * The ledger's convention (docs/tested.md): on the README and the user's pages, every claim links to a
 * row of the ledger or says plainly that it is untested. A claim is a row of a table with a "Tested by"
 * column, a code example, or a paragraph or list item that says something is tested, checked, run by,
 * works, is supported or proven. The ledger's rows name test files that exist and commands that exist.
 */
const CLAIM = /\b(tested|checked|run by|works|supported|proven|verified)\b/i;
const UNTESTED = /\b(untested|not tested|not run|never run|not compiled)\b/i;
/** Blocks of code that show a program's output rather than something to run. */
const NOT_EXAMPLES = new Set(["", "text", "console", "output"]);

const ledgerLink = (text: string) => links(text).some((l) => /(^|\/)tested\.md#[\w-]+$/.test(l.target));
const marked = (text: string) => ledgerLink(text) || UNTESTED.test(text);

/** The claims of a page without a ledger link or an "untested": `line: what`. */
export function unmarkedClaims(text: string): string[] {
  const bs = blocks(text);
  const problems: string[] = [];
  const prose = (b: (typeof bs)[number] | undefined) => (b && (b.kind === "text" || b.kind === "item") ? b.text : "");
  bs.forEach((b, i) => {
    // The claim is in the words, not in the addresses of links (a link to docs/tested.md claims nothing).
    if ((b.kind === "text" || b.kind === "item") && CLAIM.test(b.text.replace(/\]\([^)]*\)/g, "]")) && !marked(b.text)) {
      problems.push(`${b.line}: ${b.text.split("\n")[0]!.slice(0, 80)}`);
    }
    if (b.kind === "code" && !NOT_EXAMPLES.has(b.lang) && !marked(prose(bs[i - 1])) && !marked(prose(bs[i + 1]))) {
      problems.push(`${b.line}: a ${b.lang} example with no ledger link or "untested" in the paragraph before or after it`);
    }
    if (b.kind === "table") {
      const column = b.rows[0]!.findIndex((c) => /^tested by$/i.test(c));
      if (column < 0) return;
      for (const row of b.rows.slice(1)) if (!marked(row[column] ?? "")) problems.push(`${b.line}: table row "${row[0]}" has no ledger link or "untested"`);
    }
  });
  return problems;
}

interface LedgerRow {
  id: string;
  command: string;
  tests: string;
}

function ledgerRows(): LedgerRow[] {
  const rows: LedgerRow[] = [];
  for (const b of blocks(read(LEDGER))) {
    if (b.kind !== "table" || b.rows[0]![0] !== "Row") continue;
    const header = b.rows[0]!;
    const [command, tests] = [header.indexOf("Command"), header.indexOf("Tests")];
    for (const row of b.rows.slice(1)) {
      const id = /<a id="([\w-]+)"><\/a>/.exec(row[0]!)?.[1] ?? "";
      rows.push({ id, command: row[command]!, tests: row[tests]! });
    }
  }
  return rows;
}

describe("the ledger, docs/tested.md", () => {
  const rows = ledgerRows();
  const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;

  it("has rows, each with an anchor of its own", () => {
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.filter((r) => r.id === "")).toEqual([]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it("names, in each row, test files or folders that exist, or says untested", () => {
    const missing = rows.flatMap((r) => {
      if (/^untested$/i.test(r.tests)) return [];
      const named = [...r.tests.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      if (named.length === 0) return [`${r.id}: names no test`];
      return named.filter((f) => !fs.existsSync(path.join(root, f))).map((f) => `${r.id}: ${f}`);
    });
    expect(missing).toEqual([]);
  });

  it("names, in each row that was run, commands of package.json", () => {
    const unknown = rows.flatMap((r) => {
      if (/^untested$/i.test(r.tests)) return [];
      const commands = [...r.command.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      if (commands.length === 0) return [`${r.id}: names no command`];
      return commands.filter((c) => !(c === "npm test" ? "test" in scripts : c.startsWith("npm run ") && c.slice(8).split(" ")[0]! in scripts)).map((c) => `${r.id}: ${c}`);
    });
    expect(unknown).toEqual([]);
  });
});

/** The e2e files scripts/cell.sh gives one of its cells (`files=(...)` under the cell's name). */
function cellFiles(cell: string): string[] {
  const body = new RegExp(`\\n  ${cell}\\)\\n([\\s\\S]*?)\\n    ;;`).exec(read("scripts/cell.sh"))?.[1] ?? "";
  return [...(/files=\(([^)]*)\)/.exec(body)?.[1] ?? "").matchAll(/\S+/g)].map((m) => m[0]);
}

/**
 * The commands that run a test file or folder the ledger names, given the current and floor cells' files: `npm test` runs the unit project and the e2e
 * files of test/cells.mts, `npm run test:e2e` every other e2e file, the current and floor cells the files
 * scripts/cell.sh lists (the floor cell the unit project as well), the hosts cell test/hosts/.
 */
function commandsRunning(named: string, current: readonly string[], floor: readonly string[]): string[] {
  const under = (dir: string) => (f: string) => f === dir || f.startsWith(`${dir}/`) || dir.startsWith(`${f.replace(/\/$/, "")}/`);
  const file = named.replace(/\/$/, "");
  if (under("test/hosts")(file)) return ["npm run test:hosts"];
  if (!under("test/e2e")(file)) return ["npm test", "npm run test:floor"];
  const e2eFiles = file.endsWith(".test.ts")
    ? [file]
    : fs
        .readdirSync(path.join(root, file))
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => `${file}/${f}`);
  return [
    ...(e2eFiles.some((f) => E2E_IN_NPM_TEST.includes(f)) ? ["npm test"] : []),
    ...(e2eFiles.some((f) => !E2E_IN_NPM_TEST.includes(f)) ? ["npm run test:e2e"] : []),
    ...(e2eFiles.some((f) => current.includes(f)) ? ["npm run test:current"] : []),
    ...(e2eFiles.some((f) => floor.includes(f)) ? ["npm run test:floor"] : []),
  ];
}

describe("the ledger's commands are the cells that run its files", () => {
  const rows = ledgerRows().filter((r) => !/^untested$/i.test(r.tests));
  const [current, floor] = [cellFiles("current"), cellFiles("floor")];

  it("every file a row names is run by a command the row names, and every command it names runs one of them", () => {
    const wrong = rows.flatMap((r) => {
      const commands = [...r.command.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.split(" --")[0]!.trim());
      const named = [...r.tests.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((f) => f.startsWith("test/"));
      if (named.length === 0) return [];
      const running = new Map(named.map((f) => [f, commandsRunning(f, current, floor)]));
      return [
        ...named.filter((f) => !running.get(f)!.some((c) => commands.includes(c))).map((f) => `${r.id}: ${f} is run by ${running.get(f)!.join(", ")}, none of ${commands.join(", ")}`),
        ...commands.filter((c) => /^npm (test|run test:)/.test(c) && c !== "npm run test:floor" && !named.some((f) => running.get(f)!.includes(c))).map((c) => `${r.id}: ${c} runs none of its files`),
      ];
    });
    expect(wrong).toEqual([]);
  });

  it("every e2e file is in a cell, and the other cells' files are the e2e cell's", () => {
    const e2e = fs
      .readdirSync(path.join(root, "test/e2e"))
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `test/e2e/${f}`);
    expect(E2E_IN_NPM_TEST.filter((f) => !e2e.includes(f))).toEqual([]);
    for (const cell of ["current", "floor"]) {
      expect(cellFiles(cell).length, cell).toBeGreaterThan(0);
      expect(
        cellFiles(cell).filter((f) => E2E_IN_NPM_TEST.includes(f) || !e2e.includes(f)),
        cell,
      ).toEqual([]);
    }
  });
});

describe("claims on the README and the user's pages", () => {
  it.each(USER_PAGES)("%s: every claim links to a row of the ledger or says untested", (page) => {
    expect(unmarkedClaims(read(page))).toEqual([]);
  });

  it("every link into the ledger names one of its rows", () => {
    const ids = anchors(read(LEDGER));
    const bad = USER_PAGES.flatMap((page) =>
      blocks(read(page)).flatMap((b) => {
        const text = b.kind === "table" ? b.rows.flat().join(" ") : b.kind === "code" || b.kind === "heading" ? "" : b.text;
        return links(text)
          .filter((l) => /(^|\/)tested\.md#/.test(l.target) && !ids.has(l.target.split("#")[1]!))
          .map((l) => `${page}:${b.line}: ${l.target}`);
      }),
    );
    expect(bad).toEqual([]);
  });

  it("the check itself: an unmarked claim, example or Tested-by cell is caught; marked ones pass", () => {
    const page = [
      "It works everywhere.",
      "",
      "It works on Linux ([row](docs/tested.md#x)).",
      "",
      "- Go is untested.",
      "",
      "An example:",
      "",
      "```typescript",
      "new X();",
      "```",
      "",
      "| What | Tested by |",
      "|---|---|",
      "| a | [row](tested.md#a) |",
      "| b | by hand |",
      "",
      "Example ([row](tested.md#y)):",
      "",
      "```sh",
      "npm test",
      "```",
      "",
      "```text",
      "output",
      "```",
    ].join("\n");
    expect(unmarkedClaims(page)).toEqual([
      "1: It works everywhere.",
      '9: a typescript example with no ledger link or "untested" in the paragraph before or after it',
      '13: table row "b" has no ledger link or "untested"',
    ]);
  });
});
