import { describe, expect, it } from "vitest";
import { MaskedIdIndex, isMasked, matchMaskedId, maskedIdMatches } from "../../client";

describe("masked ids", () => {
  it("match a vmId when every visible character agrees, whatever the hidden ones are", () => {
    expect(maskedIdMatches("vm-********a1b2", "vm-0123abcda1b2")).toBe(true);
    expect(maskedIdMatches("vm-********a1b2", "vm-ffffffffa1b2")).toBe(true);
    expect(maskedIdMatches("vm-********a1b2", "vm-0123abcda1b3")).toBe(false);
    expect(maskedIdMatches("vm-********a1b2", "xm-0123abcda1b2")).toBe(false);
  });

  it("read a run of mask characters as one or more hidden characters, so a shortened mask matches too", () => {
    expect(maskedIdMatches("vm-…a1b2", "vm-0123abcda1b2")).toBe(true);
    expect(maskedIdMatches("vm•••a1b2", "vm-0123abcda1b2")).toBe(true);
    expect(maskedIdMatches("vm-*a1b2", "vm-a1b2")).toBe(false);
  });

  it("treat the visible characters literally, not as a pattern", () => {
    expect(maskedIdMatches("vm.***.a1b2", "vmx123xa1b2")).toBe(false);
    expect(maskedIdMatches("vm.***.a1b2", "vm.123.a1b2")).toBe(true);
  });

  it("agree with the reading of each run as one or more hidden characters on every small case", () => {
    // The reference: each run of mask characters as `.+`, on ids short enough for a regular expression.
    const reference = (masked: string, vmId: string) =>
      new RegExp(
        `^${masked
          .split(/[*•…]+/u)
          .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
          .join(".+")}$`,
        "su",
      ).test(vmId);
    const alphabet = ["a", "b", "*"];
    const words = (n: number): string[] => (n === 0 ? [""] : words(n - 1).flatMap((w) => alphabet.map((c) => w + c)));
    let compared = 0;
    for (const masked of [1, 2, 3, 4, 5].flatMap(words)) {
      for (const vmId of [0, 1, 2, 3, 4, 5].flatMap(words).filter((w) => !w.includes("*"))) {
        expect(maskedIdMatches(masked, vmId), `${masked} against ${vmId}`).toBe(reference(masked, vmId));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it("match a 40,000-character id with a thousand masked runs in comparisons linear in the lengths", () => {
    // Visible pieces that almost occur everywhere in an id of "a"s: the case that made `.+` between the
    // pieces backtrack over every way to split the id (cubic at three runs, and worse with each run).
    const cases: Array<[string, string, boolean]> = [
      [`${"a*".repeat(1_000)}b`, `${"a".repeat(40_000)}c`, false],
      [`${"a*".repeat(1_000)}b`, `${"a".repeat(40_000)}b`, true],
      [`${"a*".repeat(1_000)}b`, `${"a".repeat(1_999)}b`, false],
      [`${"a*".repeat(1_000)}b`, `${"a".repeat(2_000)}b`, true],
      [`x*${"aaab*".repeat(1_000)}`, `x${"a".repeat(40_000)}`, false],
      [`x*${"aaab*".repeat(1_000)}`, `x${"aaaab".repeat(8_000)}`, true],
      [`x*${"aaab*".repeat(1_000)}`, `x${"aaaab".repeat(999)}z`, false],
      [`x*${"aaab*".repeat(1_000)}`, `x${"aaaab".repeat(1_000)}z`, true],
      // A piece that starts again inside a near miss ("aab" in "aaab"): found only by falling back, not by restarting.
      ["x*aab*", "xaaaabz", true],
      [`x*${"abab*".repeat(500)}`, `x${"ababab".repeat(500)}z`, true],
    ];
    for (const [masked, vmId, expected] of cases) {
      const { matches, comparisons } = matchMaskedId(masked, vmId);
      expect(matches, `${masked.slice(0, 12)}… against ${vmId.slice(0, 12)}…`).toBe(expected);
      expect(comparisons).toBeLessThanOrEqual(3 * (masked.length + vmId.length));
    }
  });

  it("count as masked only ids with a mask character", () => {
    expect(isMasked("vm-****a1b2")).toBe(true);
    expect(isMasked("vm-0123a1b2")).toBe(false);
  });

  it("are indexed by their visible ends: the index names exactly the ids that every match would", () => {
    const ids = ["vm-aaaa0001", "vm-bbbb0001", "vm-cccc0002", "xm-aaaa0001", "vm-a1", "vm-aaaa0001"];
    const index = new MaskedIdIndex(ids);
    const masks = ["vm-****0001", "vm-*0001", "vm-****", "****0001", "vm-*a*01", "*", "vm-aaaa0001", "vm-aaaa0002", "vm-*1", "vm-****000"];
    for (const masked of masks) {
      expect(index.candidates(masked).sort(), masked).toEqual([...new Set(ids.filter((id) => maskedIdMatches(masked, id)))].sort());
    }
  });
});
