import { describe, expect, it } from "vitest";

/* eslint-disable @typescript-eslint/no-require-imports -- the script is plain CommonJS JavaScript, run by node as it is */
const { lazySources } = require("../scripts/lazy-dictionaries.js") as {
  lazySources(frequency: string, matching: string): { frequency: string; matching: string } | { why: string };
};
/* eslint-enable @typescript-eslint/no-require-imports */

// The two files as zxcvbn-go has them (github.com/ccojocar/zxcvbn-go v1.0.1; nbutton23's differ only in
// blank lines and comments), cut to what the edit reads.
const FREQUENCY = `package frequency

import (
\t"encoding/json"
\t"log"

\t"github.com/ccojocar/zxcvbn-go/data"
)

var Lists = make(map[string]List)

func init() {
\tLists["English"] = getStringListFromAsset(getAsset("data/English.json"), "English")
}
`;
const MATCHING = `package matching

import (
\t"sort"

\t"github.com/ccojocar/zxcvbn-go/frequency"
)

func init() {
\tloadFrequencyList()
}

// Omnimatch runs all matchers against the password
func Omnimatch(password string, userInputs []string, filters ...func(match.Matcher) bool) (matches []match.Match) {

\t//Can I run into the issue where nil is not equal to nil?
\tif dictionaryMatchers == nil || adjacencyGraphs == nil {
\t\tloadFrequencyList()
\t}
\treturn matches
}

func loadFrequencyList() {
\tfor n, list := range frequency.Lists {
\t}
}
`;

describe("the CLI's password-strength dictionaries, loaded at first use (scripts/lazy-dictionaries.js)", () => {
  it("no init builds them: frequency's Load and matching's Omnimatch each do it once, under a sync.Once, Omnimatch loading the lists first", () => {
    const lazy = lazySources(FREQUENCY, MATCHING);
    if ("why" in lazy) throw new Error(lazy.why);
    expect(lazy.frequency).not.toMatch(/func init\(\)/);
    expect(lazy.matching).not.toMatch(/func init\(\)/);
    expect(lazy.frequency).toContain('\t"sync"\n');
    expect(lazy.frequency).toContain("func Load() { loadOnce.Do(load) }");
    expect(lazy.frequency).toMatch(/func load\(\) \{\n\tLists\["English"\]/);
    expect(lazy.matching).toContain('\t"sync"\n');
    expect(lazy.matching).toMatch(/\t\/\/Can I[^\n]*\n\tloadOnce\.Do\(loadFrequencyList\)\n\treturn matches/);
    expect(lazy.matching).not.toContain("if dictionaryMatchers == nil");
    expect(lazy.matching).toMatch(/func loadFrequencyList\(\) \{\n\tfrequency\.Load\(\)\n\tfor n, list/);
  });

  it("leaves sources that are not as expected as they are, saying which file", () => {
    expect(lazySources(FREQUENCY, MATCHING.replace("func init() {\n\tloadFrequencyList()\n}\n", ""))).toEqual({ why: expect.stringMatching(/^matching\/matching\.go is not as expected/) });
    expect(lazySources(FREQUENCY.replace('\t"log"\n', ""), MATCHING)).toEqual({ why: expect.stringMatching(/^frequency\/frequency\.go is not as expected/) });
  });
});
