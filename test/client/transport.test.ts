import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MockAgent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { RemoteBrowserClient, isLoopbackHost, versionedBaseUrl } from "../../client";
import { recordingSleep, thrown, useEmulator } from "../helpers/emulator";

const t = useEmulator();

const QUOTA = {
  status: "ok",
  has_plan: true,
  cycle_session_limit: null,
  cycle_sessions_used: 0,
  cycle_sessions_remaining: null,
  running_session_limit: 5,
  running_sessions_used: 0,
  running_sessions_remaining: 5,
  cycle_start: "2025-01-01",
  residential_cycle_mb_limit: null,
  residential_bytes_used_cycle: 0,
  pools: [],
};

describe("where the key may go", () => {
  it("refuses a base URL that is not one without repeating it: it may hold a pasted key or password", () => {
    for (const baseUrl of ["https//user:pw-0a1b2c@api.example.test/v8", "rb_live_0a1b2c3d4e5f", "not a url with pw-0a1b2c"]) {
      let message = "";
      try {
        new RemoteBrowserClient({ baseUrl, apiKey: "rb_test_secret" });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, baseUrl).toContain("the base URL is not an absolute URL");
      expect(message).not.toContain("0a1b2c");
    }
  });

  it("refuses plain http to a non-loopback host before any network attempt", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    // Would answer if the client sent anything at all.
    agent.get("http://example.invalid").intercept({ path: "/v8/user/quota", method: "GET" }).reply(200, QUOTA);
    const client = new RemoteBrowserClient({ baseUrl: "http://example.invalid/v8", apiKey: "rb_test_secret", dispatcher: agent, sleep: recordingSleep().sleep });
    const err = await thrown(() => client.quota());
    expect(err).toMatchObject({ code: "insecure_transport", operation: "read quota" });
    expect(err.message).toContain("example.invalid");
    expect(err.message).toContain("https://");
    expect(agent.pendingInterceptors()).toHaveLength(1);
    await agent.close();
  });

  it("sends the key as a bearer token over https", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    let authorization: unknown;
    agent
      .get("https://api.example.invalid")
      .intercept({ path: "/v8/user/quota", method: "GET" })
      .reply(200, (opts) => {
        authorization = (opts.headers as Record<string, string>).authorization;
        return QUOTA;
      });
    const client = new RemoteBrowserClient({ baseUrl: "https://api.example.invalid/v8", apiKey: "rb_test_secret", dispatcher: agent });
    expect((await client.quota()).running_session_limit).toBe(5);
    expect(authorization).toBe("Bearer rb_test_secret");
    await agent.close();
  });

  it("allows plain http to a loopback host (the local emulator), by address or by name", async () => {
    expect((await t.client().quota()).status).toBe("ok");
    const byName = t.client({ baseUrl: t.emu.apiBaseUrl.replace("127.0.0.1", "localhost") });
    expect((await byName.account()).contact).toBe("developer@example.test");
    expect(t.requests("quota")).toHaveLength(1);
    expect(t.requests("account")).toHaveLength(1);
  });

  it("tells loopback hosts from others", () => {
    for (const host of ["localhost", "127.0.0.1", "127.3.2.1", "[::1]", "::1", "LOCALHOST"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["example.invalid", "10.0.0.1", "127.0.0.1.example.com", "localhost.evil.test", "0.0.0.0"]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it("refuses a call that needs the key when none is configured, naming the config key, without a request", async () => {
    const err = await thrown(() => t.client({ apiKey: undefined }).account());
    expect(err).toMatchObject({ code: "configuration", operation: "read account" });
    expect(err.message).toContain("remote-browser:apiKey");
    expect(err.message).toContain("REMOTE_BROWSER_API_KEY");
    expect(t.requests()).toHaveLength(0);
  });

  it("refuses a base URL that carries credentials, a query, or is not http(s)", () => {
    for (const baseUrl of ["https://user:pw@api.example.invalid/v8", "https://api.example.invalid/v8?x=1", "ftp://api.example.invalid/v8", "api.example.invalid"]) {
      let code: unknown;
      try {
        new RemoteBrowserClient({ baseUrl, apiKey: "k" });
      } catch (err) {
        code = (err as { code?: string }).code;
      }
      expect(code, baseUrl).toBe("configuration");
    }
  });
});

describe("answers that do not match the API", () => {
  let server: Server | undefined;
  afterEach(
    () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
        server = undefined;
      }),
  );

  /** A tiny service that answers every request with `body`, and records the request URLs. */
  async function serve(body: unknown, httpStatus = 200, headers: Record<string, string> = {}): Promise<{ baseUrl: string; hits: () => number; urls: string[] }> {
    const urls: string[] = [];
    server = createServer((req, res) => {
      urls.push(req.url ?? "");
      res.writeHead(httpStatus, { "content-type": "application/json", ...headers });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v8`, hits: () => urls.length, urls };
  }

  it("treats an HTTP 429 without a JSON answer as the rate limit and honours its Retry-After", async () => {
    const svc = await serve("Too Many Requests", 429, { "retry-after": "2" });
    const err = await thrown(() => t.client({ baseUrl: svc.baseUrl, retry: { maxElapsedMs: 3_000 } }).quota());
    expect(err).toMatchObject({ code: "rate_limited", reason: "rate_limited", rateLimited: true, httpStatus: 429, retryAfterMs: 2000 });
    expect(svc.hits()).toBe(2);
    expect(t.backoff).toEqual([2000]);
  });

  it("sends the key only to the endpoints that need it", async () => {
    const seen: (string | undefined)[] = [];
    server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url === "/v8/image" ? { status: "ok", images: [], vpnLocations: [], residential: { configured: false, countries: null } } : QUOTA));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const client = t.client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "rb_test_secret" });
    await client.images();
    await client.quota();
    expect(seen).toEqual([undefined, "Bearer rb_test_secret"]);
  });

  it("encodes the session id into the query instead of pasting it", async () => {
    const svc = await serve({ status: "ok", data: [] });
    expect(await t.client({ baseUrl: svc.baseUrl }).session("vm-1&id=vm-2#x")).toBeUndefined();
    expect(svc.urls).toHaveLength(1);
    const url = new URL(svc.urls[0]!, "http://127.0.0.1");
    expect(url.pathname).toBe("/v8/vm/data");
    expect(url.searchParams.getAll("id")).toEqual(["vm-1&id=vm-2#x"]);
  });

  it("reports invalid_answer naming the field path, and does not retry it", async () => {
    const svc = await serve({ status: "ok", images: "x", vpnLocations: [], residential: { configured: true, countries: null } });
    const err = await thrown(() => t.client({ baseUrl: svc.baseUrl }).images());
    expect(err).toMatchObject({ code: "invalid_answer", operation: "list images", httpStatus: 200 });
    expect(err.message).toMatch(/\bimages: /);
    expect(svc.hits()).toBe(1);
  });

  it("names a nested field path", async () => {
    const svc = await serve({ status: "ok", data: [{ id: "vm-1", status: "running", name: "Chrome", created: 20250101 }] });
    const err = await thrown(() => t.client({ baseUrl: svc.baseUrl }).session("vm-1"));
    expect(err).toMatchObject({ code: "invalid_answer", vmId: "vm-1" });
    expect(err.message).toContain("data.0.created");
  });

  it("reports an answer without a status as invalid_answer", async () => {
    const svc = await serve({ images: [] });
    const err = await thrown(() => t.client({ baseUrl: svc.baseUrl }).images());
    expect(err).toMatchObject({ code: "invalid_answer" });
    expect(err.message).toContain("status");
  });

  it("reports a body that is not JSON as invalid_answer", async () => {
    const svc = await serve("<html>maintenance</html>");
    const err = await thrown(() => t.client({ baseUrl: svc.baseUrl }).images());
    expect(err).toMatchObject({ code: "invalid_answer" });
    expect(err.message).toContain("not JSON");
    expect(svc.hits()).toBe(1);
  });

  it("treats an HTTP 5xx without a JSON answer as a service fault and retries it", async () => {
    const svc = await serve("bad gateway", 502);
    const err = await thrown(() => t.client({ baseUrl: svc.baseUrl, retry: { maxAttempts: 3 } }).images());
    expect(err).toMatchObject({ code: "service", httpStatus: 502 });
    expect(svc.hits()).toBe(3);
  });

  it("tolerates fields the API does not name", async () => {
    const svc = await serve({
      status: "ok",
      images: [{ id: "chrome", name: "Google Chrome", enabled: true, gpu: true }],
      vpnLocations: [{ code: "us", name: "United States", default: "us-nyc", cities: [{ code: "us-nyc", location: "New York", tier: 1 }], flag: "🇺🇸" }],
      residential: { configured: false, countries: null, provider: "x" },
      motd: "hello",
    });
    const answer = await t.client({ baseUrl: svc.baseUrl }).images();
    expect(answer.images.map((i) => i.id)).toEqual(["chrome"]);
    expect(answer.vpnLocations[0]!.cities[0]!.code).toBe("us-nyc");
    expect(answer.residential.configured).toBe(false);
  });
});

describe("versionedBaseUrl", () => {
  it("replaces a trailing version segment", () => {
    expect(versionedBaseUrl("https://api.example.invalid/v8", "v7")).toBe("https://api.example.invalid/v7");
    expect(versionedBaseUrl("https://api.example.invalid/v7/", "v8")).toBe("https://api.example.invalid/v8");
    expect(versionedBaseUrl("https://api.example.invalid/v8", "v8")).toBe("https://api.example.invalid/v8");
    expect(versionedBaseUrl("https://api.example.invalid/v8//", "v7")).toBe("https://api.example.invalid/v7");
    expect(versionedBaseUrl("https://api.example.invalid/v10", "v8")).toBe("https://api.example.invalid/v8");
  });

  it("leaves a version-like segment inside the path alone", () => {
    expect(versionedBaseUrl("https://example.invalid/v2-gateway/browser", "v8")).toBe("https://example.invalid/v2-gateway/browser/v8");
  });

  it("adds the version to an address without one, keeping its path", () => {
    expect(versionedBaseUrl("https://api.example.invalid", "v8")).toBe("https://api.example.invalid/v8");
    expect(versionedBaseUrl("https://api.example.invalid/", "v7")).toBe("https://api.example.invalid/v7");
    expect(versionedBaseUrl("https://example.invalid/browser-api/", "v8")).toBe("https://example.invalid/browser-api/v8");
  });

  it("lets one client reach both versions from either form of the address", async () => {
    for (const baseUrl of [t.emu.origin, t.emu.apiBaseUrl, t.emu.v7BaseUrl]) {
      const client = t.client({ baseUrl });
      expect((await client.quota()).status).toBe("ok");
      expect((await client.v7.quota()).status).toBe("ok");
    }
    expect(t.requests("quota")).toHaveLength(3);
    expect(t.requests("v7quota")).toHaveLength(3);
  });
});
