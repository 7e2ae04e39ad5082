import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every comment that turns a lint rule off (eslint.config.mjs, `npm run lint`) names the rules it turns off
 * and says why, after ` -- ` (ESLint's own place for a directive's reason): a bare `eslint-disable` would
 * silence every rule, including the promise rules, and one without a reason cannot be judged in review.
 * `eslint-enable` needs neither. The lint itself reports a directive that silences nothing
 * (`reportUnusedDisableDirectives`). This file's own examples are kept out.
 */
const root = path.resolve(__dirname, "..", "..");
const SKIPPED = new Set(["node_modules", "dist", ".work", ".git", "api"]);
const EXAMPLES = "test/architecture/lint-directives.test.ts";

/** Every TypeScript and JavaScript source of the repository. */
function sources(dir = root): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return SKIPPED.has(e.name) ? [] : sources(path.join(dir, e.name));
    return /\.(ts|mts|js|cjs|mjs)$/.test(e.name) ? [path.relative(root, path.join(dir, e.name))] : [];
  });
}

/** The disable directives of `source` that name no rule or give no reason. */
export function unexplainedDirectives(source: string): string[] {
  const directives = source.match(/(\/\/|\/\*)\s*eslint-disable(-next-line|-line)?\b[^\n]*/g) ?? [];
  return directives.filter((d) => {
    const body = d.replace(/^(\/\/|\/\*)\s*eslint-disable(-next-line|-line)?/, "").replace(/\*\/.*$/, "");
    const [rules = "", reason = ""] = body.split(" -- ");
    return !/[\w@/-]/.test(rules) || reason.trim().length < 10;
  });
}

describe("lint directives", () => {
  it("finds a directive without a rule or without a reason, and passes one with both", () => {
    expect(unexplainedDirectives("// eslint-disable-next-line\nfoo();")).toHaveLength(1);
    expect(unexplainedDirectives("/* eslint-disable @typescript-eslint/no-explicit-any */")).toHaveLength(1);
    expect(unexplainedDirectives("x(); // eslint-disable-line no-control-regex -- ok")).toHaveLength(1);
    expect(unexplainedDirectives("/* eslint-disable -- a reason without a rule */")).toHaveLength(1);
    expect(unexplainedDirectives("x(); // eslint-disable-line no-control-regex -- the escapes it strips")).toEqual([]);
    expect(unexplainedDirectives("/* eslint-disable @typescript-eslint/no-explicit-any -- generated gRPC messages have no types */")).toEqual([]);
    expect(unexplainedDirectives("/* eslint-enable @typescript-eslint/no-require-imports */")).toEqual([]);
  });

  it("every directive in the repository names its rules and gives its reason", () => {
    const files = sources();
    expect(files).toContain("eslint.config.mjs");
    const found = files.filter((f) => f !== EXAMPLES).flatMap((f) => unexplainedDirectives(fs.readFileSync(path.join(root, f), "utf8")).map((d) => `${f}: ${d}`));
    expect(found).toEqual([]);
  });
});
