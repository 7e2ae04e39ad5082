import type { ConfigMap, Stack } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { setStackConfig } from "../../runner/config";

/** A stack whose settings file holds `held`, recording what setAllConfig is asked to write. */
function stackHolding(held: Record<string, unknown> | Error): { stack: Stack; written: ConfigMap[] } {
  const written: ConfigMap[] = [];
  const stack = {
    name: "pr-7",
    workspace: {
      projectSettings: async () => ({ name: "review", runtime: "nodejs" }),
      stackSettings: async () => {
        if (held instanceof Error) throw held;
        return { config: held };
      },
    },
    setAllConfig: async (c: ConfigMap) => void written.push(c),
  } as unknown as Stack;
  return { stack, written };
}

const cli = { pulumiBin: "/nonexistent/pulumi", workDir: "/nonexistent", env: {} };

describe("the runner's stack config", () => {
  it("writes no plain value the stack's settings file holds already, under any spelling of its key", async () => {
    const { stack, written } = stackHolding({ "review:url": "https://example.com/pr/7", "remote-browser:baseUrl": "http://127.0.0.1:1/v8" });
    const wrote = await setStackConfig(
      stack,
      { url: { value: "https://example.com/pr/7" }, "remote-browser:baseUrl": { value: "http://127.0.0.1:1/v8" }, "review:config:url": { value: "https://example.com/pr/7" } },
      cli,
    );
    expect(written).toEqual([]);
    // No command ran, so nothing says the stack exists (the runner then asks, see runner/index.ts).
    expect(wrote).toBe(false);
  });

  it("writes the values that differ, or are held as secrets or not as text, and all of them when the file cannot be read", async () => {
    const { stack, written } = stackHolding({ "review:url": "https://example.com/pr/6", "review:token": { secure: "v1:abc" }, "review:count": 3 });
    await setStackConfig(stack, { url: { value: "https://example.com/pr/7" }, token: { value: "v1:abc" }, count: { value: "3" }, "other:url": { value: "https://example.com/pr/6" } }, cli);
    expect(written).toEqual([{ url: { value: "https://example.com/pr/7" }, token: { value: "v1:abc" }, count: { value: "3" }, "other:url": { value: "https://example.com/pr/6" } }]);

    const unreadable = stackHolding(new Error("failed to find stack settings file"));
    expect(await setStackConfig(unreadable.stack, { url: { value: "https://example.com/pr/7" } }, cli)).toBe(true);
    expect(unreadable.written).toEqual([{ url: { value: "https://example.com/pr/7" } }]);
  });
});
