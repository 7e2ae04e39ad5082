import { describe, expect, it } from "vitest";
import { INPUTS, OUTPUTS } from "../../core/declaration";
import { blocks, read } from "./markdown";

/**
 * What "BrowserSession in depth" (docs/browser-session.md) restates of the code's tables: the inputs with
 * what a change does (core/declaration.ts INPUTS), the outputs and which are secret (OUTPUTS), and the codes of
 * the package's one error family (client/errors.ts ErrorCode).
 */
const PAGE = "docs/browser-session.md";
const text = read(PAGE);
const names = (s: string) => [...s.matchAll(/`([A-Za-z_]+)`/g)].map((m) => m[1]!);

describe(`${PAGE} against the code's tables`, () => {
  it("the inputs table has every input once, and says which replace the session", () => {
    const table = blocks(text).find((b) => b.kind === "table" && b.rows[0]![0] === "Input");
    if (table?.kind !== "table") throw new Error("no inputs table");
    const rows = table.rows.slice(1).map((r) => ({ name: names(r[0]!)[0]!, replaces: /^replace/.test(r.at(-1)!) }));
    expect(rows.map((r) => r.name)).toEqual(Object.keys(INPUTS));
    expect(rows.filter((r) => r.replaces).map((r) => r.name)).toEqual(
      Object.entries(INPUTS)
        .filter(([, f]) => f.onChange === "replace")
        .map(([n]) => n),
    );
  });

  it("the outputs sentence names every output, the secret ones as secret", () => {
    const sentence = /^Outputs: every input, plus ([\s\S]*?)\.\n/m.exec(text)?.[1] ?? "";
    expect(names(sentence).sort()).toEqual(Object.keys(OUTPUTS).sort());
    const secret = [...sentence.matchAll(/`(\w+)` \(secret\)/g)].map((m) => m[1]!);
    expect(secret.sort()).toEqual(
      Object.entries(OUTPUTS)
        .filter(([, f]) => "secret" in f && f.secret)
        .map(([n]) => n)
        .sort(),
    );
  });

  it("the error codes named are the package's error family, every one of them", () => {
    const source = read("client/errors.ts").replace(/\/\/.*$/gm, "");
    const union = /export type ErrorCode =([\s\S]*?);/.exec(source)![1]!;
    const codes = [...union.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]!);
    const paragraph = blocks(text).find((b) => b.kind === "text" && b.text.startsWith("Every error the package throws"));
    if (paragraph?.kind !== "text") throw new Error("no paragraph of error codes");
    // The list runs from the brand's explanation to the per-property reports.
    const list = paragraph.text.split("brand):")[1]!.split("Inputs that break a rule")[0]!;
    const named = names(list).filter((n) => n !== "ReviewSessions");
    expect(named.sort()).toEqual(codes.sort());
  });
});
