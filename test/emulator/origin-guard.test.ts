import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../emulator";
import { startEmulator } from "../../emulator";
import { hostOfHeader, isLoopbackHost } from "../../emulator/origin-guard";
/* eslint-disable @typescript-eslint/no-explicit-any -- the emulator's JSON answers, read field by field as the API's spec writes them */

/**
 * A web page open in a developer's browser can send requests to the emulator on 127.0.0.1: the control
 * surface takes no key. What such a page cannot choose is the Host header (its own domain, also after DNS
 * rebinding) and, without a preflight the emulator never grants, a JSON content type.
 */
let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ prepMs: 40, prepJitterMs: 0 });
});
afterAll(() => emu.close());

/** A raw request, so that the Host header is exactly what the test says (fetch does not let one set it). */
function send(url: string, opts: { method?: string; host?: string; contentType?: string; body?: string } = {}) {
  const u = new URL(url);
  const headers: Record<string, string> = {};
  if (opts.host !== undefined) headers.host = opts.host;
  if (opts.contentType !== undefined) headers["content-type"] = opts.contentType;
  if (opts.body !== undefined) headers["content-length"] = String(Buffer.byteLength(opts.body));
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request({ host: u.hostname, port: Number(u.port), path: u.pathname + u.search, method: opts.method ?? "GET", headers }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

describe("the emulator answers loopback hosts only", () => {
  it("refuses a request for another host on the API, the viewer and the control surface, with a message", async () => {
    for (const url of [`${emu.apiBaseUrl}/image`, `${emu.controlUrl}/sessions`, `${emu.shareBase}/en/s?abcdef`]) {
      const refused = await send(url, { host: "attacker.example.test" });
      expect(refused.status, url).toBe(421);
      expect(refused.body.message, url).toMatch(/only requests for a loopback host.*attacker\.example\.test.*--allow-remote/);
    }
    // A rebinding page's POST to the control surface changes nothing.
    const before = emu.control.settings().prepMs;
    const post = await send(`${emu.controlUrl}/settings`, { method: "POST", host: "attacker.example.test:80", contentType: "application/json", body: '{"prepMs":5}' });
    expect(post.status).toBe(421);
    expect(emu.control.settings().prepMs).toBe(before);
  });

  it("answers localhost, 127.x and [::1] names, with or without a port", async () => {
    const port = new URL(emu.origin).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "localhost", "127.0.0.2", `[::1]:${port}`, "app.localhost"]) {
      expect((await send(`${emu.apiBaseUrl}/image`, { host })).status, host).toBe(200);
    }
  });

  it("classifies hosts", () => {
    for (const h of ["localhost", "LOCALHOST", "127.0.0.1", "127.255.0.9", "[::1]", "::1", "x.localhost"]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "10.0.0.1", "example.com", "localhost.example.com", "127.0.0.1.nip.io", "[::]", "::ffff:10.0.0.1", ""]) {
      expect(isLoopbackHost(h), h).toBe(false);
    }
    expect(hostOfHeader("localhost:8080")).toBe("localhost");
    expect(hostOfHeader("[::1]:8080")).toBe("[::1]");
    expect(hostOfHeader("a:b:c")).toBeUndefined();
    expect(hostOfHeader(undefined)).toBeUndefined();
  });

  it("refuses to listen on a non-loopback address unless told to serve other machines", async () => {
    await expect(startEmulator({ host: "0.0.0.0" })).rejects.toThrow(/host 0\.0\.0\.0 is not a loopback address.*allowRemote/);
    const remote = await startEmulator({ host: "0.0.0.0", allowRemote: true });
    try {
      const port = new URL(remote.origin).port;
      const answered = await send(`http://127.0.0.1:${port}/v8/image`, { host: "emulator.example.test" });
      expect(answered.status).toBe(200);
    } finally {
      await remote.close();
    }
  });
});

describe("control POSTs are JSON only", () => {
  it.each([["text/plain"], ["application/x-www-form-urlencoded"], ["multipart/form-data; boundary=x"], [undefined]])("refuses content type %s with 415 and changes nothing", async (contentType) => {
    const before = emu.control.settings().prepMs;
    const r = await send(`${emu.controlUrl}/settings`, { method: "POST", contentType, body: '{"prepMs":7}' });
    expect(r.status).toBe(415);
    expect(r.body.message).toMatch(/Content-Type: application\/json/);
    expect(emu.control.settings().prepMs).toBe(before);
  });

  it("refuses a bodiless control POST without the JSON content type too", async () => {
    emu.control.preparation({ paused: true });
    const created = await fetch(`${emu.apiBaseUrl}/vm/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ browser: "chrome" }),
    });
    expect(created.status).toBe(200);
    expect((await send(`${emu.controlUrl}/reset`, { method: "POST" })).status).toBe(415);
    expect(emu.control.sessions()).toHaveLength(1);
    expect((await send(`${emu.controlUrl}/reset`, { method: "POST", contentType: "application/json" })).status).toBe(200);
    expect(emu.control.sessions()).toHaveLength(0);
  });

  it("takes JSON with a charset", async () => {
    const r = await send(`${emu.controlUrl}/settings`, { method: "POST", contentType: "application/json; charset=utf-8", body: '{"prepMs":41}' });
    expect(r.status).toBe(200);
    expect(emu.control.settings().prepMs).toBe(41);
  });
});
