import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The support policy (docs/installation-configuration.md, "Supported versions") is what the package
 * declares and what the cells run: `engines.node` is the first release of its oldest Node.js line, which
 * the floor cell runs exactly, `peerDependencies` its `@pulumi/pulumi` floor, the default pin of the CLI
 * its CLI floor, and each line it names is the Node.js of one cell. A line dropped or added in one place,
 * or a floor claimed and not run, fails here.
 */
const root = path.resolve(__dirname, "..");
const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");

/** The policy table's rows: first cell → second cell. */
export function policyRows(page: string): Map<string, string> {
  const section = page.split(/^## Supported versions$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows = new Map<string, string>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 4 || /^-+$/.test(cells[1]!) || cells[1] === "Supported") continue;
    rows.set(cells[1]!, cells[2]!);
  }
  return rows;
}

/** The first number of a cell ("24" → "24"; "22.19.0 and later …" → "22.19.0"; "3.173.0 (…) to …" → "3.173.0"). */
const first = (cell: string | undefined) => /\d+(\.\d+)*/.exec(cell ?? "")?.[0];

describe("the support policy", () => {
  const rows = policyRows(read("docs/installation-configuration.md"));
  const manifest = JSON.parse(read("package.json")) as { engines: { node: string }; peerDependencies: Record<string, string> };
  // The oldest line is claimed from a release of it on (the first its dependencies run on).
  const floor = first(rows.get("Node.js, oldest line"));
  const oldest = floor?.split(".")[0];
  const lts = first(rows.get("Node.js, active LTS"));
  const current = first(rows.get("Node.js, current"));

  it("reads the policy's table: three Node.js lines, oldest to newest, and the Pulumi floors", () => {
    expect([oldest, lts, current].map(Number)).toEqual([...[oldest, lts, current].map(Number)].sort((a, b) => a - b));
    expect(new Set([oldest, lts, current]).size).toBe(3);
    expect(first(rows.get("`@pulumi/pulumi` (peer dependency)"))).toMatch(/^3\.\d+\.\d+$/);
    expect(first(rows.get("Pulumi CLI"))).toMatch(/^3\.\d+\.\d+$/);
  });

  it("declares the first release of the oldest line in engines and the @pulumi/pulumi floor in peerDependencies", () => {
    expect(floor).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.engines.node).toBe(`>=${floor}`);
    expect(manifest.peerDependencies["@pulumi/pulumi"]).toBe(`^${first(rows.get("`@pulumi/pulumi` (peer dependency)"))}`);
  });

  it("runs each line in a cell: the oldest in the floor, the active LTS by default, the current line in the current cell", () => {
    const nodeScript = read("scripts/node.sh");
    for (const line of [oldest, lts, current]) expect(nodeScript, `scripts/node.sh pins a release of Node.js ${line}`).toMatch(new RegExp(`^\\s*${line}\\) PINNED=${line}\\.\\d+\\.\\d+ `, "m"));
    // The floor cell runs the floor claimed, not a later release of its line.
    expect(nodeScript, `scripts/node.sh pins Node.js ${floor} for line ${oldest}`).toMatch(new RegExp(`^\\s*${oldest}\\) PINNED=${floor!.replace(/\./g, "\\.")} `, "m"));
    expect(read("scripts/test.sh")).toMatch(new RegExp(`PATH=\\$\\(bash scripts/node.sh ${lts}\\)`));
    // The hosts cell runs on the default cell's Node too.
    expect(read("scripts/hosts.sh")).toMatch(new RegExp(`PATH=\\$\\(bash scripts/node.sh ${lts}\\)`));
    const cell = read("scripts/cell.sh");
    expect(cell).toMatch(new RegExp(`current\\)\\n\\s*PATH=\\$\\(bash scripts/node.sh ${current}\\)`));
    // The floor takes its release from engines, exactly (`=22.19.0`), so the two cannot part.
    expect(cell).toMatch(/engines\.node[^\n]*\n\s*PATH=\$\(bash scripts\/node\.sh "=\$release"\)/);
  });

  it("names the default CLI pin as the CLI floor", () => {
    const pin = /github\.com\/pulumi\/pulumi\/pkg\/v3 v(\d+\.\d+\.\d+)$/m.exec(read("engine/go.mod"))?.[1];
    expect(first(rows.get("Pulumi CLI"))).toBe(pin);
  });
});
