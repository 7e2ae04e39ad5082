/** How the data sources fail: one RemoteBrowserError family with a stable code, never showing the key. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator";
import { startEmulator } from "../../emulator";
import { getImages, getUsage, isRemoteBrowserError } from "../../sdk";
import { isolateConfig, rejection, setStackConfig } from "./config";
import { useMockEngine } from "./mocks";
/* eslint-disable @typescript-eslint/no-explicit-any -- an error's cause chain, walked whatever each link is */

useMockEngine();
isolateConfig();

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ prepMs: 20, prepJitterMs: 0 });
});
afterAll(async () => {
  await emu?.close();
});

const WRONG_KEY = "rb_test_wrong_key_5f2e9d0c7b1a4e36";
const SECRET_KEY = "rb_test_secret_value_1234567890";

/** Everything an error shows: message, stack, own fields and the cause chain. */
function everythingShown(err: unknown): string {
  const parts: string[] = [];
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    parts.push(String(e), String(e.stack), JSON.stringify(e, Object.getOwnPropertyNames(e)));
  }
  return parts.join("\n");
}

describe("data-source errors", () => {
  it("refuses a wrong key with a denied RemoteBrowserError that does not show the key", async () => {
    setStackConfig({ baseUrl: emu.apiBaseUrl, apiKey: WRONG_KEY });
    const err = await rejection(getUsage());
    expect(isRemoteBrowserError(err)).toBe(true);
    expect(err.code).toBe("denied");
    expect(err.operation).toBe("read quota");
    expect(err.message).toMatch(/denied/);
    expect(err.message).not.toContain(WRONG_KEY);
    expect(everythingShown(err)).not.toContain(WRONG_KEY);
    // The emulator did receive the request: the refusal is the service's, not a local one.
    expect(emu.control.requests().some((r) => r.path.startsWith("/v8/user/quota"))).toBe(true);
  });

  // Refused by the config loader, before any client exists: the address is not repeated (it may hold a password).
  it("refuses to send the key over plain http to a non-loopback host", async () => {
    setStackConfig({ baseUrl: "http://remote-browser.example.invalid/v8", apiKey: SECRET_KEY });
    const err = await rejection(getUsage());
    expect(err.code).toBe("configuration");
    expect(err.message).toMatch(/remote-browser:baseUrl .*is plain http:\/\/ to a host other than this machine/);
    expect(everythingShown(err)).not.toContain(SECRET_KEY);
  });

  it("applies the plain-http refusal to a baseUrl given in the options", async () => {
    setStackConfig({ baseUrl: emu.apiBaseUrl, apiKey: SECRET_KEY });
    const err = await rejection(getUsage({ baseUrl: "http://10.20.30.40/v8" }));
    expect(err.code).toBe("configuration");
    expect(err.message).toMatch(/is plain http:\/\/ to a host other than this machine/);
    expect(everythingShown(err)).not.toContain(SECRET_KEY);
  });

  it("fails with code configuration when no key is set, while getImages needs none", async () => {
    setStackConfig({ baseUrl: emu.apiBaseUrl });
    const err = await rejection(getUsage());
    expect(isRemoteBrowserError(err)).toBe(true);
    expect(err.code).toBe("configuration");
    expect(err.message).toMatch(/remote-browser:apiKey/);
    expect((await getImages()).images.length).toBeGreaterThan(0);
  });

  it("refuses an apiVersion other than v8 or v7 before calling the service", async () => {
    setStackConfig({ baseUrl: emu.apiBaseUrl, apiKey: emu.apiKey, apiVersion: "v9" });
    emu.control.clearRequests();
    const err = await rejection(getUsage());
    expect(err.code).toBe("configuration");
    expect(err.message).toMatch(/apiVersion/);
    expect(emu.control.requests()).toEqual([]);
  });
});
