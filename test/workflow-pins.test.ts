import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every action a workflow uses is pinned by the full SHA of a commit, with the release it is as a comment
 * (`uses: owner/repo@<40 hex> # v1.2.3`): a tag or a branch can be moved to other code by whoever controls
 * the action's repository, and the release jobs run with the token that publishes (`id-token: write`).
 */
const dir = path.resolve(__dirname, "..", ".github", "workflows");
const USES = /^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/;

export function unpinned(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => USES.test(line))
    .filter((line) => {
      const [, ref, rest] = USES.exec(line)!;
      if (ref.startsWith("./") || ref.startsWith("docker://")) return false;
      return !/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(ref) || !/^\s+#\s+v\d+(\.\d+)*\s*$/.test(rest);
    })
    .map((line) => line.trim());
}

describe("actions in the workflows", () => {
  it("finds an action used by tag, by branch, by short SHA, or without its version's comment", () => {
    expect(
      unpinned(
        [
          "      - uses: actions/checkout@v6",
          "        uses: pypa/gh-action-pypi-publish@release/v1",
          "      - uses: actions/setup-node@2499707",
          "      - uses: actions/setup-go@924ae3a1cded613372ab5595356fb5720e22ba16",
          "      - uses: actions/setup-go@924ae3a1cded613372ab5595356fb5720e22ba16 # v6.5.0",
          "      - uses: ./.github/actions/local",
        ].join("\n"),
      ),
    ).toEqual([
      "- uses: actions/checkout@v6",
      "uses: pypa/gh-action-pypi-publish@release/v1",
      "- uses: actions/setup-node@2499707",
      "- uses: actions/setup-go@924ae3a1cded613372ab5595356fb5720e22ba16",
    ]);
  });

  const files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
  it.each(files)("%s pins every action by commit SHA", (file) => {
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    expect(text).toMatch(/uses:/);
    expect(unpinned(text)).toEqual([]);
  });

  it("pins each action to the same commit in every workflow", () => {
    const pins = new Map<string, Set<string>>();
    for (const file of files) {
      for (const [, ref] of fs.readFileSync(path.join(dir, file), "utf8").matchAll(/uses:\s*([\w.-]+\/[\w./-]+)@/g)) pins.set(ref, pins.get(ref) ?? new Set());
      for (const [, action, sha] of fs.readFileSync(path.join(dir, file), "utf8").matchAll(/uses:\s*([\w.-]+\/[\w./-]+)@([0-9a-f]{40})/g)) pins.get(action)!.add(sha);
    }
    expect([...pins].filter(([, shas]) => shas.size !== 1).map(([action]) => action)).toEqual([]);
  });
});
