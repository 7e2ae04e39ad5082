import { describe, expect, it } from "vitest";
import { condition, evaluate, interpolate } from "./helpers/github-expressions";
import { parseCommandFile } from "./helpers/workflow-runner";

/**
 * The workflow tests are only as good as their reading of GitHub's expressions: these are the rules of
 * GitHub's "Evaluate expressions" reference that the workflows rely on.
 */
const ctx = {
  github: { event: { repository: { private: false }, pull_request: { number: 7 } } },
  inputs: {},
  vars: { EMPTY: "" },
  secrets: { SET: "s3cret", UNSET: "" },
  steps: { encrypt: { outputs: { done: "true" } } },
};

describe("GitHub expressions as the runner evaluates them", () => {
  it.each([
    ["'abc' == 'ABC'", true], // strings compare ignoring case
    ["'1' == 1", true], // mixed types compare as numbers
    ["null == 0", true],
    ["'' == 0", true],
    ["'a' != 'b'", true],
    ["'' || 'x'", "x"], // || returns an operand, not a boolean
    ["'a' && 'b'", "b"],
    ["0 && 'b'", 0],
    ["inputs.ttl-days || vars.PR_ENVIRONMENT_TTL_DAYS || '7'", "7"], // `-` in a property name
    ["github.event.pull_request.missing", null],
    ["!inputs.dry-run", true],
    ["!github.event.repository.private", true],
    ["secrets.UNSET != ''", false],
    ["secrets.SET != ''", true],
    ['fromJSON(\'["5","8"]\')', ["5", "8"]],
    ["(1 < 2) && !(2 <= 1)", true],
    ["'it''s'", "it's"],
  ])("%s", (expr, expected) => {
    expect(evaluate(expr, ctx)).toEqual(expected);
  });

  it("refuses what it does not know instead of guessing", () => {
    expect(() => evaluate("job.status", ctx)).toThrow(/unrecognized named-value job/);
    expect(() => evaluate("hashFiles('x')", ctx)).toThrow(/unknown function hashFiles/);
    expect(() => evaluate("1 +", ctx)).toThrow();
  });

  it("writes values into text as GitHub does: null as nothing, numbers and booleans as words", () => {
    expect(interpolate("pr-${{ github.event.pull_request.number }}-${{ vars.NONE }}-${{ github.event.repository.private }}", ctx)).toBe("pr-7--false");
  });

  it("an if: without a status function runs only while the job has not failed", () => {
    expect(condition("steps.encrypt.outputs.done == 'true'", ctx, { failed: false })).toBe(true);
    expect(condition("steps.encrypt.outputs.done == 'true'", ctx, { failed: true })).toBe(false);
    expect(condition("${{ !github.event.repository.private }}", ctx, { failed: false })).toBe(true);
    expect(condition(undefined, ctx, { failed: true })).toBe(false);
    expect(condition("always()", ctx, { failed: true })).toBe(true);
    expect(condition("failure()", ctx, { failed: false })).toBe(false);
  });
});

describe("GITHUB_OUTPUT and GITHUB_ENV files", () => {
  it("reads name=value lines (the value may hold '=') and name<<DELIMITER blocks", () => {
    expect(parseCommandFile('prs=["5"]\nmap={"a":"b=c"}\nbody<<EOF\nline 1\nline=2\nEOF\ndone=true\n')).toEqual({
      prs: '["5"]',
      map: '{"a":"b=c"}',
      body: "line 1\nline=2",
      done: "true",
    });
    expect(() => parseCommandFile("no separator\n")).toThrow(/malformed/);
  });
});
