import * as pulumi from "@pulumi/pulumi";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BrowserSession } from "../../sdk";
import { resetPlainSecretsCheck } from "../../sdk/configWarnings";
import { getSessions } from "../../sdk";
import { useMockEngine, value } from "./mocks";

const engine = useMockEngine();

let warnings: string[];
beforeEach(() => {
  warnings = [];
  resetPlainSecretsCheck();
  vi.spyOn(pulumi.log, "warn").mockImplementation(async (message: string) => {
    warnings.push(message);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  pulumi.runtime.setAllConfig({}, []);
});

describe("credentials set as plain stack config", () => {
  it("warn once, naming `pulumi config set --secret remote-browser:apiKey`", async () => {
    pulumi.runtime.setAllConfig({ "remote-browser:apiKey": "rb_test_plain" }, []);
    await value(new BrowserSession("a", { browser: "chrome" }).urn);
    await value(new BrowserSession("b", { browser: "chrome" }).urn);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("remote-browser:apiKey is set as plain (non-secret) stack config");
    expect(warnings[0]).toContain("pulumi config set --secret remote-browser:apiKey");
    // The warning names the setting, never its value.
    expect(warnings[0]).not.toContain("rb_test_plain");
  });

  it("also for the idempotency secret", async () => {
    pulumi.runtime.setAllConfig({ "remote-browser:apiKey": "k", "remote-browser:idempotencySecret": "0123456789abcdef" }, ["remote-browser:apiKey"]);
    await value(new BrowserSession("c", { browser: "chrome" }).urn);
    expect(warnings).toEqual([expect.stringContaining("pulumi config set --secret remote-browser:idempotencySecret")]);
  });

  it("also in the spellings Pulumi reads as the key (ns:config:key) and the typos the provider ignores, naming what to remove", async () => {
    pulumi.runtime.setAllConfig({ "remote-browser:config:apiKey": "rb_test_plain", "remote-browser:api_key": "rb_test_typo" }, []);
    await value(new BrowserSession("f", { browser: "chrome" }).urn);
    expect(warnings).toEqual([
      expect.stringMatching(/^remote-browser:apiKey is set as plain .*`pulumi config set --secret remote-browser:apiKey`/),
      expect.stringMatching(
        /^remote-browser:api_key is set as plain .*`pulumi config set --secret remote-browser:apiKey` \(and `pulumi config rm remote-browser:api_key`: the provider ignores that spelling\)/,
      ),
    ]);
    expect(warnings.join("\n")).not.toMatch(/rb_test_/);
  });

  it("warn of a key of the namespace that is no setting (a misspelt one is silently ignored otherwise)", async () => {
    pulumi.runtime.setAllConfig({ "remote-browser:baseurl": "https://api.example.com/v8", "remote-browser:baseUrl": "https://api.example.com/v8", "other:x": "1" }, []);
    await value(new BrowserSession("g", { browser: "chrome" }).urn);
    expect(warnings).toEqual([expect.stringMatching(/^remote-browser:baseurl is not a setting of the remote-browser provider and is ignored \(its settings: apiKey, baseUrl/)]);
  });

  it("warn of a misspelt namespace (remote_browser:, remotebrowser:), which Pulumi takes for another package's, naming the key the provider reads", async () => {
    pulumi.runtime.setAllConfig({ "remote_browser:apiKey": "rb_test_typo", "remotebrowser:baseUrl": "https://api.example.com/v8", "other:apiKey": "1" }, ["remote_browser:apiKey"]);
    await value(new BrowserSession("h", { browser: "chrome" }).urn);
    expect(warnings).toEqual([
      expect.stringMatching(/^remote_browser:apiKey is not read by the remote-browser provider, which reads remote-browser:apiKey/),
      expect.stringMatching(/^remotebrowser:baseUrl is not read by the remote-browser provider, which reads remote-browser:baseUrl/),
    ]);
    expect(warnings.join("\n")).not.toMatch(/rb_test_/);
  });

  it("say nothing when the key is a secret or not in the config at all", async () => {
    pulumi.runtime.setAllConfig({ "remote-browser:apiKey": "rb_test_secret" }, ["remote-browser:apiKey"]);
    await value(new BrowserSession("d", { browser: "chrome" }).urn);
    resetPlainSecretsCheck();
    pulumi.runtime.setAllConfig({}, []);
    await value(new BrowserSession("e", { browser: "chrome" }).urn);
    expect(warnings).toEqual([]);
  });
});

describe("a password in the service's address", () => {
  it("is refused before the first resource registers (the engine would record the config as the default provider's inputs), without repeating it", async () => {
    pulumi.runtime.setAllConfig({ "remote-browser:baseUrl": "https://someone:hunter2-pw@api.example.com/v8" }, []);
    const before = engine.registrations.length;
    let err: Error | undefined;
    try {
      new BrowserSession("with-password", { browser: "chrome" });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toMatch(/^remote-browser:baseUrl carries a user name or password: .*Refused before this provider registered anything/);
    expect(err?.message).not.toContain("hunter2");
    expect(engine.registrations.length).toBe(before);
    // Again at the next resource, not only the first.
    expect(() => new BrowserSession("again", { browser: "chrome" })).toThrow(/carries a user name or password/);
    await expect(getSessions()).rejects.toThrow(/carries a user name or password/);
  });

  it("is refused for a key in its query too, naming the parameter and not the value", async () => {
    pulumi.runtime.setAllConfig({ "remote-browser:baseUrl": "https://api.example.com/v8?api_key=hunter2-key" }, []);
    expect(() => new BrowserSession("with-query-key", { browser: "chrome" })).toThrow(/^remote-browser:baseUrl carries a credential in its query \(the parameter "api_key"\): /);
    expect(() => new BrowserSession("with-query-key", { browser: "chrome" })).not.toThrow(/hunter2/);
  });

  it("names a project-level key as usually committed in the warning", async () => {
    pulumi.runtime.setAllConfig({ "remote-browser:apiKey": "rb_test_plain" }, []);
    await value(new BrowserSession("p", { browser: "chrome" }).urn);
    expect(warnings).toEqual([expect.stringContaining("or the project's Pulumi.yaml, which is usually committed")]);
  });
});
