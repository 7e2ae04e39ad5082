import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { startHarness, waitForStatus } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ runningLimit: 10 });
});
afterAll(() => h.emu.close());
beforeEach(() => h.emu.control.reset());

const screenOf = (html: string) => /data-screen="([a-z_]+)"/.exec(html)?.[1];
const leaveHref = (html: string) => /<a class="leave" href="([^"]*)"/.exec(html)?.[1];

describe("share-link viewer", () => {
  it("serves the link on its own origin, different from the API origin", async () => {
    const a = await h.create();
    expect(new URL(a.body.shareUrl).origin).toBe(h.emu.shareBase);
    expect(h.emu.shareBase).not.toBe(h.emu.origin);
    expect(a.body.shareUrl).toBe(`${h.emu.shareBase}${a.body.shareUrlPath}`);
  });

  it("uses a link id of at least 128 bits that differs per session", async () => {
    const a = await h.create();
    const b = await h.create();
    const idA = a.body.shareUrlPath.split("?")[1];
    const idB = b.body.shareUrlPath.split("?")[1];
    expect(idA).not.toBe(idB);
    expect(Buffer.from(idA, "base64url").length * 8).toBeGreaterThanOrEqual(128);
  });

  it("shows a self-refreshing waiting screen while the session is starting", async () => {
    h.emu.control.preparation({ paused: true });
    const a = await h.create();
    const p = await h.page(a.body.shareUrl);
    expect(p.http).toBe(200);
    expect(screenOf(p.html)).toBe("waiting");
    expect(p.html).toMatch(/<meta http-equiv="refresh"/);
    expect(p.html).toContain("Your browser session is starting");
  });

  it("shows the browser view with browser name and url once running", async () => {
    const a = await h.create({ browser: "firefox", url: "https://example.test/<page>" });
    await waitForStatus(h, a.body.vmId, "running");
    const p = await h.page(a.body.shareUrl);
    expect(screenOf(p.html)).toBe("running");
    expect(p.html).toContain("Mozilla Firefox");
    expect(p.html).toContain("https://example.test/&#60;page&#62;");
    expect(p.html).not.toContain("<page>");
  });

  it("links leave to callbackUrl when given, otherwise to the launch page", async () => {
    const withCallback = await h.create({ callbackUrl: "https://app.example.test/done?a=1&b=2" });
    const without = await h.create();
    await waitForStatus(h, withCallback.body.vmId, "running");
    await waitForStatus(h, without.body.vmId, "running");
    expect(leaveHref((await h.page(withCallback.body.shareUrl)).html)).toBe("https://app.example.test/done?a=1&#38;b=2");
    expect(leaveHref((await h.page(without.body.shareUrl)).html)).toBe(`${h.emu.shareBase}/`);
  });

  it("shows the ended screen with a leave link while the session is stopping or suspended", async () => {
    const a = await h.create({ callbackUrl: "https://app.example.test/bye" });
    await h.post("/v8/vm/remove", { id: a.body.vmId });
    const stopping = await h.page(a.body.shareUrl);
    expect(screenOf(stopping.html)).toBe("ended");
    expect(leaveHref(stopping.html)).toBe("https://app.example.test/bye");
    const b = await h.create();
    h.emu.control.setState(b.body.vmId, "suspended");
    const suspended = await h.page(b.body.shareUrl);
    expect(screenOf(suspended.html)).toBe("ended");
    expect(leaveHref(suspended.html)).toBe(`${h.emu.shareBase}/`);
  });

  it("answers 404 'link no longer works' once the session is deleted", async () => {
    const a = await h.create();
    h.emu.control.endSession(a.body.vmId);
    const p = await h.page(a.body.shareUrl);
    expect(p.http).toBe(404);
    expect(screenOf(p.html)).toBe("gone");
    expect(p.html).toContain("This link no longer works");
  });

  it("answers 404 for an unknown or empty link id", async () => {
    expect((await h.page(`${h.emu.shareBase}/en/s?not-a-real-link`)).http).toBe(404);
    expect((await h.page(`${h.emu.shareBase}/en/s`)).http).toBe(404);
  });

  it("shows a could-not-start screen when preparation failed", async () => {
    h.emu.control.preparation({ failNext: 1 });
    const a = await h.create();
    await waitForStatus(h, a.body.vmId, "error");
    expect(screenOf((await h.page(a.body.shareUrl)).html)).toBe("failed");
  });

  it("renders in the link's locale and lets any supported locale be substituted", async () => {
    h.emu.control.preparation({ paused: true });
    const a = await h.create({ shareLanguage: "de" });
    const path: string = a.body.shareUrlPath;
    const de = await h.page(h.emu.shareBase + path);
    expect(de.html).toContain('lang="de"');
    expect(de.html).toContain("Ihre Browser-Sitzung wird gestartet");
    const headings = new Set<string>();
    for (const locale of ["en", "de", "fr", "es", "it", "pt", "ja"]) {
      const p = await h.page(h.emu.shareBase + path.replace(/^\/de\//, `/${locale}/`));
      expect(p.http).toBe(200);
      expect(p.html).toContain(`lang="${locale}"`);
      headings.add(/<h1>(.*?)<\/h1>/.exec(p.html)![1]!);
    }
    expect(headings.size).toBe(7);
  });

  it("answers 404 for an unsupported locale", async () => {
    const a = await h.create();
    const p = await h.page(h.emu.shareBase + a.body.shareUrlPath.replace(/^\/en\//, "/nl/"));
    expect(p.http).toBe(404);
  });

  it("serves a launch page at the root of the share origin", async () => {
    const p = await h.page(`${h.emu.shareBase}/`);
    expect(p.http).toBe(200);
    expect(screenOf(p.html)).toBe("launch");
  });

  it("keeps the link out of referrers and caches", async () => {
    const a = await h.create();
    const p = await h.page(a.body.shareUrl);
    expect(p.headers.get("referrer-policy")).toBe("no-referrer");
    expect(p.headers.get("cache-control")).toBe("no-store");
    expect(p.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  it("logs viewer requests without the link id", async () => {
    const a = await h.create();
    await h.page(a.body.shareUrl);
    const linkId = a.body.shareUrlPath.split("?")[1];
    const viewerEntries = h.emu.control.requests().filter((r) => r.operation === "viewer");
    expect(viewerEntries).toHaveLength(1);
    expect(viewerEntries[0]).toMatchObject({ path: "/en/s", vmId: a.body.vmId });
    expect(JSON.stringify(h.emu.control.requests())).not.toContain(linkId);
  });
});
