/**
 * The provider text the engine stores with every BrowserSession: it must capture nothing secret or
 * local, and each method must load the installed implementation by package name.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vm from "node:vm";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BrowserSession } from "../../sdk";
import { STORED_PROVIDER_TEXT } from "../../sdk/browserSession";
import { useMockEngine, value } from "./mocks";

const CONFIG_KEY = "rb_test_secret_value_1234567890";
const ENV_KEY = "rb_test_env_secret_0987654321";
const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"] as const;
const REPO_ROOT = path.resolve(__dirname, "../..");

const savedEnvKey = process.env.REMOTE_BROWSER_API_KEY;
beforeAll(() => {
  process.env.REMOTE_BROWSER_API_KEY = ENV_KEY;
});
afterAll(() => {
  if (savedEnvKey === undefined) delete process.env.REMOTE_BROWSER_API_KEY;
  else process.env.REMOTE_BROWSER_API_KEY = savedEnvKey;
});

const engine = useMockEngine({
  config: { "remote-browser:apiKey": CONFIG_KEY, "remote-browser:baseUrl": "https://api.example.test/v8" },
  secretKeys: ["remote-browser:apiKey"],
});

/**
 * The provider object earlier releases (0.1.0 on) passed to `pulumi.dynamic.Resource`, whose constructor
 * serialised it into every session's state: STORED_PROVIDER_TEXT must stay what that made of it.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- the stored provider's text is what these requires serialise to */
const storedProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => require("pulumi-remote-browser/provider").configure(req),
  check: (olds, news) => require("pulumi-remote-browser/provider").check(olds, news),
  diff: (id, olds, news) => require("pulumi-remote-browser/provider").diff(id, olds, news),
  create: (inputs) => require("pulumi-remote-browser/provider").create(inputs),
  read: (id, props) => require("pulumi-remote-browser/provider").read(id, props),
  update: (id, olds, news) => require("pulumi-remote-browser/provider").update(id, olds, news),
  delete: (id, props) => require("pulumi-remote-browser/provider").del(id, props),
};
/* eslint-enable @typescript-eslint/no-require-imports */

// The SDK's closure serialiser, which `pulumi.dynamic.Resource`'s constructor runs on its provider.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- an internal module of the SDK, outside its exports' types
const serializer = require("@pulumi/pulumi/runtime/closure/serializeClosure") as typeof import("@pulumi/pulumi/runtime/closure/serializeClosure");
let text: string;
let session: BrowserSession;
let serialised: number;
beforeAll(async () => {
  const spy = vi.spyOn(serializer, "serializeFunction");
  session = new BrowserSession("stored", { browser: "chrome", url: "https://example.test/" });
  await value(session.urn);
  serialised = spy.mock.calls.length;
  spy.mockRestore();
  text = engine.registration("stored").args.inputs.__provider;
});

/** Runs the stored text as the dynamic provider host would, with `require` replaced by a recorder. */
function loadStoredProvider(): { provider: Record<string, (...args: unknown[]) => unknown>; required: string[]; calls: [string, unknown[]][] } {
  const required: string[] = [];
  const calls: [string, unknown[]][] = [];
  const impl = new Proxy(
    {},
    {
      get:
        (_t, name) =>
        (...args: unknown[]) => {
          calls.push([String(name), args]);
          return `result of ${String(name)}`;
        },
    },
  );
  const sandbox = {
    exports: {} as { handler?: () => Record<string, (...args: unknown[]) => unknown> },
    require: (id: string) => {
      required.push(id);
      return impl;
    },
  };
  vm.runInNewContext(text, sandbox);
  return { provider: sandbox.exports.handler!(), required, calls };
}

describe("the serialised provider", () => {
  it("is what the SDK's serialiser makes of the stored provider, as pulumi.dynamic.Resource stores it, without running the serialiser", async () => {
    // dynamic.Resource serialises `() => provider`, its constructor's parameter.
    const provider = storedProvider;
    const made = await serializer.serializeFunction(() => provider, { allowSecrets: true });
    expect(made.containsSecrets).toBe(false);
    expect(STORED_PROVIDER_TEXT).toBe(made.text);
    expect(text).toBe(STORED_PROVIDER_TEXT);
    expect(serialised).toBe(0);
  });

  it("is the text the states of earlier releases hold, so that an upgraded stack's state does not change", () => {
    const recorded = ["state-v0.1.0.json", "state-dynamic-review.json"].flatMap((file) => {
      const state = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "test/e2e/upgrade", file), "utf8"));
      return (state.deployment.resources as Array<{ inputs?: { __provider?: string } }>).flatMap((r) => r.inputs?.__provider ?? []);
    });
    expect(recorded.length).toBeGreaterThan(1);
    for (const old of recorded) expect(old).toBe(text);
  });

  it("belongs to a resource of the dynamic type that is still a pulumi.dynamic.Resource", () => {
    expect(session).toBeInstanceOf(pulumi.dynamic.Resource);
    expect(session).toBeInstanceOf(pulumi.CustomResource);
    expect(engine.registration("stored").args.type).toBe("pulumi-nodejs:dynamic/remote-browser:BrowserSession");
  });

  it("is a plain string input, not a secret", () => {
    expect(typeof text).toBe("string");
    expect(text.length).toBeGreaterThan(0);
    // On the wire a secret would arrive wrapped in an object; the stored provider holds no secret.
    expect(typeof engine.registration("stored").wireObject.__provider).toBe("string");
  });

  it("loads pulumi-remote-browser/provider by name in each of its seven methods", () => {
    const requires = text.match(/require\("pulumi-remote-browser\/provider"\)/g) ?? [];
    expect(requires).toHaveLength(METHODS.length);
  });

  it("forwards each method to the installed implementation (delete to del)", async () => {
    const { provider, required, calls } = loadStoredProvider();
    expect(Object.keys(provider).sort()).toEqual([...METHODS].sort());
    const expected: Record<(typeof METHODS)[number], [string, unknown[]]> = {
      configure: ["configure", [{ config: {} }]],
      check: ["check", [{ a: 1 }, { b: 2 }]],
      diff: ["diff", ["vm-1", { a: 1 }, { b: 2 }]],
      create: ["create", [{ browser: "chrome" }]],
      read: ["read", ["vm-1", { c: 3 }]],
      update: ["update", ["vm-1", { a: 1 }, { b: 2 }]],
      delete: ["del", ["vm-1", { d: 4 }]],
    };
    for (const method of METHODS) {
      const [target, args] = expected[method];
      expect(await provider[method]!(...args)).toBe(`result of ${target}`);
      expect(calls.at(-1)).toEqual([target, args]);
    }
    expect(new Set(required)).toEqual(new Set(["pulumi-remote-browser/provider"]));
    expect(required).toHaveLength(METHODS.length);
  });

  it("captures neither the configured API key nor the one in the environment", () => {
    expect(text).not.toContain(CONFIG_KEY);
    expect(text).not.toContain(ENV_KEY);
    expect(text).not.toContain("https://api.example.test");
    expect(text).not.toMatch(/rb_test_/);
  });

  it("captures no client, HTTP or schema library and no local file path", () => {
    for (const word of ["undici", "zod", "RemoteBrowserClient", "Transport", "SessionProvider"]) {
      expect(text).not.toContain(word);
    }
    expect(text).not.toContain(REPO_ROOT);
    expect(text).not.toMatch(/require\("\.{1,2}\//);
    expect(text).not.toMatch(/__vi_import|__vite_ssr/);
  });
});
