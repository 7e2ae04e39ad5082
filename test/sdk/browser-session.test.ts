import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { BrowserSession } from "../../sdk";
import { PROJECT, STACK, secret, useMockEngine, value } from "./mocks";

const engine = useMockEngine();

const TYPE = "pulumi-nodejs:dynamic/remote-browser:BrowserSession";

/** What the provider's create would have answered for a running session. */
const CREATED = {
  vmId: "vm-0f3a9c",
  shareUrl: "https://share.example.test/en/s?link-secret-1",
  shareUrlPath: "/en/s?link-secret-1",
  status: "running",
  browserName: "Google Chrome",
  created: "2026-11-23T00:00:00.000Z",
  locationApplied: false,
  locationReason: "unavailable",
  apiVersion: "v8",
  __idempotencyKey: "idem-derived-1",
};

const ALL_ARGS = {
  browser: "chrome",
  url: "https://example.test/start",
  language: "de",
  layout: "de",
  country: "de-fra",
  egress: "residential" as const,
  shareLanguage: "fr" as const,
  callbackUrl: "https://example.test/back",
  idempotencyKey: "my-key-1",
  readyTimeoutSeconds: 120,
  requireLocation: true,
  waitForCapacitySeconds: 90,
};

describe("BrowserSession registration", () => {
  it("registers the dynamic type token with every API and provider-side input passed through", async () => {
    const session = new BrowserSession("full", ALL_ARGS);
    await value(session.urn);
    const reg = engine.registration("full");
    expect(reg.type).toBe(TYPE);
    expect(BrowserSession.__pulumiType).toBe(TYPE);
    expect(reg.custom).toBe(true);
    const { __provider, ...inputs } = reg.args.inputs;
    expect(typeof __provider).toBe("string");
    expect(inputs).toEqual({ ...ALL_ARGS, __seed: `${PROJECT}/${STACK}/full`, __urn: await value(session.urn) });
  });

  it("resolves Output and Promise inputs before registering them", async () => {
    const session = new BrowserSession("lifted", {
      browser: pulumi.output("firefox"),
      url: Promise.resolve("https://example.test/lifted"),
      readyTimeoutSeconds: pulumi.output(30),
    });
    await value(session.urn);
    const { inputs } = engine.registration("lifted").args;
    expect(inputs.browser).toBe("firefox");
    expect(inputs.url).toBe("https://example.test/lifted");
    expect(inputs.readyTimeoutSeconds).toBe(30);
  });

  it("sends only browser, the seed, its URN and the provider when the optional inputs are unset", async () => {
    const session = new BrowserSession("minimal", { browser: "edge" });
    await value(session.urn);
    const { inputs } = engine.registration("minimal").args;
    expect(Object.keys(inputs).sort()).toEqual(["__provider", "__seed", "__urn", "browser"]);
    expect(inputs.__seed).toBe(`${PROJECT}/${STACK}/minimal`);
  });

  it("tells the provider its own URN, under a component parent too, without depending on parent or siblings", async () => {
    class Review extends pulumi.ComponentResource {
      readonly sessions: BrowserSession[];
      constructor(name: string) {
        super("test:index:Review", name);
        this.sessions = ["a", "b"].map((b) => new BrowserSession(`${name}-${b}`, { browser: "chrome" }, { parent: this }));
      }
    }
    const review = new Review("rev");
    const top = new BrowserSession("top", { browser: "chrome" });
    for (const s of [...review.sessions, top]) {
      const urn = await value(s.urn);
      const reg = engine.registration(urn.slice(urn.lastIndexOf("::") + 2));
      expect(reg.args.inputs.__urn).toBe(urn);
      expect(reg.dependencies).toEqual([]);
    }
    expect(await value(review.sessions[0]!.urn)).toBe(`urn:pulumi:${STACK}::${PROJECT}::test:index:Review$${TYPE}::rev-a`);
  });

  it("seeds each resource with its own project/stack/name", async () => {
    const a = new BrowserSession("seed-a", { browser: "chrome" });
    const b = new BrowserSession("seed-b", { browser: "chrome" });
    await Promise.all([value(a.urn), value(b.urn)]);
    expect(engine.registration("seed-a").args.inputs.__seed).toBe(`${PROJECT}/${STACK}/seed-a`);
    expect(engine.registration("seed-b").args.inputs.__seed).toBe(`${PROJECT}/${STACK}/seed-b`);
  });
});

describe("BrowserSession outputs", () => {
  it("resolves the session's outputs from the engine's state", async () => {
    engine.outputs.set("outs", CREATED);
    const session = new BrowserSession("outs", { browser: "chrome", country: "de" });
    expect(await value(session.id)).toBe(CREATED.vmId);
    expect(await value(session.vmId)).toBe(CREATED.vmId);
    expect(await value(session.status)).toBe("running");
    expect(await value(session.browserName)).toBe("Google Chrome");
    expect(await value(session.created)).toBe(CREATED.created);
    expect(await value(session.locationApplied)).toBe(false);
    expect(await value(session.locationReason)).toBe("unavailable");
    expect(await value(session.apiVersion)).toBe("v8");
    expect(await value(session.shareUrl)).toBe(CREATED.shareUrl);
    expect(await value(session.shareUrlPath)).toBe(CREATED.shareUrlPath);
    expect(await value(session.browser)).toBe("chrome");
    expect(await value(session.country)).toBe("de");
  });

  it("makes shareUrl and shareUrlPath secret outputs and leaves vmId and status plain", async () => {
    engine.outputs.set("secrets", CREATED);
    const session = new BrowserSession("secrets", { browser: "chrome" });
    expect(await secret(session.shareUrl)).toBe(true);
    expect(await secret(session.shareUrlPath)).toBe(true);
    expect(await secret(session.vmId)).toBe(false);
    expect(await secret(session.status)).toBe(false);
    expect(await secret(session.browser)).toBe(false);
    // Still usable as values inside the program.
    expect(await value(session.shareUrl)).toBe(CREATED.shareUrl);
  });
});

describe("BrowserSession resource options", () => {
  it("asks the engine for deleteBeforeReplace and secret share-link outputs", async () => {
    const session = new BrowserSession("opts", { browser: "chrome" });
    await value(session.urn);
    const reg = engine.registration("opts");
    expect(reg.deleteBeforeReplace).toBe(true);
    expect(reg.additionalSecretOutputs).toEqual(expect.arrayContaining(["shareUrl", "shareUrlPath"]));
    // The dynamic front's own output: the key its session was started under (dynamic/wireFields.ts).
    expect(reg.additionalSecretOutputs).toContain("__idempotencyKey");
    expect(reg.additionalSecretOutputs).not.toContain("vmId");
  });

  it("keeps its options over the caller's and merges the caller's secret outputs", async () => {
    const session = new BrowserSession("opts-merged", { browser: "chrome" }, { deleteBeforeReplace: false, additionalSecretOutputs: ["browserName"], protect: true });
    await value(session.urn);
    const reg = engine.registration("opts-merged");
    expect(reg.deleteBeforeReplace).toBe(true);
    expect(reg.additionalSecretOutputs).toEqual(expect.arrayContaining(["browserName", "shareUrl", "shareUrlPath"]));
  });
});

describe("BrowserSession import", () => {
  it("turns import into the __adoptVmId input instead of an engine import", async () => {
    const session = new BrowserSession("adopted", { browser: "chrome" }, { import: "vm-existing-42" });
    await value(session.urn);
    const reg = engine.registration("adopted");
    expect(reg.args.inputs.__adoptVmId).toBe("vm-existing-42");
    expect(reg.importId).toBe("");
    expect(reg.args.id || undefined).toBeUndefined();
  });

  it("sends no __adoptVmId without import", async () => {
    const session = new BrowserSession("not-adopted", { browser: "chrome" });
    await value(session.urn);
    expect(engine.registration("not-adopted").args.inputs).not.toHaveProperty("__adoptVmId");
  });
});
