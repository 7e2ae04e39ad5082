import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { DYNAMIC_SESSION_TYPE } from "../../engine-conventions/wire";
import { ReviewSessions } from "../../plugin/reviewSessions";
import { pluginIdentity } from "../../plugin/identity";
import { RemoteBrowserComponentProvider } from "../../plugin/provider";
import { ValidationError } from "../../client/errors";
import { PROJECT, STACK, secret, useMockEngine, value } from "../sdk/mocks";

/**
 * ReviewSessions with the Pulumi runtime mocks: the children it registers (the plugin's own
 * BrowserSessions), the inputs it passes on, and its outputs and their secrecy.
 */
const engine = useMockEngine();

const SESSION = "remote-browser:index:BrowserSession";

/** What the engine would answer for a running session of `browser`. */
function created(browser: string, vmId: string, link = true): Record<string, unknown> {
  return {
    vmId,
    status: "running",
    browserName: `Browser ${browser}`,
    ...(link ? { shareUrl: `https://share.example.test/de/s?link-${vmId}`, shareUrlPath: `/de/s?link-${vmId}` } : {}),
  };
}

describe("ReviewSessions", () => {
  it("registers itself and one BrowserSession per browser as its children, with the shared inputs", async () => {
    const review = new ReviewSessions("pr-1", {
      browsers: ["chrome", "firefox"],
      url: "https://pr-1.preview.example.test/",
      country: "de",
      shareLanguage: "de",
      callbackUrl: "https://example.test/back",
      readyTimeoutSeconds: 120,
      waitForCapacitySeconds: 60,
    });
    const urn = await value(review.urn);
    await value(review.sessionIds); // the children are registered by then
    expect(engine.registration("pr-1").type).toBe("remote-browser:index:ReviewSessions");
    expect(engine.registration("pr-1").custom).toBe(false);

    for (const browser of ["chrome", "firefox"]) {
      const reg = engine.registration(`pr-1-${browser}`);
      expect(reg.type).toBe(SESSION);
      expect(reg.custom).toBe(true);
      expect(reg.args.inputs).toEqual({
        browser,
        url: "https://pr-1.preview.example.test/",
        country: "de",
        shareLanguage: "de",
        callbackUrl: "https://example.test/back",
        readyTimeoutSeconds: 120,
        waitForCapacitySeconds: 60,
      });
      // Served by the plugin that serves the component, whatever other release is installed beside it.
      expect(reg.version).toBe(pluginIdentity().version);
      expect(reg.pluginDownloadURL).toBe(pluginIdentity().pluginDownloadURL);
      expect(reg.additionalSecretOutputs).toEqual(expect.arrayContaining(["shareUrl", "shareUrlPath"]));
      // A stack of an earlier release holds this session as a dynamic resource: the alias moves it in place.
      expect(reg.aliases).toEqual([{ type: DYNAMIC_SESSION_TYPE, parenturn: `urn:pulumi:${STACK}::${PROJECT}::remote-browser:index:ReviewSessions::pr-1` }]);
    }
    expect(urn).toBe(`urn:pulumi:${STACK}::${PROJECT}::remote-browser:index:ReviewSessions::pr-1`);
  });

  it("answers its outputs per browser, with the share links secret and the ids plain", async () => {
    engine.outputs.set("pr-2-chrome", created("chrome", "vm-c2"));
    engine.outputs.set("pr-2-edge", created("edge", "vm-e2"));
    const review = new ReviewSessions("pr-2", { browsers: ["chrome", "edge"], url: pulumi.output("https://pr-2.example.test/") });
    expect(await value(review.sessionIds)).toEqual({ chrome: "vm-c2", edge: "vm-e2" });
    expect(await value(review.browserNames)).toEqual({ chrome: "Browser chrome", edge: "Browser edge" });
    expect(await value(review.shareUrls)).toEqual({
      chrome: "https://share.example.test/de/s?link-vm-c2",
      edge: "https://share.example.test/de/s?link-vm-e2",
    });
    expect(await secret(review.shareUrls)).toBe(true);
    expect(await secret(review.sessionIds)).toBe(false);
    expect(await secret(review.browserNames)).toBe(false);
  });

  it("leaves out a session without a share link, and keeps the map secret even when it is empty", async () => {
    engine.outputs.set("pr-3-chrome", created("chrome", "vm-c3", false));
    const review = new ReviewSessions("pr-3", { browsers: ["chrome"], url: "https://pr-3.example.test/" });
    expect(await value(review.shareUrls)).toEqual({});
    expect(await secret(review.shareUrls)).toBe(true);
    expect(await value(review.sessionIds)).toEqual({ chrome: "vm-c3" });
  });

  it("keeps a secret url secret in the children's inputs", async () => {
    const review = new ReviewSessions("pr-4", { browsers: ["chrome"], url: pulumi.secret("https://pr-4.example.test/?token=t") });
    await value(review.sessionIds);
    const wire = engine.registration("pr-4-chrome").wireObject as Record<string, unknown>;
    expect(JSON.stringify(wire.url)).toContain("1b47061264138c4ac30d75fd1eb44270"); // the secret signature
  });

  it.each([
    ["not a list", "chrome", /must be a list of browser image ids/],
    ["an output", pulumi.output(["chrome"]), /not an output of another resource or a secret/],
    ["empty", [], /must name at least one browser/],
    ["a repeat", ["chrome", "firefox", "chrome"], /names "chrome" twice/],
    ["a blank", ["chrome", " "], /must hold non-empty strings/],
    ["a number", ["chrome", 7], /must hold non-empty strings, got 7/],
  ])("refuses browsers that are %s, before registering any session", (_what, browsers, message) => {
    const before = engine.registrations.length;
    let thrown: unknown;
    try {
      new ReviewSessions(`bad-${before}`, { browsers: browsers as string[], url: "https://x.example.test/" });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).code).toBe("validation");
    expect((thrown as Error).message).toMatch(message);
    expect(engine.registrations.filter((r) => r.type === SESSION && r.name.startsWith(`bad-${before}-`))).toEqual([]);
  });
});

describe("ReviewSessions constructed by the plugin", () => {
  // The provider resources as the engine names them: a YAML program's default provider registered without
  // a version, and an explicit one.
  const defaultProvider = `urn:pulumi:${STACK}::${PROJECT}::pulumi:providers:remote-browser::default`;
  const explicitProvider = `urn:pulumi:${STACK}::${PROJECT}::pulumi:providers:remote-browser::second`;
  const TYPE = "remote-browser:index:ReviewSessions";

  /** Constructs a ReviewSessions as the plugin's gRPC server would, and waits for its sessions' registrations. */
  async function construct(provider: RemoteBrowserComponentProvider, name: string, browsers: string[], options: pulumi.ComponentResourceOptions = {}) {
    const { state } = await provider.construct(name, TYPE, { browsers, url: `https://${name}.example.test/` }, options);
    await value(state.sessionIds as pulumi.Output<unknown>); // the children are registered by then
  }

  it("registers its sessions with the provider that constructs it, as Configure named it: the same process serves them", async () => {
    const provider = new RemoteBrowserComponentProvider();
    provider.servedAs(defaultProvider, "3f1c2a5e-provider-id");
    await construct(provider, "pr-5", ["chrome", "firefox"]);
    for (const browser of ["chrome", "firefox"]) {
      expect(engine.registration(`pr-5-${browser}`).provider).toBe(`${defaultProvider}::3f1c2a5e-provider-id`);
    }
  });

  it("keeps a provider the program gave the component for the package", async () => {
    const provider = new RemoteBrowserComponentProvider();
    provider.servedAs(defaultProvider, "3f1c2a5e-provider-id");
    const chosen = new pulumi.DependencyProviderResource(`${explicitProvider}::7d0e-explicit-id`);
    await construct(provider, "pr-6", ["chrome"], { providers: { "remote-browser": chosen } });
    expect(engine.registration("pr-6-chrome").provider).toBe(`${explicitProvider}::7d0e-explicit-id`);
    await construct(provider, "pr-7", ["chrome"], { providers: [chosen] });
    expect(engine.registration("pr-7-chrome").provider).toBe(`${explicitProvider}::7d0e-explicit-id`);
  });
});
