import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_FIELDS, CONFIG_NAMESPACE } from "../../core/config";
import { USER_PAGES, blocks, read, root } from "./markdown";

/**
 * The settings table of docs/installation-configuration.md is the code's own table (CONFIG_FIELDS): one row
 * per setting, in its order, with its environment variable, type, secrecy and text. It is the only copy: no
 * other page of the user's has a table of the settings. After changing CONFIG_FIELDS:
 *   UPDATE_SETTINGS_TABLE=1 npx vitest run --project unit test/docs/config-table.test.ts
 */
const PAGE = "docs/installation-configuration.md";
const START = "<!-- settings table: generated from CONFIG_FIELDS -->";
const END = "<!-- end of settings table -->";

export function settingsTable(): string {
  const rows = Object.entries(CONFIG_FIELDS).map(([key, f]) => {
    const secret = "secret" in f && f.secret ? "yes" : "no";
    return `| \`${CONFIG_NAMESPACE}:${key}\` | \`${f.env}\` | ${f.type} | ${secret} | ${f.doc.replace(/\|/g, "\\|")} |`;
  });
  return ["| Setting | Environment variable | Type | Secret | Meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}

function tableIn(text: string): string | undefined {
  const [a, b] = [text.indexOf(START), text.indexOf(END)];
  return a < 0 || b < a ? undefined : text.slice(a + START.length, b).trim();
}

describe("the settings table", () => {
  if (process.env.UPDATE_SETTINGS_TABLE) {
    const text = read(PAGE);
    const current = tableIn(text);
    const next = current === undefined ? text.replace("SETTINGS_TABLE", settingsTable()) : text.replace(current, settingsTable());
    fs.writeFileSync(path.join(root, PAGE), next);
  }

  it(`${PAGE} holds the settings the code declares, row for row`, () => {
    expect(tableIn(read(PAGE))).toBe(settingsTable());
  });

  it("names every setting of CONFIG_FIELDS once, with its environment variable", () => {
    const table = settingsTable();
    for (const [key, f] of Object.entries(CONFIG_FIELDS)) {
      expect(table.split(`\`${CONFIG_NAMESPACE}:${key}\``).length - 1, key).toBe(1);
      expect(table).toContain(f.env);
    }
  });

  it("is the only table of the settings on the user's pages", () => {
    const copies = USER_PAGES.flatMap((page) =>
      blocks(read(page))
        .filter((b) => b.kind === "table" && b.rows[0]!.some((c) => /environment/i.test(c)) && b.rows.some((r) => r.some((c) => c.includes("REMOTE_BROWSER_API_KEY"))))
        .map((b) => `${page}:${b.line}`),
    );
    expect(copies).toEqual([expect.stringMatching(new RegExp(`^${PAGE}:`))]);
  });
});
