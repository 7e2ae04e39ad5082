import { describe, expect, it } from "vitest";
import { isMasked, maskedIdMatches } from "../../client";

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

  it("count as masked only ids with a mask character", () => {
    expect(isMasked("vm-****a1b2")).toBe(true);
    expect(isMasked("vm-0123a1b2")).toBe(false);
  });
});
